/**
 * The background job behind a bulk report: pages through the enrolments or recipients 1,000 at a
 * time into `appendReportRows`, recording progress after each page, so a report over 100,000
 * learners is never in memory at once and a poller sees it advance.
 */
import type { AnalyticsStore, Operation } from "./analytics-store.js";
import { reportKinds } from "./report-kinds.js";

/** Rows read from the store and appended per step. */
export const REPORT_PAGE_SIZE = 1000;

/** What the job needs. */
export interface ReportJob {
  readonly store: AnalyticsStore;
  /** The queued operation to carry out. */
  readonly operation: Operation;
  readonly now: () => Date;
  /** Hears why a job failed (the operation itself only says that it did). */
  readonly onError: (error: unknown) => void;
}

/** Shown to the client of a failed report; the cause, which may hold internals, goes to `onError`. */
const FAILURE_TEXT = "The report could not be built; the cause was reported to the service's operator. Request the report again.";

/**
 * Runs the job to the end. Never rejects: a failure marks the operation `failed`, and a failure
 * to record even that goes to `onError`.
 */
export async function runReportOperation(job: ReportJob): Promise<void> {
  const { store, operation, now } = job;
  try {
    const kind = reportKinds[operation.kind];
    if (kind === undefined) throw new Error(`analytics: no report of kind ${JSON.stringify(operation.kind)}`);
    // Figures as of the request, so `overdue` means what it meant when the report was asked for.
    const asOf = operation.createdAt;
    const total = await kind.total(store, operation.subjectId, asOf);
    const withTotal = (done: number): { done: number; total?: number } =>
      total === undefined ? { done } : { done, total: Math.max(total, done) };
    await store.updateOperation(operation.id, { status: "running", startedAt: now().toISOString(), progress: withTotal(0) });
    let done = 0;
    let after: string | undefined;
    for (;;) {
      const page = await kind.page(
        store,
        operation.subjectId,
        asOf,
        after === undefined ? { limit: REPORT_PAGE_SIZE } : { limit: REPORT_PAGE_SIZE, after },
      );
      if (page.items.length > 0) await store.appendReportRows(operation.id, page.items);
      done += page.items.length;
      if (page.next === undefined) break;
      after = page.next;
      await store.updateOperation(operation.id, { progress: withTotal(done) });
    }
    await store.updateOperation(operation.id, { status: "succeeded", finishedAt: now().toISOString(), progress: { done, total: done } });
  } catch (error) {
    job.onError(error);
    try {
      await store.updateOperation(operation.id, { status: "failed", finishedAt: now().toISOString(), error: FAILURE_TEXT });
    } catch (recording) {
      job.onError(recording);
    }
  }
}
