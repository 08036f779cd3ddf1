/**
 * The shape of one analytics conformance check: a stable name (the key a store author skips by)
 * and a body that runs against a fresh analytics store and the SCIM side it reads learners from.
 * Suites are plain data so the kit can list every name without running anything.
 */
import type { TokenStore } from "scimkit";
import type { ResourceStore } from "scimkit/store";
import type { KitCheck, KitSuite } from "scimkit/testkit";
import type { AnalyticsStore } from "@scimkit/server";

/**
 * What the kit's factory returns: an analytics store, empty, together with the `ResourceStore`
 * and `TokenStore` of the same storage — the SCIM side it reads learners from and clears when an
 * organization is deleted.
 */
export interface AnalyticsStoreUnderTest {
  /** The store being checked; it must hold nothing yet (the kit counts organizations and keys). */
  readonly analytics: AnalyticsStore;
  /** Where SCIM users and groups live; the kit provisions learners through it. */
  readonly resources: ResourceStore;
  /** The SCIM tokens of the organizations; the kit checks that deleting an organization revokes them. */
  readonly tokens: TokenStore;
  /** Releases everything the factory opened; called after every check. */
  close(): Promise<void>;
}

/** What a check runs against: a fresh store of its own. */
export type AnalyticsConformanceContext = Omit<AnalyticsStoreUnderTest, "close">;

/** One named check (the shared harness's `KitCheck`). */
export type AnalyticsConformanceTest = KitCheck<AnalyticsConformanceContext>;

/** The checks of one area of the contract, reported under one `describe`. */
export type AnalyticsConformanceSuite = KitSuite<AnalyticsConformanceContext>;

/** Declares a check; a helper only so suites read as a list of names and bodies. */
export function analyticsConformanceTest(
  name: string,
  run: (context: AnalyticsConformanceContext) => Promise<void>,
  options: { readonly timeoutMs?: number } = {},
): AnalyticsConformanceTest {
  return options.timeoutMs === undefined ? { name, run } : { name, run, timeoutMs: options.timeoutMs };
}
