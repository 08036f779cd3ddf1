/**
 * Applying a dialect's row lock (`SqlDialect.rowLock`) to a query.
 */
import type { SelectQueryBuilder } from "kysely";
import type { RowLock, SqlDialect } from "./dialects/sql-dialect.js";

/**
 * `query` with the dialect's lock clause for `lock` appended, or unchanged where the dialect needs
 * none. Only meaningful inside `SqlDialect.writeTransaction`, where the lock lasts until commit.
 *
 * @example lockRows(trx.selectFrom("scimkit_resources as r").selectAll(), dialect, "update")
 */
export function lockRows<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  dialect: SqlDialect,
  lock: RowLock,
): SelectQueryBuilder<DB, TB, O> {
  const clause = dialect.rowLock(lock);
  return clause ? query.modifyEnd(clause) : query;
}
