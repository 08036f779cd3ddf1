/**
 * Group membership as rows of `scimkit_members` (architecture §3): every function here touches only the
 * ids it is given, so a delta costs the size of the delta, never the size of the group — except
 * `currentMemberIds` without ids, which a replacement needs to report what it removes.
 */
import type { Kysely } from "kysely";
import type { StoredMember } from "../resource-store.js";
import { chunksOf } from "./chunks.js";
import { runDeferrable } from "./deferred-statement.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import { lockRows } from "./lock-rows.js";
import type { SqlStoreDatabase } from "./sql-tables.js";

/** Bind parameters a statement spends besides the id list (organization, group, …). */
const FIXED_PARAMETERS = 4;
/** Columns of one `scimkit_members` row, hence bind parameters per inserted member. */
const MEMBER_COLUMNS = 5;

function idChunks(ids: readonly string[], dialect: SqlDialect): string[][] {
  return chunksOf([...new Set(ids)], dialect.maxParameters - FIXED_PARAMETERS);
}

/**
 * The resource type of each of `ids` that names a resource of organization `orgId` (any type:
 * nested groups are members too), locking those rows against deletion until the transaction
 * ends, so a member cannot vanish between this check and its insert (architecture §3). Ids that name
 * nothing are absent from the map.
 */
export async function findMemberTypes(
  trx: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  orgId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const types = new Map<string, string>();
  for (const chunk of idChunks(ids, dialect)) {
    const query = trx
      .selectFrom("scimkit_resources as r")
      .select(["r.id", "r.resource_type"])
      .where("r.org_id", "=", orgId)
      .where("r.id", "in", chunk);
    for (const row of await lockRows(query, dialect, "reference").execute()) types.set(row.id, row.resource_type);
  }
  return types;
}

/**
 * Which of `ids` are members of group `groupId`; with no `ids`, every member id (a replacement
 * must know them all to report what it removes).
 */
export async function currentMemberIds(
  trx: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  orgId: string,
  groupId: string,
  ids?: readonly string[],
): Promise<Set<string>> {
  const base = trx.selectFrom("scimkit_members as m").select("m.member_id").where("m.org_id", "=", orgId).where("m.group_id", "=", groupId);
  if (ids === undefined) return new Set((await base.execute()).map((row) => row.member_id));
  const current = new Set<string>();
  for (const chunk of idChunks(ids, dialect)) {
    for (const row of await base.where("m.member_id", "in", chunk).execute()) current.add(row.member_id);
  }
  return current;
}

/** Adds `members` to group `groupId` at positions `firstPosition`, `firstPosition + 1`, … in order. */
export async function insertMembers(
  trx: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  orgId: string,
  groupId: string,
  members: readonly StoredMember[],
  firstPosition: number,
): Promise<void> {
  let position = firstPosition;
  for (const chunk of chunksOf(members, Math.floor(dialect.maxParameters / MEMBER_COLUMNS))) {
    const rows = chunk.map((member) => ({
      org_id: orgId,
      group_id: groupId,
      member_id: member.value,
      member_type: member.type,
      position: position++,
    }));
    await runDeferrable(trx, trx.insertInto("scimkit_members").values(rows).compile());
  }
}

/** Removes the member rows of `ids` from group `groupId`; ids that are no members are no-ops. */
export async function deleteMembers(
  trx: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  orgId: string,
  groupId: string,
  ids: readonly string[],
): Promise<void> {
  for (const chunk of idChunks(ids, dialect)) {
    const remove = trx
      .deleteFrom("scimkit_members")
      .where("org_id", "=", orgId)
      .where("group_id", "=", groupId)
      .where("member_id", "in", chunk)
      .compile();
    await runDeferrable(trx, remove);
  }
}

/**
 * The members of each of `groupIds`, in the order they were added, in one query per chunk of
 * groups (a list page's groups load together, not one query per group). Groups without members
 * are absent from the map.
 */
export async function readMembers(
  db: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  orgId: string,
  groupIds: readonly string[],
): Promise<Map<string, StoredMember[]>> {
  const members = new Map<string, StoredMember[]>();
  for (const chunk of idChunks(groupIds, dialect)) {
    const rows = await db
      .selectFrom("scimkit_members as m")
      .select(["m.group_id", "m.member_id", "m.member_type"])
      .where("m.org_id", "=", orgId)
      .where("m.group_id", "in", chunk)
      .orderBy("m.group_id")
      .orderBy("m.position")
      .execute();
    for (const row of rows) {
      let list = members.get(row.group_id);
      if (!list) {
        list = [];
        members.set(row.group_id, list);
      }
      list.push({ value: row.member_id, type: row.member_type });
    }
  }
  return members;
}
