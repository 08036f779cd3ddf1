/**
 * Report operations and their rows in SQL (`scimkit_operations`, `scimkit_report_rows`). Rows
 * are appended in numbered order and read back a page at a time by that number, so a report of
 * 100,000 learners is written and streamed without ever being held whole.
 */
import type { Kysely } from "kysely";
import type { SqlDialect } from "scimkit/sql";
import type { OperationStore, ReportRow } from "../analytics-store.js";
import type { AnalyticsDatabase } from "./analytics-tables.js";
import { insertOperation, operationOf, REPORT_PAGE_ROWS } from "./operation-rows.js";
import { reportJobQueries } from "./report-job-queries.js";
import { scopeOrgIds } from "./scope-org-ids.js";

/** The `OperationStore` over `db`: operations stored and read here, their jobs in `reportJobQueries`. */
export function operationQueries(db: Kysely<AnalyticsDatabase>, dialect: SqlDialect): OperationStore {
  return {
    async createOperation(operation) {
      await insertOperation(db, operation);
    },

    async getOperation(scope, id) {
      const ids = scopeOrgIds(scope);
      if (ids?.length === 0) return undefined;
      let query = db.selectFrom("scimkit_operations").selectAll().where("id", "=", id);
      if (ids !== undefined) query = query.where("org_id", "in", ids);
      const row = await query.executeTakeFirst();
      return row ? operationOf(row) : undefined;
    },

    ...reportJobQueries(db, dialect),

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
