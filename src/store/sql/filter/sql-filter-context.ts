/**
 * Where compiled filter, sort and cursor SQL will run: the dialect and the alias the surrounding
 * query gives `scimkit_resources`.
 */
import type { FilterDialect } from "./filter-dialect.js";
import type { RowSource } from "./row-source.js";

/** Where the compiled condition will run. */
export interface SqlFilterContext {
  readonly dialect: FilterDialect;
  /** The alias of `scimkit_resources` in the surrounding query, e.g. `"r"`. */
  readonly resource: string;
  /**
   * Where paths are read when the row is not a `scimkit_resources` row (the table store's mapped
   * columns). Absent: the SQL store's own columns and JSON.
   */
  readonly source?: RowSource;
}

/** A context during one compilation: it also hands out the aliases of nested subqueries. */
export interface CompileScope extends SqlFilterContext {
  /**
   * A fresh alias (`r_e1`, `r_m2`) for a subquery's FROM item. Prefixed with the resource alias, so
   * two compilations for one query (a filter and an ORDER BY) never nest the same alias.
   */
  alias(prefix: string): string;
}

/** A scope for one call of a compiler. */
export function compileScope(context: SqlFilterContext): CompileScope {
  let next = 0;
  return {
    ...context,
    alias: (prefix) => {
      next += 1;
      return `${context.resource}_${prefix}${next}`;
    },
  };
}
