import { describe, expect, it } from "vitest";
import {
  analyticsConformanceSuites,
  analyticsConformanceTestNames,
  checkAnalyticsSkips,
  describeAnalyticsStoreConformance,
} from "./describe-analytics-store-conformance.js";

describe("the analytics store conformance kit", () => {
  it("names every check uniquely, so each name is a usable skip key", () => {
    expect(analyticsConformanceTestNames.length).toBeGreaterThan(60);
    expect(new Set(analyticsConformanceTestNames).size).toBe(analyticsConformanceTestNames.length);
    for (const name of analyticsConformanceTestNames) expect(name.trim()).toBe(name);
    for (const suite of analyticsConformanceSuites) expect(suite.tests.length, suite.title).toBeGreaterThan(0);
  });

  it("accepts skips of known checks with reasons", () => {
    const [first = "", second = ""] = analyticsConformanceTestNames;
    expect(checkAnalyticsSkips({ [first]: "not built yet", [second]: "single writer" })).toEqual([]);
  });

  it("refuses a skip of an unknown check or without a reason", () => {
    const [known = ""] = analyticsConformanceTestNames;
    expect(checkAnalyticsSkips({ "no such check": "typo", [known]: "  " })).toEqual([
      '"no such check" is not a check of the analytics conformance kit',
      `"${known}" is skipped without a reason`,
    ]);
    expect(() =>
      describeAnalyticsStoreConformance(
        "bad skips",
        () => {
          throw new Error("never created");
        },
        { skip: { "no such check": "typo" } },
      ),
    ).toThrow(/bad skips.*"no such check" is not a check/);
  });
});
