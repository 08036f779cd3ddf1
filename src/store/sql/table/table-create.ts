/**
 * `create` of the table store: the members checked first (the lock order every writer follows),
 * the row inserted with its child rows, its keys claimed and its meta written, in one transaction.
 */
import { sql } from "kysely";
import { planMembership, type MembershipPlan } from "../../membership-plan.js";
import type { CreateRequest, WriteResult } from "../../resource-store.js";
import { unknownMembersError } from "../../store-errors.js";
import type { ColumnValue } from "./table-mapping.js";
import { deleteMeta, writeMeta } from "./table-meta-writes.js";
import { readOne, withMembers } from "./table-read.js";
import { rowValues, writeChildren } from "./table-row-values.js";
import { onTable } from "./table-sql.js";
import { withTranslatedErrors } from "../with-translated-errors.js";
import { idOf, notServed, servesOrg, type TableStoreState } from "./table-store-state.js";
import { claimKeys, refuseColumnClash, releaseKeys } from "./table-unique-keys.js";

/** `ResourceStore.create` over the state's tables. */
export function createInTable(state: TableStoreState, request: CreateRequest): Promise<WriteResult> {
  const { dialect, db, organization } = state;
  const type = state.tables.get(request.resourceType);
  if (!type || (request.members !== undefined && !type.members)) return Promise.reject(notServed(request.resourceType));
  if (!servesOrg(state, request.orgId)) return Promise.reject(notServed(`organization ${request.orgId}'s`));
  return withTranslatedErrors(state.dialect, () =>
    dialect.writeTransaction(db, async (trx): Promise<WriteResult> => {
      // Members first, the group second: the lock order every writer follows.
      const known =
        request.members?.length && type.members ? await type.members.knownUsers(trx, request.orgId, request.members) : new Set<string>();
      const membership: MembershipPlan | undefined =
        request.members === undefined
          ? undefined
          : planMembership(new Set(), { kind: "delta", add: request.members, remove: [] }, (id) => known.has(id));
      if (membership && request.unknownMembers === "reject" && membership.ignored.length > 0) throw unknownMembersError(membership.ignored);
      const fixed: Record<string, ColumnValue> = {};
      if ("column" in organization) fixed[organization.column] = request.orgId;
      // The core's id (a UUID v7) where the table takes one; an integer key is the database's to assign.
      if (type.mapping.id.kind !== "integer") fixed[type.mapping.id.column] = request.id;
      Object.assign(fixed, type.meta.rowValues({ version: 1, created: request.now, lastModified: request.now }));
      await refuseColumnClash(state, trx, type, request, request.uniqueKeys);
      const row = await rowValues(state, trx, type, request.attributes, fixed);
      // Columns without a value are left out, so the application's defaults apply (`is_active default 1`).
      const names = Object.keys(row).filter((name) => row[name] !== null);
      const inserted = await onTable(type, () =>
        sql<{
          readonly id: unknown;
        }>`insert into ${sql.table(type.mapping.table)} (${sql.join(names.map((name) => sql.id(name)))}) values (${sql.join(
          names.map((name) => sql.val(row[name])),
        )}) returning ${sql.id(type.mapping.id.column)} as id`.execute(trx),
      );
      const id = String(inserted.rows[0]?.id);
      const assigned = inserted.rows[0]?.id;
      if (typeof assigned === "string" || typeof assigned === "number") await writeChildren(trx, type, assigned, request.attributes);
      // Side rows left by an earlier row of this id, which the application deleted itself and
      // whose id the database reused (SQLite without AUTOINCREMENT does), belong to no one now.
      await releaseKeys(trx, request, id);
      if (type.meta.side) await deleteMeta(trx, request, id);
      await claimKeys(state, trx, type, request, id, request.uniqueKeys);
      if (type.meta.side) await writeMeta(trx, request, id, 1, request.now, request.now);
      const parameter = idOf(type, id);
      const resource = parameter === undefined ? undefined : await readOne(state, trx, type, request, parameter);
      if (!resource) throw new Error(`tableStore: the row just inserted into ${type.mapping.table} as ${id} cannot be read back`);
      if (!membership || !type.members) return { resource };
      await type.members.add(trx, id, membership.added);
      // CreateRequest has no `members` flag: a create that gives members gets them back.
      return { resource: await withMembers(trx, type, resource, true), membership };
    }),
  );
}
