import { describe, expect, it } from "vitest";
import { defaultReportOptions, resolveReportOptions } from "./report-options.js";

describe("the router's report options", () => {
  it("default to a 24-hour life, a 5-minute window, 4 jobs and 500,000 rows per organization, a 30 s lease", () => {
    expect(resolveReportOptions({}, () => "worker-1")).toEqual({ ...defaultReportOptions, heartbeatMs: 10_000, workerId: "worker-1" });
  });

  it("refuse values that would break the lifecycle, naming the option", () => {
    expect(() => resolveReportOptions({ leaseMs: 1000, heartbeatMs: 1000 }, () => "w")).toThrow(
      /reports\.heartbeatMs \(1000\) must be below reports\.leaseMs/,
    );
    expect(() => resolveReportOptions({ ttlMs: 0 }, () => "w")).toThrow(/reports\.ttlMs must be a number of at least 1; got 0/);
    expect(() => resolveReportOptions({ maxStoredRowsPerOrganization: Number.NaN }, () => "w")).toThrow(/maxStoredRowsPerOrganization/);
    expect(() => resolveReportOptions({ concurrency: -1 }, () => "w")).toThrow(/concurrency/);
    expect(resolveReportOptions({ freshnessMs: 0, concurrency: 0 }, () => "w")).toMatchObject({ freshnessMs: 0, concurrency: 0 });
  });
});
