/**
 * `list` of the table store: the filter, sort and cursor compiled to SQL over the mapped columns
 * (`tableRowSource`) before any statement runs, a page of rows with their child rows and members
 * read in the page's snapshot. Where the application's triggers keep the list's generation
 * (`tableStoreTriggersSql`), a sequential `startIndex` walk reads each page after the position
 * the previous one ended at (`walkPage`) instead of skipping OFFSET rows.
 */
import { sql, type Kysely, type RawBuilder, type SqlBool } from "kysely";
import type { ListRequest, ListResult, StoredResource } from "../../resource-store.js";
import { compileFilterSql } from "../filter/compile-filter-sql.js";
import { keysetAfterSql, orderBySql } from "../filter/sort-sql.js";
import { listGenerationColumn, type GenerationRow } from "../list-generation.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { startIndexWalk, walkPage } from "../start-index-walk.js";
import { totalFromPage } from "../total-from-page.js";
import { resourcesOf } from "./table-read.js";
import { TABLE_GENERATIONS } from "./table-side-tables.js";
import { ROW, type Row, selectRows, sourceFor } from "./table-sql.js";
import { withTranslatedErrors } from "../with-translated-errors.js";
import { servesOrg, type TableStoreState } from "./table-store-state.js";

/**
 * The sort paths a walk may follow positions in: `id` only. The application may update its own
 * creation column, so `meta.created` (immutable in the SQL store) can reorder a list here without
 * moving its generation.
 */
const IMMUTABLE_SORT_PATHS: ReadonlySet<string> = new Set(["id"]);

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
  /** The rows at `at` in the list order, with `columns` (`, …`): OFFSET for an index page, after the position for a cursor. */
  const rowsAt = (at: ListRequest["page"], columns?: RawBuilder<unknown>): RawBuilder<Row> => {
    const after = at.kind === "cursor" && at.after ? keysetAfterSql(sort, at.after, context) : sql<SqlBool>`1 = 1`;
    // Cast, because better-sqlite3 binds a number as a REAL, and SQLite then sorts the page without its
    // top-N shortcut: a `userName eq` took three times as long. The text stays one prepared statement.
    const skip = at.kind === "index" ? sql` offset cast(${sql.val(Math.max(1, at.startIndex) - 1)} as integer)` : sql``;
    const tail = sql`order by ${sql.join(order)} limit cast(${sql.val(at.count)} as integer)${skip}`;
    return selectRows(state, type, request, sql<SqlBool>`${where} and ${after}`, tail, columns);
  };
  /** `count(*)` of the matching rows as `total`, with `columns` (`, …`) read in the same statement. */
  const countRow = async <R extends object>(on: Kysely<SqlStoreDatabase>, columns: RawBuilder<unknown>) => {
    const counted = await sql<
      R & {
        readonly total: unknown;
      }
    >`select count(*) as total${columns} from (${selectRows(state, type, request, where)}) as counted`.execute(on);
    const [row] = counted.rows;
    if (!row) throw new Error("tableStore: count(*) returned no row");
    return row;
  };
  /** The resources of `rows`, with their members when asked for, read with `on` (the page's snapshot). */
  const resources = async (on: Kysely<SqlStoreDatabase>, rows: readonly Row[]): Promise<StoredResource[]> => {
    const found = await resourcesOf(state, on, type, rows);
    if (!request.members || !type.members) return found;
    const members = await type.members.read(
      on,
      found.map((resource) => resource.id),
    );
    return found.map((resource) => ({ ...resource, members: members.get(resource.id) ?? [] }));
  };
  // Only a type whose table has the triggers: without them the application's own inserts and
  // deletes would shift the rows under a remembered position unseen.
  const walk = state.generations.has(type.resourceType) ? startIndexWalk(request, state.positions, IMMUTABLE_SORT_PATHS) : undefined;
  const generation = sql`, ${listGenerationColumn(request, TABLE_GENERATIONS)}`;
  const read = async (on: Kysely<SqlStoreDatabase>): Promise<ListResult> => {
    if (walk) {
      return walkPage(walk, {
        rows: async (at) => (await rowsAt(at, generation).$castTo<Row & GenerationRow>().execute(on)).rows,
        count: () => countRow<GenerationRow>(on, generation),
        resources: (rows) => resources(on, rows),
      });
    }
    const count = async (): Promise<number> => Number((await countRow(on, sql``)).total);
    if (page.count <= 0) return { totalResults: request.countTotal === false ? -1 : await count(), resources: [] };
    const rows = (await rowsAt(page).execute(on)).rows;
    const totalResults = request.countTotal === false ? -1 : (totalFromPage(page, rows.length) ?? (await count()));
    return { totalResults, resources: await resources(on, rows) };
  };
  // Child rows and members are read in the page's snapshot, so they agree with it even while
  // others write; a page of the table's own rows alone needs no transaction (as in the SQL store).
  const rowsOnly = type.children.length === 0 && !(request.members && type.members);
  return withTranslatedErrors(state.dialect, () => (rowsOnly ? read(db) : dialect.readTransaction(db, read)));
}
