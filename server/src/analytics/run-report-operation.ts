/**
 * The background job behind a bulk report: pages through the enrolments or recipients 1,000 at a
 * time into `appendReportRows`, recording progress after each page, so a report over 100,000
 * learners is never in memory at once and a poller sees it advance. It runs under a worker's
 * claim (`claimOperation`): every write is fenced by the owner, so a job whose claim was taken
 * over stops at its next write and never adds a row to the new owner's report.
 */
import { isScimError } from "scimkit/core";
import type { AnalyticsStore, Operation } from "./analytics-store.js";
import { reportKinds } from "./report-kinds.js";

/** Rows read from the store and appended per step. */
export const REPORT_PAGE_SIZE = 1000;

/** Claims after which a job that keeps dying with its host is failed rather than tried again. */
export const MAX_REPORT_ATTEMPTS = 3;

/** What the job needs. */
export interface ReportJob {
  readonly store: AnalyticsStore;
  /** The claimed operation to carry out; its `ownerId` fences every write. */
  readonly operation: Operation;
  readonly now: () => Date;
  /** Hears why a job failed (the operation itself only says that it did). */
  readonly onError: (error: unknown) => void;
  /** True once the job should stop between pages: its worker is closing or lost the claim. */
  readonly stopping?: () => boolean;
}

/**
 * How a job ended: `done` (succeeded or failed, recorded), `stopped` (asked to), `lost` (its claim
 * went to another worker), `interrupted` (the database could not be reached: to be tried again).
 */
export type ReportJobOutcome = "done" | "stopped" | "lost" | "interrupted";

/** Shown to the client of a failed report; the cause, which may hold internals, goes to `onError`. */
const FAILURE_TEXT = "The report could not be built; the cause was reported to the service's operator. Request the report again.";
const INTERRUPTED_TEXT = `The report was interrupted ${MAX_REPORT_ATTEMPTS} times (its host stopped while building it); request the report again, and tell the service's operator if it recurs.`;

/** Thrown inside the job when a fenced write finds the claim gone. */
class ClaimLost extends Error {}

/**
 * Runs the job to the end, or until asked to stop or its claim is lost. Never rejects: a failure
 * marks the operation `failed`, and a failure to record even that goes to `onError`.
 */
export async function runReportOperation(job: ReportJob): Promise<ReportJobOutcome> {
  const { store, operation, now } = job;
  const owner = operation.ownerId;
  const stopping = job.stopping ?? (() => false);
  const update = async (change: Parameters<AnalyticsStore["updateOperation"]>[1]): Promise<void> => {
    if (!(await store.updateOperation(operation.id, change, owner))) throw new ClaimLost();
  };
  try {
    if ((operation.attempts ?? 1) > MAX_REPORT_ATTEMPTS) {
      await update({ status: "failed", finishedAt: now().toISOString(), error: INTERRUPTED_TEXT });
      return "done";
    }
    const kind = reportKinds[operation.kind];
    if (kind === undefined) throw new Error(`analytics: no report of kind ${JSON.stringify(operation.kind)}`);
    // Figures as of the request, so `overdue` means what it meant when the report was asked for —
    // also when another host rebuilds it after a takeover.
    const asOf = operation.createdAt;
    const total = await kind.total(store, operation.subjectId, asOf);
    const withTotal = (done: number): { done: number; total?: number } =>
      total === undefined ? { done } : { done, total: Math.max(total, done) };
    await update({ status: "running", startedAt: now().toISOString(), progress: withTotal(0) });
    let done = 0;
    let after: string | undefined;
    for (;;) {
      if (stopping()) return "stopped";
      const page = await kind.page(
        store,
        operation.subjectId,
        asOf,
        after === undefined ? { limit: REPORT_PAGE_SIZE } : { limit: REPORT_PAGE_SIZE, after },
      );
      if (page.items.length > 0 && !(await store.appendReportRows(operation.id, page.items, owner))) throw new ClaimLost();
      done += page.items.length;
      if (page.next === undefined) break;
      after = page.next;
      await update({ progress: withTotal(done) });
    }
    await update({ status: "succeeded", finishedAt: now().toISOString(), progress: { done, total: done } });
    return "done";
  } catch (error) {
    if (error instanceof ClaimLost) return "lost";
    // An outage (the store's 503) is no fault of the report: it is given up and built again later.
    if (isScimError(error) && error.status === 503) return "interrupted";
    job.onError(error);
    try {
      if (!(await store.updateOperation(operation.id, { status: "failed", finishedAt: now().toISOString(), error: FAILURE_TEXT }, owner)))
        return "lost";
    } catch (recording) {
      job.onError(recording);
    }
    return "done";
  }
}
