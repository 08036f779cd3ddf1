/**
 * Deleting from the table store: one resource with its keys, child rows, member rows and meta —
 * a lost member being a write to its groups — or every row of one organization, each in one
 * transaction.
 */
import { sql } from "kysely";
import type { DeleteRequest } from "../../resource-store.js";
import { preconditionFailedError } from "../../store-errors.js";
import { deleteChildRows } from "./child-table.js";
import { bumpGroup, deleteMeta } from "./table-meta-writes.js";
import { readOne } from "./table-read.js";
import { TABLE_KEYS, TABLE_META } from "./table-side-tables.js";
import { byId, lockRow, orgCondition, ROW } from "./table-sql.js";
import { withTranslatedErrors } from "../with-translated-errors.js";
import { idOf, servesOrg, type TableStoreState, type TypeTable } from "./table-store-state.js";
import { releaseKeys } from "./table-unique-keys.js";

/** `ResourceStore.delete` over the state's tables. */
export function deleteFromTable(state: TableStoreState, request: DeleteRequest): Promise<boolean> {
  const { dialect, db, users } = state;
  const groupsTable = state.groups;
  const type = state.tables.get(request.resourceType);
  const id = type && idOf(type, request.id);
  if (!type || id === undefined || !servesOrg(state, request.orgId)) return Promise.resolve(false);
  return withTranslatedErrors(state.dialect, () =>
    dialect.writeTransaction(db, async (trx) => {
      if (!(await lockRow(state, trx, type, request, id, "delete"))) return false;
      if (request.expectedVersion !== undefined) {
        const current = await readOne(state, trx, type, request, id);
        if (current?.version !== request.expectedVersion) throw preconditionFailedError();
      }
      await releaseKeys(trx, request, request.id);
      if (type.members) await type.members.forget(trx, "group", request.id);
      for (const child of type.children) await deleteChildRows(trx, child, id);
      if (type === users && groupsTable?.members) {
        // A lost member is a write to the group: its ETag must change (RFC 7644 §3.14).
        const groupScope = { orgId: request.orgId, resourceType: "Group" };
        for (const groupId of await groupsTable.members.groupsOf(trx, request.id))
          await bumpGroup(state, trx, groupsTable, groupScope, groupId, request.now ?? state.now());
        await groupsTable.members.forget(trx, "member", request.id);
      }
      await sql`delete from ${sql.table(type.mapping.table)} as ${sql.id(ROW)} where ${orgCondition(state, request.orgId)} and ${byId(type, id)}`.execute(
        trx,
      );
      if (type.meta.side) await deleteMeta(trx, request, request.id);
      return true;
    }),
  );
}

/**
 * Deletes every row of organization `orgId` from the application's tables — members, child rows,
 * groups, users — and the side rows, in one transaction; only where rows carry an organization
 * column (a single-organization application would lose all its data).
 */
export function deleteTableOrganization(state: TableStoreState, orgId: string): Promise<number> {
  const { dialect, db, organization, users } = state;
  const groupsTable = state.groups;
  return withTranslatedErrors(state.dialect, () =>
    dialect.writeTransaction(db, async (trx) => {
      if (!("column" in organization)) return 0;
      const inOrg = (type: TypeTable) =>
        sql`select ${sql.id(type.mapping.id.column)} from ${sql.table(type.mapping.table)} where ${sql.id(organization.column)} = ${sql.val(orgId)}`;
      let deleted = 0;
      // Groups first: their member rows reference users.
      for (const type of [groupsTable, users]) {
        if (!type) continue;
        if (type.memberMapping) {
          await sql`delete from ${sql.table(type.memberMapping.table)} where ${sql.id(type.memberMapping.group)} in (${inOrg(type)})`.execute(
            trx,
          );
        }
        if (type === users && groupsTable?.memberMapping) {
          const members = groupsTable.memberMapping;
          await sql`delete from ${sql.table(members.table)} where ${sql.id(members.member)} in (${inOrg(type)})`.execute(trx);
        }
        for (const child of type.children) {
          await sql`delete from ${sql.table(child.mapping.table)} where ${sql.id(child.mapping.owner)} in (${inOrg(type)})`.execute(trx);
        }
        const removed =
          await sql`delete from ${sql.table(type.mapping.table)} where ${sql.id(organization.column)} = ${sql.val(orgId)}`.execute(trx);
        deleted += Number(removed.numAffectedRows ?? 0n);
      }
      await sql`delete from ${sql.table(TABLE_KEYS)} where org_id = ${sql.val(orgId)}`.execute(trx);
      await sql`delete from ${sql.table(TABLE_META)} where org_id = ${sql.val(orgId)}`.execute(trx);
      return deleted;
    }),
  );
}
