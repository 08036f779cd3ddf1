/**
 * Where the SCIM paths of a filter, a sort or a cursor are read (architecture §6.4): the SQL store
 * reads them from its own `scimkit_resources` row (`resource-candidates.ts`), the table store from
 * the application's own columns (`src/store/sql/table/`). The compilers decide every semantic
 * question once; a source only says which SQL holds a path's values.
 */
import type { Expression } from "kysely";
import type { FilterValue } from "../../../scim/filter/filter-ast.js";
import type { ResolvedPath } from "../../../scim/schema/resolved-path.js";
import type { SortKeySql } from "./sort-sql.js";
import type { SqlCandidates } from "./sql-candidates.js";
import type { Condition } from "./sql-condition.js";
import type { CompileScope } from "./sql-filter-context.js";

/** The SQL a compiler reads a row's SCIM paths from, when the row is not the SQL store's own. */
export interface RowSource {
  /**
   * The values `path` denotes in the row (`matchesFilter`'s `readFromResource`), sub-attribute
   * included. May throw a `ScimError` 400 `invalidFilter` for a path the row cannot answer
   * exactly, naming the attribute: a wrong answer or a silent scan is never acceptable.
   */
  candidates(path: ResolvedPath, scope: CompileScope): SqlCandidates;
  /**
   * `path eq value` answered through an index, or through a column's own conversion, where that
   * gives exactly the answer `candidates` would; undefined to compare the candidates instead.
   */
  indexed(path: ResolvedPath, value: Exclude<FilterValue, null>, scope: CompileScope): Condition | undefined;
  /**
   * `sortKeyOf(resourceView(type, row), path)` as SQL before the code-point ordering the compiler
   * adds, or undefined when it is null for every row. May throw like `candidates`.
   */
  sortKey(path: ResolvedPath, scope: CompileScope): SortKeySql | undefined;
  /** The row's service id as SQL text, the tie-breaker of the list order (`compareListEntries`). */
  id(scope: CompileScope): Expression<unknown>;
}
