/**
 * Group membership in the application's join table (architecture §3): deltas touch only the rows
 * they name, so adding one member to a group of 100,000 reads and writes one row; a replacement
 * reads the current list once, to report what it removes.
 */
import { sql, type Kysely } from "kysely";
import type { StoredMember } from "../../resource-store.js";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import { chunksOf } from "../chunks.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import type { IdKind, MemberTableMapping } from "./table-mapping.js";
import { idParameter } from "./table-row-source.js";

/** Where the members are, and how the ids of both sides are typed. */
export interface MemberTable {
  readonly mapping: MemberTableMapping;
  readonly groupIdKind: IdKind;
  /** The users table, whose rows members are. */
  readonly users: { readonly table: string; readonly id: string; readonly idKind: IdKind; readonly orgColumn?: string };
  readonly dialect: SqlDialect;
}

type Trx = Kysely<SqlStoreDatabase>;

/** Ids as their column's values, leaving out those no row can have. */
function parameters(ids: readonly string[], kind: IdKind): (string | number)[] {
  return ids.flatMap((id) => {
    const value = idParameter(id, kind);
    return value === undefined ? [] : [value];
  });
}

/** The member operations over one join table. */
export function memberTable(table: MemberTable) {
  const { mapping, dialect, users } = table;
  const join = sql.table(mapping.table);
  const groupColumn = sql.id(mapping.group);
  const memberColumn = sql.id(mapping.member);
  const chunk = dialect.maxParameters - 8;
  const groupParameter = (groupId: string): string | number => {
    const value = idParameter(groupId, table.groupIdKind);
    if (value === undefined) throw new Error(`tableStore: ${groupId} is not a group id of ${mapping.table}`);
    return value;
  };

  return {
    /**
     * Which of `ids` are users of organization `orgId`, locked against deletion until the
     * transaction ends (`RowLock` "reference"), so no member row outlives its user.
     */
    async knownUsers(trx: Trx, orgId: string, ids: readonly string[]): Promise<ReadonlySet<string>> {
      const known = new Set<string>();
      const lock = dialect.rowLock("reference") ?? sql``;
      const org = users.orgColumn === undefined ? sql`1 = 1` : sql`${sql.id(users.orgColumn)} = ${sql.val(orgId)}`;
      for (const part of chunksOf(parameters(ids, users.idKind), chunk)) {
        const found = await sql<{
          readonly id: unknown;
        }>`select ${sql.id(users.id)} as id from ${sql.table(users.table)} where ${org} and ${sql.id(
          users.id,
        )} in (${sql.join(part.map((id) => sql.val(id)))}) ${lock}`.execute(trx);
        for (const row of found.rows) known.add(String(row.id));
      }
      return known;
    },

    /** The group's members among `named`, or all of them without it. */
    async current(trx: Trx, groupId: string, named?: readonly string[]): Promise<ReadonlySet<string>> {
      const ids = new Set<string>();
      const select = (only: ReturnType<typeof sql> | undefined) =>
        sql<{ readonly id: unknown }>`select ${memberColumn} as id from ${join} where ${groupColumn} = ${sql.val(groupParameter(groupId))}${
          only ?? sql``
        }`.execute(trx);
      if (named === undefined) {
        for (const row of (await select(undefined)).rows) ids.add(String(row.id));
        return ids;
      }
      for (const part of chunksOf(parameters(named, users.idKind), chunk)) {
        const rows = (await select(sql` and ${memberColumn} in (${sql.join(part.map((id) => sql.val(id)))})`)).rows;
        for (const row of rows) ids.add(String(row.id));
      }
      return ids;
    },

    async add(trx: Trx, groupId: string, ids: readonly string[]): Promise<void> {
      const group = groupParameter(groupId);
      for (const part of chunksOf(parameters(ids, users.idKind), Math.floor(chunk / 2))) {
        await sql`insert into ${join} (${groupColumn}, ${memberColumn}) values ${sql.join(
          part.map((id) => sql`(${sql.val(group)}, ${sql.val(id)})`),
        )}`.execute(trx);
      }
    },

    async remove(trx: Trx, groupId: string, ids: readonly string[]): Promise<void> {
      const group = groupParameter(groupId);
      for (const part of chunksOf(parameters(ids, users.idKind), chunk)) {
        await sql`delete from ${join} where ${groupColumn} = ${sql.val(group)} and ${memberColumn} in (${sql.join(
          part.map((id) => sql.val(id)),
        )})`.execute(trx);
      }
    },

    /** The members of each of `groupIds`, by id (the join table keeps no order of addition). */
    async read(trx: Trx, groupIds: readonly string[]): Promise<Map<string, StoredMember[]>> {
      const members = new Map<string, StoredMember[]>(groupIds.map((id) => [id, []]));
      for (const part of chunksOf(parameters(groupIds, table.groupIdKind), chunk)) {
        const rows = await sql<{
          readonly g: unknown;
          readonly m: unknown;
        }>`select ${groupColumn} as g, ${memberColumn} as m from ${join} where ${groupColumn} in (${sql.join(
          part.map((id) => sql.val(id)),
        )}) order by ${memberColumn}`.execute(trx);
        for (const row of rows.rows) members.get(String(row.g))?.push({ value: String(row.m), type: "User" });
      }
      return members;
    },

    /** The groups that list user `userId`. */
    async groupsOf(trx: Trx, userId: string): Promise<string[]> {
      const user = idParameter(userId, users.idKind);
      if (user === undefined) return [];
      const rows = await sql<{
        readonly g: unknown;
      }>`select ${groupColumn} as g from ${join} where ${memberColumn} = ${sql.val(user)} order by ${groupColumn}`.execute(trx);
      return rows.rows.map((row) => String(row.g));
    },

    /** Removes every row of group `groupId`, or of user `userId` in any group. */
    async forget(trx: Trx, side: "group" | "member", id: string): Promise<void> {
      const value = idParameter(id, side === "group" ? table.groupIdKind : users.idKind);
      if (value === undefined) return;
      await sql`delete from ${join} where ${side === "group" ? groupColumn : memberColumn} = ${sql.val(value)}`.execute(trx);
    },
  };
}

/** The member operations of one join table. */
export type MemberOperations = ReturnType<typeof memberTable>;
