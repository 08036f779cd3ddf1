/**
 * Starting a bulk report: an `Operation` row, queued, answered 202 with its `Location`; the
 * background job (`runReportOperation`) does the work.
 */
import { v7 } from "uuid";
import type { AnalyticsCall } from "../analytics-call.js";
import type { AnalyticsDependencies } from "../analytics-dependencies.js";
import type { Operation } from "../analytics-store.js";
import { renderOperation } from "../render-resources.js";
import type { ReportKind } from "../report-kinds.js";
import { sendJson } from "../send-json.js";

/** Queues a report of `kind` on `subjectId` (of organization `orgId`) and answers 202. */
export async function startReport(
  dependencies: AnalyticsDependencies,
  call: AnalyticsCall,
  kind: ReportKind,
  subject: { readonly id: string; readonly orgId: string },
): Promise<void> {
  const operation: Operation = {
    id: v7(),
    kind: kind.kind,
    orgId: subject.orgId,
    subjectId: subject.id,
    status: "queued",
    progress: { done: 0 },
    createdAt: dependencies.now().toISOString(),
  };
  await dependencies.store.createOperation(operation);
  dependencies.startReport(operation);
  const body = renderOperation(operation, call.baseUrl);
  call.response.setHeader("Location", `${call.baseUrl}/operations/${operation.id}`);
  sendJson(call.response, 202, { operation: body });
}
