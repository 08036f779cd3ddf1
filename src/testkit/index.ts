/**
 * `scimkit/testkit`: the conformance kits. Run `describeStoreConformance` in a vitest test file to
 * check a `ResourceStore` against the whole contract (DESIGN §3, §6.6), and
 * `describeAnalyticsStoreConformance` to check an `AnalyticsStore` (spec §4.6).
 */
export {
  describeStoreConformance,
  storeConformanceSuites,
  storeConformanceTestNames,
} from "./describe-store-conformance.js";
export type { StoreConformanceOptions } from "./describe-store-conformance.js";
export type { ConformanceContext, ConformanceSuite, ConformanceTest } from "./conformance-test.js";
export {
  analyticsConformanceSuites,
  analyticsConformanceTestNames,
  describeAnalyticsStoreConformance,
} from "../analytics/testkit/describe-analytics-store-conformance.js";
export type { AnalyticsConformanceOptions } from "../analytics/testkit/describe-analytics-store-conformance.js";
export type {
  AnalyticsConformanceContext,
  AnalyticsConformanceSuite,
  AnalyticsConformanceTest,
  AnalyticsStoreUnderTest,
} from "../analytics/testkit/analytics-conformance-test.js";
