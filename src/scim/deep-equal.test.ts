import { describe, expect, it } from "vitest";
import { deepEqual } from "./deep-equal.js";

describe("deepEqual", () => {
  it("compares primitives by value and type", () => {
    expect(deepEqual("a", "a")).toBe(true);
    expect(deepEqual(1, "1")).toBe(false);
    expect(deepEqual(null, undefined)).toBe(false);
    expect(deepEqual(Number.NaN, Number.NaN)).toBe(true);
  });

  it("ignores key order but not array order", () => {
    expect(deepEqual({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true);
    expect(deepEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
  });

  it("treats a key holding undefined as absent", () => {
    expect(deepEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, c: 2 })).toBe(false);
  });

  it("never equates an array with an object", () => {
    expect(deepEqual([], {})).toBe(false);
    expect(deepEqual({ 0: "x" }, ["x"])).toBe(false);
  });
});
