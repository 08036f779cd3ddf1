/**
 * Reading one resource row of the SQL store, and its members when it has a member list.
 */
import { CompiledQuery, type Kysely } from "kysely";
import type { StoredMember, StoreScope } from "../resource-store.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import { readMembers } from "./member-rows.js";
import { resourceColumns, type ResourceRow } from "./resource-row.js";
import type { SqlStoreDatabase } from "./sql-tables.js";
import { runPointRead } from "./point-read.js";
import { cachedStatementText } from "./statement-texts.js";

/** The values `selectResource` is compiled with once, to check where its parameters go. */
const SCOPE_SLOTS = ["\u0000scimkit:org", "\u0000scimkit:type", "\u0000scimkit:id"] as const;

/**
 * Whether a resource carries `members` when they are asked for: it was created with `members`
 * (its type has members, `CreateRequest.members`) or given some since.
 */
export function hasMemberList(row: Pick<ResourceRow, "member_seq">): boolean {
  return row.member_seq !== null;
}

/** The query of resource `id` of the scope. */
export function selectResource(trx: Kysely<SqlStoreDatabase>, scope: StoreScope, id: string) {
  return trx
    .selectFrom("scimkit_resources as r")
    .select(resourceColumns)
    .where("r.org_id", "=", scope.orgId)
    .where("r.resource_type", "=", scope.resourceType)
    .where("r.id", "=", id);
}

/**
 * `selectResource`'s text, compiled once per dialect: a GET, and the read before every PUT and
 * PATCH, spent more building and compiling the query than SQLite spends running it.
 */
function selectResourceText(db: Kysely<SqlStoreDatabase>, dialect: SqlDialect): string {
  return cachedStatementText(dialect, "select-resource", () => {
    const [orgId, resourceType, id] = SCOPE_SLOTS;
    const compiled = selectResource(db, { orgId, resourceType }, id).compile();
    // The text is reused with the scope and id in this order: it must take exactly those.
    if (compiled.parameters.join("\n") !== SCOPE_SLOTS.join("\n")) {
      throw new Error("selectResource: its parameters are not (organization, type, id) in order");
    }
    return compiled.sql;
  });
}

/** The row of resource `id` of the scope, through the statement compiled once (`selectResource` without a lock). */
export async function readResourceRow(
  db: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  scope: StoreScope,
  id: string,
): Promise<ResourceRow | undefined> {
  const query = CompiledQuery.raw(selectResourceText(db, dialect), [scope.orgId, scope.resourceType, id]);
  // By the primary key: at most one row, so it may be read on the event loop.
  return (await runPointRead<ResourceRow>(db, query)).rows[0];
}

/** The members of group `id`, in the order they were added. */
export async function membersOf(trx: Kysely<SqlStoreDatabase>, dialect: SqlDialect, orgId: string, id: string): Promise<StoredMember[]> {
  return (await readMembers(trx, dialect, orgId, [id])).get(id) ?? [];
}
