/**
 * `@scimkit/server/testkit`: the analytics store conformance kit. Run
 * `describeAnalyticsStoreConformance` in a vitest test file to check an `AnalyticsStore` against
 * the whole contract (spec §4.6). It runs on scimkit's kit harness (`scimkit/testkit`) and knows
 * the analytics interface by its public types only.
 */
export {
  analyticsConformanceSuites,
  analyticsConformanceTestNames,
  describeAnalyticsStoreConformance,
} from "./describe-analytics-store-conformance.js";
export type { AnalyticsConformanceOptions } from "./describe-analytics-store-conformance.js";
export type {
  AnalyticsConformanceContext,
  AnalyticsConformanceSuite,
  AnalyticsConformanceTest,
  AnalyticsStoreUnderTest,
} from "./analytics-conformance-test.js";
