/**
 * Reading one resource row of the SQL store, and its members when it has a member list.
 */
import type { Kysely } from "kysely";
import type { StoredMember, StoreScope } from "../resource-store.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import { readMembers } from "./member-rows.js";
import { resourceColumns, type ResourceRow } from "./resource-row.js";
import type { SqlStoreDatabase } from "./sql-tables.js";

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

/** The members of group `id`, in the order they were added. */
export async function membersOf(trx: Kysely<SqlStoreDatabase>, dialect: SqlDialect, orgId: string, id: string): Promise<StoredMember[]> {
  return (await readMembers(trx, dialect, orgId, [id])).get(id) ?? [];
}
