/**
 * The request-log conformance kit (issue 18, architecture §6.6): every check of the
 * `ReadableRequestLog` contract as vitest tests — listing, filters, cursor pages, isolation between
 * organizations, malformed queries — and of what a durable log adds: retention by age and by count
 * per organization, a bounded buffer that drops and counts, nothing lost on close; and of the
 * space for requests without a verified token (issue 27): apart, sampled, capped, counted. Run by scimkit
 * on `memoryRequestLog` and `sqlRequestLog` (SQLite and PostgreSQL), usable by anyone who writes
 * another log.
 */
import { describeConformanceKit, kitCheckNames, kitSkipProblems } from "../describe-conformance-kit.js";
import type {
  RequestLogConformanceContext,
  RequestLogConformanceSettings,
  RequestLogConformanceSuite,
  RequestLogUnderTest,
} from "./request-log-conformance-test.js";
import { bufferingSuite } from "./suites/buffering.js";
import { listingSuite } from "./suites/listing.js";
import { KIT_EPOCH } from "./suites/request-log-helpers.js";
import { retentionSuite } from "./suites/retention.js";
import { unauthenticatedSuite } from "./suites/unauthenticated.js";

/** Options of `describeRequestLogConformance`. */
export interface RequestLogConformanceOptions {
  /**
   * Checks not to run, by name (see `requestLogConformanceTestNames`), each with the reason, shown
   * in the skipped check's title. An unknown name or an empty reason is an error.
   *
   * @example skip: { "deletes entries older than maxAgeMs by the log's clock, in every organization": "a ring buffer, no retention by age" }
   */
  readonly skip?: Readonly<Record<string, string>>;
}

/** The suites, in report order. */
export const requestLogConformanceSuites: readonly RequestLogConformanceSuite[] = [
  listingSuite,
  retentionSuite,
  bufferingSuite,
  unauthenticatedSuite,
];

/** Every check name of the kit: the keys `RequestLogConformanceOptions.skip` accepts. */
export const requestLogConformanceTestNames: readonly string[] = kitCheckNames(requestLogConformanceSuites);

/**
 * The settings the kit makes its logs with: one minute of age, 5 entries per organization, a
 * buffer of 20; 10 unauthenticated entries in all, 4 a minute.
 */
const SETTINGS = {
  maxAgeMs: 60_000,
  maxEntriesPerOrg: 5,
  bufferCapacity: 20,
  unauthenticatedCapacity: 10,
  unauthenticatedPerMinute: 4,
} as const;

interface Fixture {
  readonly underTest: RequestLogUnderTest;
  readonly settings: RequestLogConformanceSettings;
  readonly clock: { now: number };
}

/**
 * Registers the conformance checks of a request log with vitest: one `describe` per area, one `it`
 * per check. `factory` is called before every check with the settings the log must honour (its
 * clock, retention limits and buffer size) and must give a log whose storage holds nothing yet;
 * `close` is called after the check.
 *
 * @example
 * import { memoryRequestLog } from "scimkit/request-log";
 * import { describeRequestLogConformance, requestLogConformanceTestNames } from "scimkit/testkit";
 * describeRequestLogConformance("memory", () => ({ log: memoryRequestLog(), close: async () => {} }), {
 *   skip: { "writes every entry it accepted when it is closed": "nothing outlives the process" },
 * });
 */
export function describeRequestLogConformance(
  name: string,
  factory: (settings: RequestLogConformanceSettings) => RequestLogUnderTest | Promise<RequestLogUnderTest>,
  options: RequestLogConformanceOptions = {},
): void {
  const skip = options.skip ?? {};
  const problems = kitSkipProblems(requestLogConformanceTestNames, skip, (check) => `"${check}" is not a check of the request-log kit`);
  if (problems.length > 0) throw new Error(`describeRequestLogConformance(${name}): ${problems.join("; ")}`);

  describeConformanceKit<Fixture, RequestLogConformanceContext>({
    title: `request log conformance: ${name}`,
    suites: requestLogConformanceSuites,
    skip,
    async setUp() {
      // The clock starts a day after the kit's first entry time, so no entry is in the future.
      const clock = { now: KIT_EPOCH + 24 * 3600 * 1000 };
      const settings: RequestLogConformanceSettings = { ...SETTINGS, now: () => clock.now };
      return { underTest: await factory(settings), settings, clock };
    },
    tearDown: (fixture) => fixture.underTest.close(),
    contextOf: ({ underTest, settings, clock }) => {
      const context: RequestLogConformanceContext = {
        log: underTest.log,
        settings,
        setNow(ms) {
          clock.now = ms;
        },
        close: () => underTest.close(),
        ...(underTest.flush ? { flush: () => underTest.flush?.() ?? Promise.resolve() } : {}),
        ...(underTest.enforceRetention ? { enforceRetention: () => underTest.enforceRetention?.() ?? Promise.resolve() } : {}),
        ...(underTest.dropped ? { dropped: () => underTest.dropped?.() ?? 0 } : {}),
        ...(underTest.closeAndReopen
          ? { closeAndReopen: () => underTest.closeAndReopen?.() ?? Promise.reject(new Error("no closeAndReopen")) }
          : {}),
      };
      return context;
    },
  });
}
