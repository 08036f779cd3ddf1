/**
 * Locking the rows a query reads until the write transaction commits, with the clause the store's
 * dialect gives (`SqlDialect.rowLock`: `for update` on PostgreSQL, none on SQLite, whose write
 * transaction already holds the database).
 */
import type { SelectQueryBuilder } from "kysely";
import type { RowLock, SqlDialect } from "scimkit/sql";

/**
 * `query` with `dialect`'s clause for `lock` appended, or unchanged where the dialect needs none.
 *
 * @example await withRowLock(trx.selectFrom("scimkit_organizations").selectAll().where("id", "=", id), dialect, "update").executeTakeFirst()
 */
export function withRowLock<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  dialect: SqlDialect,
  lock: RowLock,
): SelectQueryBuilder<DB, TB, O> {
  const clause = dialect.rowLock(lock);
  return clause ? query.modifyEnd(clause) : query;
}
