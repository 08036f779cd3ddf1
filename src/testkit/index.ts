/**
 * `scimkit/testkit`: the conformance kits. Run `describeStoreConformance` in a vitest test file to
 * check a `ResourceStore` against the whole contract (architecture §3, §6.6), and
 * `describeAnalyticsStoreConformance` to check an `AnalyticsStore` (spec §4.6; the kit knows
 * `scimkit/analytics` by its public types only). Both run on one harness,
 * `describeConformanceKit`, which serves a kit of your own as well.
 */
export {
  describeStoreConformance,
  storeConformanceSuites,
  storeConformanceTestNames,
} from "./describe-store-conformance.js";
export type { StoreConformanceOptions } from "./describe-store-conformance.js";
export type { ConformanceContext, ConformanceSuite, ConformanceTest } from "./conformance-test.js";
export { describeConformanceKit, kitCheckNames, kitSkipProblems } from "./describe-conformance-kit.js";
export type { ConformanceKitRun, KitCheck, KitSuite } from "./describe-conformance-kit.js";
export {
  analyticsConformanceSuites,
  analyticsConformanceTestNames,
  describeAnalyticsStoreConformance,
} from "./analytics/describe-analytics-store-conformance.js";
export type { AnalyticsConformanceOptions } from "./analytics/describe-analytics-store-conformance.js";
export type {
  AnalyticsConformanceContext,
  AnalyticsConformanceSuite,
  AnalyticsConformanceTest,
  AnalyticsStoreUnderTest,
} from "./analytics/analytics-conformance-test.js";
export {
  describeRequestLogConformance,
  requestLogConformanceSuites,
  requestLogConformanceTestNames,
} from "./request-log/describe-request-log-conformance.js";
export type { RequestLogConformanceOptions } from "./request-log/describe-request-log-conformance.js";
export type {
  RequestLogConformanceContext,
  RequestLogConformanceSettings,
  RequestLogConformanceSuite,
  RequestLogConformanceTest,
  RequestLogUnderTest,
} from "./request-log/request-log-conformance-test.js";
