/**
 * The store's write transaction with the analytics tables in view. `SqlDialect` types its
 * transactions over the SCIM tables (`SqlStoreDatabase`); the analytics tables live in the same
 * database, so the same transaction serves both, typed for the analytics queries.
 */
import type { Kysely } from "kysely";
import type { SqlDialect, SqlStoreDatabase } from "scimkit/sql";
import type { AnalyticsDatabase, AnalyticsTables } from "./analytics-tables.js";

/**
 * Runs `work` in `dialect.writeTransaction` on `db`, handing it the transaction with the analytics
 * tables in view, and the same transaction as the SCIM store's functions take it
 * (`deleteScimOrganizationRows`).
 *
 * @example await analyticsWriteTransaction(db, dialect, (trx) => trx.deleteFrom("scimkit_campaigns").where("id", "=", id).execute())
 */
export function analyticsWriteTransaction<T>(
  db: Kysely<AnalyticsDatabase>,
  dialect: SqlDialect,
  work: (trx: Kysely<AnalyticsDatabase>, scim: Kysely<SqlStoreDatabase>) => Promise<T>,
): Promise<T> {
  // Only the view narrows: the same Kysely instance over the same database, SCIM tables included.
  const scim = db as unknown as Kysely<SqlStoreDatabase>;
  return dialect.writeTransaction(scim, (trx) => work(trx.withTables<AnalyticsTables>(), trx));
}
