/**
 * The store conformance kit (architecture §3, §5, §6.6): every check of the `ResourceStore` contract as
 * vitest tests, for adapter authors and for scimkit's own stores. A store that passes it — or
 * skips a check by name with a reason — can back the router.
 */
import type { ResourceStore } from "../store/resource-store.js";
import type { ConformanceContext, ConformanceSuite } from "./conformance-test.js";
import { describeConformanceKit, kitCheckNames, kitSkipProblems } from "./describe-conformance-kit.js";
import { newId } from "./suites/helpers.js";
import { concurrencySuite } from "./suites/concurrency.js";
import { crudSuite } from "./suites/crud.js";
import { cursorSuite } from "./suites/cursors.js";
import { filterSuite } from "./suites/filters.js";
import { membershipSuite } from "./suites/membership.js";
import { pagingSuite } from "./suites/paging.js";
import { sortingSuite } from "./suites/sorting.js";
import { tenantIsolationSuite } from "./suites/tenant-isolation.js";
import { uniquenessSuite } from "./suites/uniqueness.js";
import { versionSuite } from "./suites/versions.js";

/** How to run the kit against one store. */
export interface StoreConformanceOptions {
  /** Shown in the report: `store conformance: <name>`. */
  readonly name: string;
  /**
   * Makes the store a test runs against; called before every test. Every test works in
   * organizations of its own, with random ids, so a persistent database needs no cleanup; to share
   * one store across tests, return it here and pass a `destroyStore` that leaves it open.
   */
  readonly createStore: () => ResourceStore | Promise<ResourceStore>;
  /** Called after every test with the store it used. Default: `store.close()` when the store has one. */
  readonly destroyStore?: (store: ResourceStore) => void | Promise<void>;
  /**
   * Tests not to run, by name (see `storeConformanceTestNames`), each with the reason, which is
   * shown in the skipped test's title. An unknown name or an empty reason is an error, so a typo
   * never silently runs a test you meant to skip, and no skip goes unexplained.
   *
   * @example
   * skip: { "concurrent membership deltas to one group all take effect": "single-writer file store" }
   */
  readonly skip?: Readonly<Record<string, string>>;
}

/** The suites, in report order. */
export const storeConformanceSuites: readonly ConformanceSuite[] = [
  crudSuite,
  uniquenessSuite,
  tenantIsolationSuite,
  filterSuite,
  pagingSuite,
  sortingSuite,
  cursorSuite,
  membershipSuite,
  versionSuite,
  concurrencySuite,
];

/** Every test name of the kit: the keys `StoreConformanceOptions.skip` accepts. */
export const storeConformanceTestNames: readonly string[] = kitCheckNames(storeConformanceSuites);

/** Why `skip` is unacceptable, one line per problem; empty when it is fine. */
export function checkSkips(skip: Readonly<Record<string, string>>): string[] {
  return kitSkipProblems(storeConformanceTestNames, skip, (name) => `"${name}" is not a test of the store conformance kit`);
}

// Writes need distinct, increasing times so that created/lastModified order is observable; a fixed
// start keeps failures reproducible.
const CLOCK_START = Date.UTC(2024, 0, 1);

interface Fixture {
  readonly store: ResourceStore;
  readonly orgId: string;
  readonly otherOrgId: string;
  tick: number;
}

/**
 * Registers the conformance tests for a store with vitest: one `describe` per area, one `it` per
 * check, each against the store `createStore` returns, in fresh random organizations.
 *
 * @example
 * // my-store.conformance.test.ts
 * import { describeStoreConformance } from "scimkit/testkit";
 * describeStoreConformance({
 *   name: "my store",
 *   createStore: () => myStore({ url: process.env.DATABASE_URL }),
 *   skip: { "cursor pages visit every resource once in id order": "no cursor support yet" },
 * });
 */
export function describeStoreConformance(options: StoreConformanceOptions): void {
  const skip = options.skip ?? {};
  const problems = checkSkips(skip);
  if (problems.length > 0) throw new Error(`describeStoreConformance(${options.name}): ${problems.join("; ")}`);

  describeConformanceKit<Fixture, ConformanceContext>({
    title: `store conformance: ${options.name}`,
    suites: storeConformanceSuites,
    skip,
    setUp: async () => ({ store: await options.createStore(), orgId: `org-${newId()}`, otherOrgId: `org-${newId()}`, tick: 0 }),
    tearDown: async (finished) => {
      if (options.destroyStore) await options.destroyStore(finished.store);
      else await finished.store.close?.();
    },
    contextOf: (current, testContext) => ({
      store: current.store,
      orgId: current.orgId,
      otherOrgId: current.otherOrgId,
      now: () => new Date(CLOCK_START + 1000 * current.tick++).toISOString(),
      requireCapability: (capability) => {
        if (current.store.capabilities?.[capability] === false) {
          testContext.skip(`the store declares capabilities.${capability}: false`);
        }
      },
    }),
  });
}
