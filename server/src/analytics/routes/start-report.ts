/**
 * Starting a bulk report (issue 19: bounded): an identical request (same caller scope, kind,
 * subject and filters) while one is queued or running is given that operation, 202 with its
 * `Location`; one that succeeded within the freshness window, 200 with it; an organization at its
 * bound of reports at once or of rows kept is refused, 429 with `Retry-After`; otherwise a new
 * operation, queued, 202 with its `Location`, and the background job (`runReportOperation`, under
 * a worker's claim) does the work.
 */
import { v7 } from "uuid";
import type { AnalyticsCall } from "../analytics-call.js";
import type { AnalyticsDependencies } from "../analytics-dependencies.js";
import { reportLimit } from "../analytics-problem.js";
import { markRepeatedRequest } from "../analytics-write-auditor.js";
import type { Operation, ReportStart } from "../analytics-store.js";
import { renderOperation } from "../render-resources.js";
import type { ReportKind } from "../report-kinds.js";
import { reportRequestKey } from "../report-request-key.js";
import { sendJson } from "../send-json.js";

/**
 * `Retry-After` when the organization has as many reports running as it may: long enough for a
 * typical report (thousands of rows a second) to finish, short enough that a person waiting
 * is not kept waiting much longer than the report takes.
 */
export const REPORT_BUSY_RETRY_SECONDS = 10;

function hours(milliseconds: number): string {
  const value = milliseconds / 3_600_000;
  return `${Number.isInteger(value) ? value : value.toFixed(2)} hour${value === 1 ? "" : "s"}`;
}

/** The 429 of a refused start: which bound, when to retry, and what else the person can do. */
function refusal(
  dependencies: AnalyticsDependencies,
  orgId: string,
  start: Extract<ReportStart, { outcome: "refused" }>,
  now: Date,
): never {
  const { reports } = dependencies;
  if (start.bound === "active") {
    throw reportLimit(
      `Organization ${JSON.stringify(orgId)} already has ${reports.maxActivePerOrganization} reports queued or running, the most it may have at once. Wait for one of them to finish (poll its operation), then request this report again; retry in ${REPORT_BUSY_RETRY_SECONDS} seconds.`,
      REPORT_BUSY_RETRY_SECONDS,
    );
  }
  const retryAt = start.retryAt === undefined ? now.getTime() + reports.ttlMs : Date.parse(start.retryAt);
  const seconds = Math.max(1, Math.ceil((retryAt - now.getTime()) / 1000));
  throw reportLimit(
    `Organization ${JSON.stringify(orgId)} keeps ${reports.maxStoredRowsPerOrganization} report rows, the most it may keep. Reports expire ${hours(reports.ttlMs)} after they were requested${
      start.retryAt === undefined ? "" : `; the next expires at ${start.retryAt}`
    }: download the reports you have, and request this one again in ${seconds} seconds, or ask the service's operator to raise the bound.`,
    seconds,
  );
}

/** Starts (or reuses) a report of `kind` on `subjectId` (of organization `orgId`) and answers 202, 200 or 429. */
export async function startReport(
  dependencies: AnalyticsDependencies,
  call: AnalyticsCall,
  kind: ReportKind,
  subject: { readonly id: string; readonly orgId: string },
): Promise<void> {
  const now = dependencies.now();
  const { reports } = dependencies;
  const operation: Operation = {
    id: v7(),
    kind: kind.kind,
    orgId: subject.orgId,
    subjectId: subject.id,
    status: "queued",
    progress: { done: 0 },
    createdAt: now.toISOString(),
    requestKey: reportRequestKey(call.scope, kind.kind, subject.id, call.query),
    expiresAt: new Date(now.getTime() + reports.ttlMs).toISOString(),
  };
  const start = await dependencies.store.startOperation(operation, {
    now: now.toISOString(),
    freshSince: new Date(now.getTime() - reports.freshnessMs).toISOString(),
    maxActive: reports.maxActivePerOrganization,
    maxStoredRows: reports.maxStoredRowsPerOrganization,
  });
  if (start.outcome === "refused") refusal(dependencies, subject.orgId, start, now);
  if (start.outcome === "created") dependencies.startReport(start.operation);
  // Audited once, as the operation is made once: the repeats of an identical request are not.
  else markRepeatedRequest(call.response);
  const body = renderOperation(start.operation, call.baseUrl);
  call.response.setHeader("Location", `${call.baseUrl}/operations/${start.operation.id}`);
  // RFC 9110 §15.3.3: 202 while the report is still being built (a new one, or an identical
  // request's); §15.3.1: 200 when the identical request's report is done — the body is its
  // operation, whose `links.result` downloads it at once.
  sendJson(call.response, start.operation.status === "succeeded" ? 200 : 202, { operation: body });
}
