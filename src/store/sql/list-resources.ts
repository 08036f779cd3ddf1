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
import { listGenerationColumn } from "./list-generation.js";
import type { RememberedPositions } from "../remembered-positions.js";
import { startIndexWalk, walkPage } from "./start-index-walk.js";
import { totalFromPage } from "./total-from-page.js";

/** The alias of `scimkit_resources` in list queries, which the filter compiler refers to. */
const RESOURCE = "r";

/**
 * The sort paths of a SQL store's list no update can change: a `startIndex` walk sorted by one
 * follows remembered positions (`startIndexWalk`).
 */
const IMMUTABLE_SORT_PATHS: ReadonlySet<string> = new Set(["id", "meta.created"]);

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

  const walk = startIndexWalk(request, positions, IMMUTABLE_SORT_PATHS);
  if (walk) {
    const walked = (on: Kysely<SqlStoreDatabase>): Promise<ListResult> =>
      walkPage(walk, {
        rows: (at) => paginate(matching(on).select(resourceColumns).select(listGenerationColumn(request)), at),
        count: () =>
          matching(on)
            .select((eb) => [eb.fn.countAll().as("total"), listGenerationColumn(request)])
            .executeTakeFirstOrThrow(),
        resources: (rows) => withMembers(on, rows),
      });
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
