/**
 * SQL compilation of resolved SCIM filters, sorts and cursor positions for the SQL store (and for
 * any SQL adapter with the same tables): `compileFilterSql`, `orderBySql`, `keysetAfterSql`, and
 * the per-database hooks they use.
 */
export { compileFilterSql, type SqlFilterContext } from "./compile-filter-sql.js";
export type { FilterDialect, JsonElements, SubstringOperator } from "./filter-dialect.js";
export type { JsonBase, JsonRef } from "./json-ref.js";
export { createPostgresFilterDialect, postgresFilterDialect, type PostgresFilterDialectOptions } from "./postgres-filter-dialect.js";
export { mysqlFilterDialect } from "./mysql-filter-dialect.js";
export { registerSqliteFunctions, SQLITE_LOWER_FUNCTION, type SqliteFunctionHost } from "./register-sqlite-functions.js";
export { keysetAfterSql, orderBySql, sortKeySql, type SortKeySql } from "./sort-sql.js";
export {
  createSqliteFilterDialect,
  ftsPhrase,
  SQLITE_EMAILS_SEARCH,
  sqliteFilterDialect,
  type SqliteFilterDialectOptions,
} from "./sqlite-filter-dialect.js";
