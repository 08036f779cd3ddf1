/**
 * `scimkit/testkit`: the store conformance kit. Run `describeStoreConformance` in a vitest test
 * file to check a `ResourceStore` against the whole contract (DESIGN §3, §6.6).
 */
export {
  describeStoreConformance,
  storeConformanceSuites,
  storeConformanceTestNames,
} from "./describe-store-conformance.js";
export type { StoreConformanceOptions } from "./describe-store-conformance.js";
export type { ConformanceContext, ConformanceSuite, ConformanceTest } from "./conformance-test.js";
