/**
 * Operation rows in SQL (`scimkit_operations`): an operation read from its row and written as one,
 * and what "unexpired" means in a query.
 */
import type { ExpressionBuilder, Kysely, Selectable } from "kysely";
import type { Operation, OperationStatus } from "../analytics-store.js";
import type { AnalyticsDatabase, OperationsTable } from "./analytics-tables.js";

/** Report rows per read of `readReportRows`, and most rows per insert of `appendReportRows`. */
export const REPORT_PAGE_ROWS = 1000;

/** The operation a row holds. */
export function operationOf(row: Selectable<OperationsTable>): Operation {
  return {
    id: row.id,
    kind: row.kind,
    orgId: row.org_id,
    subjectId: row.subject_id,
    status: row.status as OperationStatus,
    progress: { done: Number(row.progress_done), ...(row.progress_total === null ? {} : { total: Number(row.progress_total) }) },
    createdAt: row.created_at,
    ...(row.started_at === null ? {} : { startedAt: row.started_at }),
    ...(row.finished_at === null ? {} : { finishedAt: row.finished_at }),
    ...(row.error === null ? {} : { error: row.error }),
    ...(row.request_key === null ? {} : { requestKey: row.request_key }),
    ...(row.expires_at === null ? {} : { expiresAt: row.expires_at }),
    ...(row.owner_id === null ? {} : { ownerId: row.owner_id }),
    ...(row.heartbeat_at === null ? {} : { heartbeatAt: row.heartbeat_at }),
    ...(Number(row.attempts) === 0 ? {} : { attempts: Number(row.attempts) }),
  };
}

/** Stores `operation`; the primary key rejects an id that exists. */
export async function insertOperation(trx: Kysely<AnalyticsDatabase>, operation: Operation): Promise<void> {
  await trx
    .insertInto("scimkit_operations")
    .values({
      id: operation.id,
      org_id: operation.orgId,
      kind: operation.kind,
      subject_id: operation.subjectId,
      status: operation.status,
      progress_done: operation.progress.done,
      progress_total: operation.progress.total ?? null,
      created_at: operation.createdAt,
      started_at: operation.startedAt ?? null,
      finished_at: operation.finishedAt ?? null,
      error: operation.error ?? null,
      request_key: operation.requestKey ?? null,
      expires_at: operation.expiresAt ?? null,
      owner_id: operation.ownerId ?? null,
      heartbeat_at: operation.heartbeatAt ?? null,
      attempts: operation.attempts ?? 0,
    })
    .execute();
}

export type OperationsExpression = ExpressionBuilder<AnalyticsDatabase, "scimkit_operations">;

/** Unexpired at `now` (no expiry: kept). */
export function alive(eb: OperationsExpression, now: string) {
  return eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]);
}
