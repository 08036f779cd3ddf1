import { describe, expect, it } from "vitest";
import { parseByteLimit } from "./byte-limit.js";

describe("parseByteLimit", () => {
  it("reads sizes as Express's body parser does: 1024-based units, any case, decimals", () => {
    expect(parseByteLimit("bodyLimit", 1000)).toBe(1000);
    expect(parseByteLimit("bodyLimit", "1mb")).toBe(1_048_576);
    expect(parseByteLimit("bodyLimit", "1KB")).toBe(1024);
    expect(parseByteLimit("bodyLimit", "1.5kb")).toBe(1536);
    expect(parseByteLimit("bodyLimit", " 2 gb ")).toBe(2 * 1024 ** 3);
    expect(parseByteLimit("bodyLimit", "512")).toBe(512);
  });

  it("refuses what the parser would read as no limit at all, naming the option", () => {
    for (const bad of ["a lot", "1 megabyte", "", "-1kb", Number.NaN, -1, Number.POSITIVE_INFINITY]) {
      expect(() => parseByteLimit("bulk.maxPayloadSize", bad)).toThrow(/bulk\.maxPayloadSize/);
    }
  });
});
