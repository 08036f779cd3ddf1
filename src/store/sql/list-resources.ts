/**
 * `ResourceStore.list` in SQL (RFC 7644 §3.4.2, RFC 9865): the filter, the sort, index paging
 * (OFFSET/LIMIT), keyset paging behind cursors and `totalResults` all run in the database; the
 * page's members load in one query.
 */
import type { Kysely } from "kysely";
import type { ListRequest, ListResult, StoredMember, StoredResource } from "../resource-store.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import { compileFilterSql } from "./filter/compile-filter-sql.js";
import { keysetAfterSql, orderBySql } from "./filter/sort-sql.js";
import { readMembers } from "./member-rows.js";
import { resourceColumns, storedResourceOf, type ResourceRow } from "./resource-row.js";
import type { SqlStoreDatabase } from "./sql-tables.js";

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
  const pageRows = (on: Kysely<SqlStoreDatabase>): Promise<ResourceRow[]> => {
    let query = matching(on).select(resourceColumns);
    // The one list order (`compareListEntries`): the sort key, then the id; by id alone unsorted.
    for (const item of orderBySql(sort, context)) query = query.orderBy(item);
    if (page.kind === "index") {
      // RFC 7644 §3.4.2.4: startIndex is 1-based; the core clamps it, and so does this, cheaply.
      return query
        .limit(page.count)
        .offset(Math.max(1, page.startIndex) - 1)
        .execute();
    }
    // RFC 9865 cursors as keyset paging: a page depends on the position, not on what came before.
    if (page.after) query = query.where(keysetAfterSql(sort, page.after, context));
    return query.limit(page.count).execute();
  };

  if (!request.members) {
    if (page.count <= 0) return { totalResults: request.countTotal === false ? -1 : await count(db), resources: [] };
    const rows = await pageRows(db);
    const totalResults = request.countTotal === false ? -1 : (totalFromPage(page, rows.length) ?? (await count(db)));
    return { totalResults, resources: rows.map((row) => storedResourceOf(row, dialect)) };
  }

  return dialect.readTransaction(db, async (trx) => {
    const totalResults = request.countTotal === false ? -1 : await count(trx);
    if (page.count <= 0) return { totalResults, resources: [] };
    const rows = await pageRows(trx);
    const withMembers = rows.filter(hasMemberList);
    const members =
      withMembers.length === 0
        ? new Map<string, StoredMember[]>()
        : await readMembers(
            trx,
            dialect,
            request.orgId,
            withMembers.map((row) => row.id),
          );
    const resources: StoredResource[] = rows.map((row) =>
      hasMemberList(row) ? storedResourceOf(row, dialect, members.get(row.id) ?? []) : storedResourceOf(row, dialect),
    );
    return { totalResults, resources };
  });
}
