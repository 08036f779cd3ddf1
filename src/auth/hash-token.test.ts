import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashToken, sameTokenHash, unmatchableTokenHash } from "./hash-token.js";

describe("hashToken", () => {
  it("is the hex SHA-256 of the token's UTF-8 bytes", () => {
    // FIPS 180-2 test vector.
    expect(hashToken("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(hashToken("tøken")).toBe(createHash("sha256").update(Buffer.from("tøken", "utf8")).digest("hex"));
  });

  it("gives 64 lower-case hex characters", () => {
    expect(hashToken("scimkit_x")).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("sameTokenHash", () => {
  const a = hashToken("a");
  const b = hashToken("b");

  it("is true for equal digests and false for different ones", () => {
    expect(sameTokenHash(a, hashToken("a"))).toBe(true);
    expect(sameTokenHash(a, b)).toBe(false);
  });

  it("treats malformed digests as equal to nothing, without throwing", () => {
    expect(sameTokenHash(a, a.slice(0, 62))).toBe(false);
    expect(sameTokenHash("", "")).toBe(false);
    expect(sameTokenHash("zz".repeat(32), "zz".repeat(32))).toBe(false);
    expect(sameTokenHash(`${a}00`, `${a}00`)).toBe(false);
  });
});

describe("unmatchableTokenHash", () => {
  it("is a well-formed digest equal only to itself", () => {
    expect(unmatchableTokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(sameTokenHash(unmatchableTokenHash, unmatchableTokenHash)).toBe(true);
    expect(sameTokenHash(unmatchableTokenHash, hashToken(""))).toBe(false);
  });
});
