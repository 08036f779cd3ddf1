/**
 * The purge of expired operations in SQL: operations that expired at or before a time, with their
 * report rows, deleted in statements of a bounded number of rows each.
 */
import type { Kysely } from "kysely";
import type { AnalyticsDatabase } from "./analytics-tables.js";

/** `OperationStore.purgeExpiredOperations` over `db`: about `maxRows` rows and operations at most; how many went. */
export async function purgeExpiredOperations(db: Kysely<AnalyticsDatabase>, now: string, maxRows: number): Promise<number> {
  let deleted = 0;
  const expired = await db
    .selectFrom("scimkit_operations")
    .select("id")
    .where("expires_at", "<=", now)
    .orderBy("expires_at")
    .limit(Math.max(1, maxRows))
    .execute();
  for (const { id } of expired) {
    if (deleted >= maxRows) break;
    const budget = maxRows - deleted;
    // A slice of the rows by seq (the primary key's order): each statement deletes at most
    // `budget` rows, so the purge never holds a long write lock (SQLite) or a huge transaction.
    const first = await db
      .selectFrom("scimkit_report_rows")
      .select((eb) => eb.fn.min("seq").as("seq"))
      .where("operation_id", "=", id)
      .executeTakeFirst();
    if (first?.seq !== null && first?.seq !== undefined) {
      const rows = await db
        .deleteFrom("scimkit_report_rows")
        .where("operation_id", "=", id)
        .where("seq", "<", Number(first.seq) + budget)
        .executeTakeFirst();
      deleted += Number(rows.numDeletedRows);
      if (deleted >= maxRows) break;
    }
    // No rows left (the cascade would take any appended meanwhile).
    const operation = await db.deleteFrom("scimkit_operations").where("id", "=", id).where("expires_at", "<=", now).executeTakeFirst();
    deleted += Number(operation.numDeletedRows);
  }
  return deleted;
}
