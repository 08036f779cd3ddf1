/**
 * How the analytics router keeps bulk reports bounded and alive (issue 19): how long an
 * operation lives, when an identical request is given the same operation, how many reports an
 * organization may have, and the lease under which a worker runs a job so another host can take
 * over one whose host died. The router option `reports`; every member has a default.
 */

/** The router option `reports`. */
export interface ReportOptions {
  /**
   * How long an operation and its report rows live, from the request, in milliseconds. After it
   * the operation answers 404 and a background purge deletes it. Default 24 hours.
   */
  readonly ttlMs?: number;
  /**
   * How long a succeeded report answers identical requests (same caller scope, kind, subject
   * and filters) instead of a new one being built, in milliseconds; 0 reuses only reports still
   * queued or running. Default 5 minutes: long enough that a client looping, retrying or
   * double-clicking gets one operation, short enough that a person who changed something and
   * asks again soon sees the change. A report's figures are as of its request, and its
   * `createdAt` says when that was.
   */
  readonly freshnessMs?: number;
  /** Most queued + running reports of one organization; beyond it starting one is 429. Default 4. */
  readonly maxActivePerOrganization?: number;
  /**
   * Most report rows one organization may keep (the rows of its unexpired operations, running
   * ones included); beyond it starting a report is 429 until the oldest expire. Default 500,000:
   * five reports of a 100,000-learner organization.
   */
  readonly maxStoredRowsPerOrganization?: number;
  /**
   * How long a worker's claim on a job holds without a heartbeat, in milliseconds: a job whose
   * heartbeat is older is taken over by any host's poller and rebuilt from zero. Default 30 s.
   */
  readonly leaseMs?: number;
  /** How often a running job renews its claim, in milliseconds; well under `leaseMs`. Default a third of it. */
  readonly heartbeatMs?: number;
  /** How often the poller looks for queued jobs and jobs whose lease ran out, in milliseconds. Default 5 s. */
  readonly pollMs?: number;
  /** Most report jobs this process runs at once; 0 runs none (a host that only answers requests). Default 2. */
  readonly concurrency?: number;
  /** How often the purge of expired operations runs, in milliseconds. Default 1 minute. */
  readonly purgeMs?: number;
  /** Most rows (and operations) one purge step deletes before yielding to requests. Default 1,000. */
  readonly purgeBatch?: number;
  /** Names this worker in claims: unique per process. Default a random UUID. */
  readonly workerId?: string;
}

/** `ReportOptions` with every default applied. */
export type ResolvedReportOptions = Required<ReportOptions>;

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** The defaults, documented on each option. */
export const defaultReportOptions: Omit<ResolvedReportOptions, "workerId" | "heartbeatMs"> = {
  ttlMs: 24 * 60 * MINUTE,
  freshnessMs: 5 * MINUTE,
  maxActivePerOrganization: 4,
  maxStoredRowsPerOrganization: 500_000,
  leaseMs: 30 * SECOND,
  pollMs: 5 * SECOND,
  concurrency: 2,
  purgeMs: MINUTE,
  purgeBatch: 1000,
};

function atLeast(name: string, value: number, minimum: number): number {
  if (!Number.isFinite(value) || value < minimum)
    throw new Error(`scimkit analytics: reports.${name} must be a number of at least ${String(minimum)}; got ${String(value)}.`);
  return value;
}

/** Applies the defaults and refuses values that would break the lifecycle (a heartbeat slower than the lease, say). */
export function resolveReportOptions(options: ReportOptions, newWorkerId: () => string): ResolvedReportOptions {
  const leaseMs = atLeast("leaseMs", options.leaseMs ?? defaultReportOptions.leaseMs, 1);
  const heartbeatMs = atLeast("heartbeatMs", options.heartbeatMs ?? Math.max(1, Math.floor(leaseMs / 3)), 1);
  if (heartbeatMs >= leaseMs)
    throw new Error(
      `scimkit analytics: reports.heartbeatMs (${heartbeatMs}) must be below reports.leaseMs (${leaseMs}), or every job looks dead.`,
    );
  return {
    ttlMs: atLeast("ttlMs", options.ttlMs ?? defaultReportOptions.ttlMs, 1),
    freshnessMs: atLeast("freshnessMs", options.freshnessMs ?? defaultReportOptions.freshnessMs, 0),
    maxActivePerOrganization: atLeast(
      "maxActivePerOrganization",
      options.maxActivePerOrganization ?? defaultReportOptions.maxActivePerOrganization,
      1,
    ),
    maxStoredRowsPerOrganization: atLeast(
      "maxStoredRowsPerOrganization",
      options.maxStoredRowsPerOrganization ?? defaultReportOptions.maxStoredRowsPerOrganization,
      1,
    ),
    leaseMs,
    heartbeatMs,
    pollMs: atLeast("pollMs", options.pollMs ?? defaultReportOptions.pollMs, 1),
    concurrency: Math.floor(atLeast("concurrency", options.concurrency ?? defaultReportOptions.concurrency, 0)),
    purgeMs: atLeast("purgeMs", options.purgeMs ?? defaultReportOptions.purgeMs, 1),
    purgeBatch: Math.floor(atLeast("purgeBatch", options.purgeBatch ?? defaultReportOptions.purgeBatch, 1)),
    workerId: options.workerId ?? newWorkerId(),
  };
}
