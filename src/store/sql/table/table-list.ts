/**
 * `list` of the table store: the filter, sort and cursor compiled to SQL over the mapped columns
 * (`tableRowSource`) before any statement runs, a page of rows with their child rows and members
 * read in the page's snapshot.
 */
import { sql, type Kysely, type SqlBool } from "kysely";
import type { ListRequest, ListResult } from "../../resource-store.js";
import { compileFilterSql } from "../filter/compile-filter-sql.js";
import { keysetAfterSql, orderBySql } from "../filter/sort-sql.js";
import { totalFromPage } from "../list-resources.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { resourcesOf } from "./table-read.js";
import { ROW, selectRows, sourceFor } from "./table-sql.js";
import { withTranslatedErrors } from "../with-translated-errors.js";
import { servesOrg, type TableStoreState } from "./table-store-state.js";

/** `ResourceStore.list` over the state's tables. */
export async function listTable(state: TableStoreState, request: ListRequest): Promise<ListResult> {
  const { dialect, db } = state;
  const type = state.tables.get(request.resourceType);
  if (!type || !servesOrg(state, request.orgId)) return { totalResults: 0, resources: [] };
  const { filter, sort, page } = request;
  const context = { dialect, resource: ROW, source: sourceFor(state, type, request) } as const;
  // Compiled before any statement: a path the table does not keep is a 400 now, not a scan.
  const where = filter ? compileFilterSql(filter, context) : sql<SqlBool>`1 = 1`;
  const order = orderBySql(sort, context);
  const after = page.kind === "cursor" && page.after ? keysetAfterSql(sort, page.after, context) : sql<SqlBool>`1 = 1`;
  const read = async (on: Kysely<SqlStoreDatabase>): Promise<ListResult> => {
    const count = async (): Promise<number> => {
      const counted = await sql<{
        readonly total: unknown;
      }>`select count(*) as total from (${selectRows(state, type, request, where)}) as counted`.execute(on);
      return Number(counted.rows[0]?.total ?? 0);
    };
    if (page.count <= 0) return { totalResults: request.countTotal === false ? -1 : await count(), resources: [] };
    const offset = page.kind === "index" ? Math.max(1, page.startIndex) - 1 : 0;
    // Cast, because better-sqlite3 binds a number as a REAL, and SQLite then sorts the page without its
    // top-N shortcut: a `userName eq` took three times as long. The text stays one prepared statement.
    const tail = sql`order by ${sql.join(order)} limit cast(${sql.val(page.count)} as integer) offset cast(${sql.val(offset)} as integer)`;
    const rows = (await selectRows(state, type, request, sql<SqlBool>`${where} and ${after}`, tail).execute(on)).rows;
    const totalResults = request.countTotal === false ? -1 : (totalFromPage(page, rows.length) ?? (await count()));
    const resources = await resourcesOf(state, on, type, rows);
    if (!request.members || !type.members) return { totalResults, resources };
    const members = await type.members.read(
      on,
      resources.map((resource) => resource.id),
    );
    return { totalResults, resources: resources.map((resource) => ({ ...resource, members: members.get(resource.id) ?? [] })) };
  };
  // Child rows and members are read in the page's snapshot, so they agree with it even while
  // others write; a page of the table's own rows alone needs no transaction (as in the SQL store).
  const rowsOnly = type.children.length === 0 && !(request.members && type.members);
  return withTranslatedErrors(state.dialect, () => (rowsOnly ? read(db) : dialect.readTransaction(db, read)));
}
