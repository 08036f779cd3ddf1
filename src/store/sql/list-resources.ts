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
 * One page of `request` with its total, read in one snapshot (`SqlDialect.readTransaction`), so
 * the page, the total and the members agree even while others write. `hasMemberList` says which
 * rows carry `members` when they are asked for.
 */
export function listResources(
  db: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  request: ListRequest,
  hasMemberList: (row: ResourceRow) => boolean,
): Promise<ListResult> {
  const { filter, sort, page } = request;
  const context = { dialect, resource: RESOURCE } as const;
  return dialect.readTransaction(db, async (trx) => {
    let matches = trx
      .selectFrom("scimkit_resources as r")
      .where("r.org_id", "=", request.orgId)
      .where("r.resource_type", "=", request.resourceType);
    if (filter) matches = matches.where(compileFilterSql(filter, context));

    const totalResults =
      request.countTotal === false ? -1 : Number((await matches.select((eb) => eb.fn.countAll().as("total")).executeTakeFirstOrThrow()).total);
    if (page.count <= 0) return { totalResults, resources: [] };

    let query = matches.select(resourceColumns);
    // The one list order (`compareListEntries`): the sort key, then the id; by id alone unsorted.
    for (const item of orderBySql(sort, context)) query = query.orderBy(item);
    if (page.kind === "index") {
      // RFC 7644 §3.4.2.4: startIndex is 1-based; the core clamps it, and so does this, cheaply.
      query = query.limit(page.count).offset(Math.max(1, page.startIndex) - 1);
    } else {
      // RFC 9865 cursors as keyset paging: a page depends on the position, not on what came before.
      if (page.after) query = query.where(keysetAfterSql(sort, page.after, context));
      query = query.limit(page.count);
    }
    const rows = await query.execute();

    const withMembers = request.members ? rows.filter(hasMemberList) : [];
    const members = withMembers.length === 0 ? new Map<string, StoredMember[]>() : await readMembers(trx, dialect, request.orgId, withMembers.map((row) => row.id));
    const resources: StoredResource[] = rows.map((row) =>
      request.members && hasMemberList(row) ? storedResourceOf(row, dialect, members.get(row.id) ?? []) : storedResourceOf(row, dialect),
    );
    return { totalResults, resources };
  });
}
