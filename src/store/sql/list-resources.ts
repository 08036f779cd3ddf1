/**
 * `ResourceStore.list` in SQL (RFC 7644 §3.4.2, RFC 9865): the filter, the sort, index paging
 * (OFFSET/LIMIT), keyset paging behind cursors and `totalResults` all run in the database; the
 * page's members load in one query.
 */
import type { Kysely, SelectQueryBuilder } from "kysely";
import type { ListRequest, ListResult, StoredMember, StoredResource } from "../resource-store.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import { compileFilterSql } from "./filter/compile-filter-sql.js";
import { keysetAfterSql, orderBySql } from "./filter/sort-sql.js";
import { readMembers } from "./member-rows.js";
import { resourceColumns, storedResourceOf, type ResourceRow } from "./resource-row.js";
import type { ResourcesTable, SqlStoreDatabase } from "./sql-tables.js";
import { generationOf, listGenerationColumn, type WalkRow } from "./list-generation.js";
import type { RememberedPositions } from "../remembered-positions.js";
import { resourceView } from "../resource-view.js";
import { sortKeyOf } from "../../scim/list/sort-key.js";
import { formatPath } from "../../scim/schema/resolved-path.js";

/** The alias of `scimkit_resources` in list queries, which the filter compiler refers to. */
const RESOURCE = "r";

/**
 * The total a page tells by itself: a short page that starts at the beginning or holds at least
 * one row ends the list, so the total is its offset plus its length — no count query. `undefined`
 * when only counting can tell (a full page, or an empty page past the start).
 */
export function totalFromPage(page: ListRequest["page"], returned: number): number | undefined {
  if (returned >= page.count) return undefined;
  if (page.kind === "cursor") return page.after ? undefined : returned;
  const offset = Math.max(1, page.startIndex) - 1;
  return returned > 0 || offset === 0 ? offset + returned : undefined;
}

/**
 * The name of `request`'s list when its walks can follow remembered positions: no filter, and the
 * default order or one by `id` or `meta.created`, which no update can change — so only a create
 * or a delete, which move the list's generation, can shift what lies at an offset. A filtered or
 * otherwise sorted list pages by OFFSET (cursors, RFC 9865, page any list in constant time).
 */
function walkOf(request: ListRequest): string | undefined {
  if (request.filter !== undefined) return undefined;
  const { sort } = request;
  if (sort === undefined) return `${request.resourceType}\n`;
  const path = sort.path;
  const immutable =
    !path.extension && (path.attribute.name === "id" || (path.attribute.name === "meta" && path.subAttribute?.name === "created"));
  return immutable ? `${request.resourceType}\n${formatPath(path)}\n${sort.order}` : undefined;
}

/**
 * One page of `request` with its total. Without members this is one statement, plus a count
 * only when the page cannot tell the total (`totalFromPage`): an identity provider's
 * `userName eq` lookup is a single round trip. With members, the page, the total and the members
 * are read in one snapshot (`SqlDialect.readTransaction`) so they agree even while others write.
 * `hasMemberList` says which rows carry `members` when they are asked for.
 */
export async function listResources(
  db: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  request: ListRequest,
  hasMemberList: (row: ResourceRow) => boolean,
  positions?: RememberedPositions,
): Promise<ListResult> {
  const { filter, sort, page } = request;
  const context = { dialect, resource: RESOURCE } as const;
  const matching = (on: Kysely<SqlStoreDatabase>) => {
    const matches = on
      .selectFrom("scimkit_resources as r")
      .where("r.org_id", "=", request.orgId)
      .where("r.resource_type", "=", request.resourceType);
    return filter ? matches.where(compileFilterSql(filter, context)) : matches;
  };
  const count = async (on: Kysely<SqlStoreDatabase>): Promise<number> =>
    Number(
      (
        await matching(on)
          .select((eb) => eb.fn.countAll().as("total"))
          .executeTakeFirstOrThrow()
      ).total,
    );
  /** The rows of `query` at `at` in the list order: OFFSET for an index page, after the position for a cursor. */
  const paginate = <O>(
    query: SelectQueryBuilder<SqlStoreDatabase & { r: ResourcesTable }, "r", O>,
    at: ListRequest["page"],
  ): Promise<O[]> => {
    // The one list order (`compareListEntries`): the sort key, then the id; by id alone unsorted.
    for (const item of orderBySql(sort, context)) query = query.orderBy(item);
    if (at.kind === "index") {
      // RFC 7644 §3.4.2.4: startIndex is 1-based; the core clamps it, and so does this, cheaply.
      return query
        .limit(at.count)
        .offset(Math.max(1, at.startIndex) - 1)
        .execute();
    }
    // RFC 9865 cursors as keyset paging: a page depends on the position, not on what came before.
    if (at.after) query = query.where(keysetAfterSql(sort, at.after, context));
    return query.limit(at.count).execute();
  };
  const pageRows = (on: Kysely<SqlStoreDatabase>): Promise<ResourceRow[]> => paginate(matching(on).select(resourceColumns), page);
  /** `pageRows` with the list's generation beside each row, read in the same statement. */
  const walkRows = (on: Kysely<SqlStoreDatabase>, at: ListRequest["page"]): Promise<WalkRow[]> =>
    paginate(matching(on).select(resourceColumns).select(listGenerationColumn(request)), at);

  /** The page's members, when asked for, read with `on` (the page's snapshot). */
  const withMembers = async (on: Kysely<SqlStoreDatabase>, rows: readonly ResourceRow[]): Promise<StoredResource[]> => {
    const listed = request.members ? rows.filter(hasMemberList) : [];
    const members =
      listed.length === 0
        ? new Map<string, StoredMember[]>()
        : await readMembers(
            on,
            dialect,
            request.orgId,
            listed.map((row) => row.id),
          );
    return rows.map((row) =>
      request.members && hasMemberList(row) ? storedResourceOf(row, dialect, members.get(row.id) ?? []) : storedResourceOf(row, dialect),
    );
  };

  const walk = positions && page.kind === "index" && page.count > 0 ? walkOf(request) : undefined;
  if (positions && walk !== undefined && page.kind === "index") {
    // A page of a startIndex walk. Each statement reads the list's generation beside its rows, in
    // its own snapshot, so a remembered position is followed only where the rows prove it still
    // holds (rememberedPositions), and remembered only with the generation its rows were read at.
    const offset = Math.max(1, page.startIndex) - 1;
    const remember = async (
      on: Kysely<SqlStoreDatabase>,
      rows: readonly WalkRow[],
      generation: string | undefined,
      totalResults: number,
    ) => {
      const resources = await withMembers(on, rows);
      const last = resources[resources.length - 1];
      if (last && generation !== undefined) {
        const after = { key: sort ? sortKeyOf(resourceView(request.resourceType, last), sort.path) : null, id: last.id };
        positions.set(request.orgId, walk, offset + rows.length, { generation, after, total: totalResults });
      }
      return { totalResults, resources };
    };
    const walked = async (on: Kysely<SqlStoreDatabase>): Promise<ListResult> => {
      const known = offset === 0 ? undefined : positions.get(request.orgId, walk, offset);
      if (known) {
        const rows = await walkRows(on, { kind: "cursor", after: known.after, count: page.count });
        if (rows[0] && generationOf(rows[0]) === known.generation) return remember(on, rows, known.generation, known.total);
      }
      const rows = await walkRows(on, page);
      const generation = rows[0] ? generationOf(rows[0]) : undefined;
      const fromPage = totalFromPage(page, rows.length);
      if (fromPage !== undefined) return remember(on, rows, generation, fromPage);
      const counted = await matching(on)
        .select((eb) => [eb.fn.countAll().as("total"), listGenerationColumn(request)])
        .executeTakeFirstOrThrow();
      return remember(on, rows, generationOf(counted) === generation ? generation : undefined, Number(counted.total));
    };
    return request.members ? dialect.readTransaction(db, walked) : walked(db);
  }

  if (!request.members) {
    if (page.count <= 0) return { totalResults: request.countTotal === false ? -1 : await count(db), resources: [] };
    const rows = await pageRows(db);
    const totalResults = request.countTotal === false ? -1 : (totalFromPage(page, rows.length) ?? (await count(db)));
    return { totalResults, resources: rows.map((row) => storedResourceOf(row, dialect)) };
  }

  return dialect.readTransaction(db, async (trx) => {
    const totalResults = request.countTotal === false ? -1 : await count(trx);
    if (page.count <= 0) return { totalResults, resources: [] };
    return { totalResults, resources: await withMembers(trx, await pageRows(trx)) };
  });
}
