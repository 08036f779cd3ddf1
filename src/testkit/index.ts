/**
 * `scimkit/testkit`: the conformance kits. Run `describeStoreConformance` in a vitest test file to
 * check a `ResourceStore` against the whole contract (architecture §3, §6.6), and
 * `describeRequestLogConformance` to check a request log. Both run on one harness,
 * `describeConformanceKit`, which serves a kit of your own as well (the service's analytics kit,
 * `@scimkit/server/testkit`, is one).
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
// Canonical input for a kit of your own that writes through a ResourceStore (the service's analytics kit is one).
export { groupAttributes, uniqueKeys, userAttributes } from "./suites/helpers.js";
export type { ResourceTypeId } from "./suites/helpers.js";
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
