/**
 * The shape of one check of the request-log conformance kit: a stable name (the key a log's author
 * skips by) and a body that runs against a fresh `ReadableRequestLog`, configured with the kit's
 * settings (a clock it controls, small retention limits, a small buffer).
 */
import type { ReadableRequestLog } from "../../request-log/readable-request-log.js";
import type { KitCheck, KitSuite } from "../describe-conformance-kit.js";

/**
 * What the kit asks of the log it makes: a log honouring the settings it has (a memory ring has no
 * retention nor buffer, and skips those checks by name).
 */
export interface RequestLogConformanceSettings {
  /** The clock retention must read (milliseconds since the epoch); the kit moves it. */
  readonly now: () => number;
  /** Retention by age: entries whose `at` is older than this are deleted. */
  readonly maxAgeMs: number;
  /** Retention by count: each organization's newest this many entries are kept. */
  readonly maxEntriesPerOrg: number;
  /** Entries the log may hold unwritten; past it, `record` drops and counts. */
  readonly bufferCapacity: number;
  /** Requests without a verified token kept in all (`recordUnauthenticated`), newest first. */
  readonly unauthenticatedCapacity: number;
  /** Requests without a verified token kept per minute of the clock; the rest are counted as dropped. */
  readonly unauthenticatedPerMinute: number;
}

/** What the kit's factory returns: a log holding nothing yet, and its handles. */
export interface RequestLogUnderTest {
  /** The log being checked. */
  readonly log: ReadableRequestLog;
  /** Writes what the log buffers, if it buffers. Absent: nothing to write. */
  flush?(): Promise<void>;
  /** Runs one retention sweep now. Absent: the retention checks fail unless skipped. */
  enforceRetention?(): Promise<void>;
  /** Entries dropped so far. Absent: the overflow check fails unless skipped. */
  dropped?(): number;
  /**
   * Closes the log, which must write everything it holds, and returns a new log over the same
   * storage (which `close` then closes). Absent: the close check fails unless skipped.
   */
  closeAndReopen?(): Promise<ReadableRequestLog>;
  /** Releases everything the factory opened; called after every check. */
  close(): Promise<void>;
}

/** What a check runs against. */
export interface RequestLogConformanceContext extends RequestLogUnderTest {
  /** The settings the log was made with. */
  readonly settings: RequestLogConformanceSettings;
  /** Sets the settings' clock. */
  setNow(ms: number): void;
}

/** One named check (the shared harness's `KitCheck`). */
export type RequestLogConformanceTest = KitCheck<RequestLogConformanceContext>;

/** The checks of one area of the contract, reported under one `describe`. */
export type RequestLogConformanceSuite = KitSuite<RequestLogConformanceContext>;

/** Declares a check; a helper only so suites read as a list of names and bodies. */
export function requestLogConformanceTest(
  name: string,
  run: (context: RequestLogConformanceContext) => Promise<void>,
): RequestLogConformanceTest {
  return { name, run };
}
