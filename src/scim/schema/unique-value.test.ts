import { describe, expect, it } from "vitest";
import { uniqueValue } from "./unique-value.js";

describe("uniqueValue", () => {
  it("makes canonically equivalent texts one key, in NFC", () => {
    const composed = "\u00c5ngstr\u00f6m";
    const decomposed = "A\u030angstro\u0308m";
    expect(uniqueValue(decomposed, true)).toBe(composed);
    expect(uniqueValue(composed, true)).toBe(composed);
    expect(uniqueValue(decomposed, false)).toBe("\u00e5ngstr\u00f6m");
    // Marks in either canonical order are one text (U+0323 below sorts before U+0307 above).
    expect(uniqueValue("q\u0307\u0323", true)).toBe(uniqueValue("q\u0323\u0307", true));
  });

  it("folds case only when not caseExact, and the folded key is NFC", () => {
    expect(uniqueValue("ALICE", true)).toBe("ALICE");
    expect(uniqueValue("ALICE", false)).toBe("alice");
    const folded = uniqueValue("\u0130STANBUL", false);
    expect(folded).toBe(folded.normalize("NFC"));
    expect(uniqueValue("\u0130STANBUL", false)).toBe(uniqueValue("I\u0307STANBUL", false));
  });

  it("keeps compatibility forms apart: NFC, not NFKC, so the ligature ﬁ is not fi", () => {
    expect(uniqueValue("\ufb01le", false)).not.toBe(uniqueValue("file", false));
  });
});
