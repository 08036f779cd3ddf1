import { describe, expect, it } from "vitest";
import { checkSkips, describeStoreConformance, storeConformanceSuites, storeConformanceTestNames } from "./describe-store-conformance.js";

describe("the store conformance kit", () => {
  it("names every test uniquely, so each name is a usable skip key", () => {
    expect(storeConformanceTestNames.length).toBeGreaterThan(50);
    expect(new Set(storeConformanceTestNames).size).toBe(storeConformanceTestNames.length);
    for (const name of storeConformanceTestNames) expect(name.trim()).toBe(name);
    for (const suite of storeConformanceSuites) expect(suite.tests.length, suite.title).toBeGreaterThan(0);
  });

  it("accepts skips of known tests with reasons", () => {
    const [first = "", second = ""] = storeConformanceTestNames;
    expect(checkSkips({ [first]: "no cursor support", [second]: "single writer" })).toEqual([]);
  });

  it("refuses a skip of an unknown test or without a reason", () => {
    const [known = ""] = storeConformanceTestNames;
    expect(checkSkips({ "no such test": "typo", [known]: "  " })).toEqual([
      '"no such test" is not a test of the store conformance kit',
      `"${known}" is skipped without a reason`,
    ]);
    expect(() =>
      describeStoreConformance({
        name: "bad skips",
        createStore: () => {
          throw new Error("never created");
        },
        skip: { "no such test": "typo" },
      }),
    ).toThrow(/bad skips.*"no such test" is not a test/);
  });
});
