import { describe, expect, it } from "vitest";
import {
  describeRequestLogConformance,
  requestLogConformanceSuites,
  requestLogConformanceTestNames,
} from "./describe-request-log-conformance.js";

describe("the request-log conformance kit", () => {
  it("names every check uniquely, so each name is a usable skip key", () => {
    expect(requestLogConformanceTestNames.length).toBeGreaterThanOrEqual(10);
    expect(new Set(requestLogConformanceTestNames).size).toBe(requestLogConformanceTestNames.length);
    for (const name of requestLogConformanceTestNames) expect(name.trim()).toBe(name);
    for (const suite of requestLogConformanceSuites) expect(suite.tests.length, suite.title).toBeGreaterThan(0);
  });

  it("refuses a skip of an unknown check or without a reason", () => {
    const [known = ""] = requestLogConformanceTestNames;
    const factory = () => {
      throw new Error("never made");
    };
    expect(() => describeRequestLogConformance("bad skips", factory, { skip: { "no such check": "typo" } })).toThrow(
      /bad skips.*"no such check" is not a check of the request-log kit/,
    );
    expect(() => describeRequestLogConformance("empty reason", factory, { skip: { [known]: " " } })).toThrow(/skipped without a reason/);
  });
});
