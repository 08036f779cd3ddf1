/**
 * A SCIM filter as a condition on `scimkit_resources` rows, for clients that read resources where
 * they are in queries of their own (the service's analytics lists learners by `active` and
 * `department` across organizations, joined to its own tables) instead of through `ResourceStore`,
 * which answers one organization and one resource type at a time. The same compiler the store's
 * list uses, so such a query selects exactly what `?filter=` would.
 */
import { sql, type Expression, type SqlBool } from "kysely";
import type { Filter } from "../../scim/filter/filter-ast.js";
import type { ResolvedPath } from "../../scim/schema/resolved-path.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import { compileFilterSql } from "./filter/compile-filter-sql.js";

/**
 * True exactly for the rows of the table aliased `alias` whose resource `filter` matches (as
 * `matchesFilter` would on its SCIM view), never NULL, so it can be negated, selected or summed.
 * `filter` is bound to the resource type's schema (`compileFilter` of `scimkit/core`); the caller
 * restricts `resource_type` to that type. SQLite connections need `registerSqliteFunctions`, which
 * the store's own connections have.
 *
 * @example
 * const inactive = compileFilter(userSchema, "active eq false");
 * db.selectFrom("scimkit_resources as r").select("r.id").where("r.resource_type", "=", "User")
 *   .where(resourceFilterSql(inactive.value, dialect, "r"))
 */
export function resourceFilterSql(filter: Filter<ResolvedPath>, dialect: SqlDialect, alias: string): Expression<SqlBool> {
  // compileFilterSql may leave NULL where the filter does not match (a missing attribute).
  return sql<SqlBool>`(${compileFilterSql(filter, { dialect, resource: alias })}) is true`;
}
