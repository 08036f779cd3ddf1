/**
 * The shape of one conformance check: a stable name (the key adapter authors skip by) and a body
 * that runs against a fresh store and fresh organizations. Suites are plain data so that the kit
 * can list every name without running anything.
 */
import type { ResourceStore, StoreCapabilities } from "../store/resource-store.js";

/** What a check runs against: a store of its own and organizations no other check uses. */
export interface ConformanceContext {
  readonly store: ResourceStore;
  /** A random organization id, new for every check, so a persistent store needs no cleanup. */
  readonly orgId: string;
  /** A second random organization, for the checks that prove nothing crosses tenants. */
  readonly otherOrgId: string;
  /**
   * The next `now` to pass to a write: canonical ISO 8601 (`toISOString()` form), one second after
   * the previous one, so the order of writes is visible in `created` and `lastModified`.
   */
  now(): string;
  /**
   * Skips the check at run time when the store declares a capability off (architecture §3: capabilities
   * are declared, never sniffed); the reason shows in the report.
   */
  requireCapability(capability: keyof StoreCapabilities): void;
}

/** One named check. */
export interface ConformanceTest {
  /** Stable and unique across the kit: the key of `StoreConformanceOptions.skip`. */
  readonly name: string;
  readonly run: (context: ConformanceContext) => Promise<void>;
}

/** The checks of one area of the contract, reported under one `describe`. */
export interface ConformanceSuite {
  readonly title: string;
  readonly tests: readonly ConformanceTest[];
}

/** Declares a check; a helper only so suites read as a list of names and bodies. */
export function conformanceTest(name: string, run: (context: ConformanceContext) => Promise<void>): ConformanceTest {
  return { name, run };
}
