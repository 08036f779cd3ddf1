/**
 * Report operations and their rows in SQL (`scimkit_operations`, `scimkit_report_rows`). Rows
 * are appended in numbered order and read back a page at a time by that number, so a report of
 * 100,000 learners is written and streamed without ever being held whole.
 */
import type { Kysely, Selectable, Updateable } from "kysely";
import type { SqlDialect } from "scimkit/sql";
import { analyticsWriteTransaction } from "./analytics-write-transaction.js";
import { withRowLock } from "./with-row-lock.js";
import type { AnalyticsDatabase, OperationsTable } from "./analytics-tables.js";
import type { AnalyticsStore, Operation, OperationStatus, ReportRow } from "../analytics-store.js";
import { scopeOrgIds } from "./scope-org-ids.js";

/** Report rows per read of `readReportRows`, and most rows per insert of `appendReportRows`. */
export const REPORT_PAGE_ROWS = 1000;

function operationOf(row: Selectable<OperationsTable>): Operation {
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
  };
}

/** The operation members of `AnalyticsStore` over `db`. */
export function operationQueries(
  db: Kysely<AnalyticsDatabase>,
  dialect: SqlDialect,
): Pick<AnalyticsStore, "createOperation" | "getOperation" | "updateOperation" | "appendReportRows" | "readReportRows"> {
  return {
    async createOperation(operation) {
      await db
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
        })
        .execute();
    },

    async getOperation(scope, id) {
      const ids = scopeOrgIds(scope);
      if (ids?.length === 0) return undefined;
      let query = db.selectFrom("scimkit_operations").selectAll().where("id", "=", id);
      if (ids !== undefined) query = query.where("org_id", "in", ids);
      const row = await query.executeTakeFirst();
      return row ? operationOf(row) : undefined;
    },

    async updateOperation(id, update) {
      const change: Updateable<OperationsTable> = {
        ...(update.status === undefined ? {} : { status: update.status }),
        // The progress is one value: a new one without a total has none (yet).
        ...(update.progress === undefined ? {} : { progress_done: update.progress.done, progress_total: update.progress.total ?? null }),
        ...(update.startedAt === undefined ? {} : { started_at: update.startedAt }),
        ...(update.finishedAt === undefined ? {} : { finished_at: update.finishedAt }),
        ...(update.error === undefined ? {} : { error: update.error }),
      };
      if (Object.keys(change).length === 0) return;
      await db.updateTable("scimkit_operations").set(change).where("id", "=", id).execute();
    },

    async appendReportRows(operationId, rows) {
      if (rows.length === 0) return;
      await analyticsWriteTransaction(db, dialect, async (trx) => {
        // The operation's lock orders appends: each numbers its rows after the last one committed.
        const operation = await withRowLock(
          trx.selectFrom("scimkit_operations").select("id").where("id", "=", operationId),
          dialect,
          "update",
        ).executeTakeFirst();
        // Gone with its organization while the report ran: its rows have nowhere to go.
        if (!operation) return;
        const last = await trx
          .selectFrom("scimkit_report_rows")
          .select((eb) => eb.fn.max("seq").as("seq"))
          .where("operation_id", "=", operationId)
          .executeTakeFirst();
        let seq = Number(last?.seq ?? 0);
        // Three parameters a row; a statement stays under the dialect's limit and a page's size.
        const size = Math.max(1, Math.min(REPORT_PAGE_ROWS, Math.floor(dialect.maxParameters / 3)));
        for (let start = 0; start < rows.length; start += size) {
          const chunk = rows.slice(start, start + size);
          await trx
            .insertInto("scimkit_report_rows")
            // JSON text in the row's own key order: the keys are the CSV columns.
            .values(chunk.map((row) => ({ operation_id: operationId, seq: ++seq, row: JSON.stringify(row) })))
            .execute();
        }
      });
    },

    async *readReportRows(operationId) {
      let after = 0;
      for (;;) {
        // Keyset by seq over the primary key: each page is one index range, however deep.
        const page = await db
          .selectFrom("scimkit_report_rows")
          .select(["seq", "row"])
          .where("operation_id", "=", operationId)
          .where("seq", ">", after)
          .orderBy("seq")
          .limit(REPORT_PAGE_ROWS)
          .execute();
        const last = page[page.length - 1];
        if (last === undefined) return;
        yield page.map((entry) => JSON.parse(entry.row) as ReportRow);
        if (page.length < REPORT_PAGE_ROWS) return;
        after = Number(last.seq);
      }
    },
  };
}
