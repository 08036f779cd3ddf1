/**
 * `update` of the table store: the members checked first (the lock order every writer follows),
 * then the row locked and read, its version checked, and what changed written — the row, its child
 * rows and keys, the member list, the meta — in one transaction.
 */
import { sql } from "kysely";
import { deepEqual } from "../../../scim/deep-equal.js";
import { changesMembers, planMembership, type MembershipPlan } from "../../membership-plan.js";
import type { UpdateRequest, WriteResult } from "../../resource-store.js";
import { preconditionFailedError, unknownMembersError } from "../../store-errors.js";
import { setRowMeta, writeMeta } from "./table-meta-writes.js";
import { NEVER_WRITTEN, readOne, withMembers } from "./table-read.js";
import { rowValues, writeChildren } from "./table-row-values.js";
import { byId, lockRow, onTable, orgCondition, ROW } from "./table-sql.js";
import { withTranslatedErrors } from "../with-translated-errors.js";
import { idOf, notServed, servesOrg, type TableStoreState } from "./table-store-state.js";
import { claimKeys, refuseColumnClash, releaseKeys } from "./table-unique-keys.js";

/** `ResourceStore.update` over the state's tables. */
export function updateInTable(state: TableStoreState, request: UpdateRequest): Promise<WriteResult | undefined> {
  const { dialect, db } = state;
  const type = state.tables.get(request.resourceType);
  const id = type && idOf(type, request.id);
  if (!type || id === undefined || !servesOrg(state, request.orgId)) return Promise.resolve(undefined);
  const delta = request.membership;
  const members = type.members;
  if (delta && !members) return Promise.reject(notServed(`member lists of ${request.resourceType}`));
  return withTranslatedErrors(state.dialect, () =>
    dialect.writeTransaction(db, async (trx): Promise<WriteResult | undefined> => {
      // Members first, the group second: the lock order every writer follows.
      const adding = delta === undefined ? [] : delta.kind === "replace" ? delta.ids : delta.add;
      const known = adding.length > 0 && members ? await members.knownUsers(trx, request.orgId, adding) : new Set<string>();
      if (!(await lockRow(state, trx, type, request, id, "update"))) return undefined;
      const current = await readOne(state, trx, type, request, id);
      if (!current) return undefined;
      // RFC 7644 §3.14: a failed precondition is 412, and nothing is written.
      if (request.expectedVersion !== undefined && request.expectedVersion !== current.version) throw preconditionFailedError();
      const { attributes } = request;
      // What the mapping keeps of the new attributes, deep-equal to what is stored, is no write.
      const attributesChange =
        attributes !== undefined &&
        (type.mapping.hooks?.toRow !== undefined ||
          !deepEqual(type.mapper.kept(attributes, type.mapping.rest !== undefined), current.attributes));
      const version = Number(current.version) + 1;
      if (attributesChange) {
        await refuseColumnClash(state, trx, type, request, request.uniqueKeys ?? [], { id, kept: current.attributes });
        const row = await rowValues(state, trx, type, attributes, type.meta.rowValues({ version, lastModified: request.now }));
        const names = Object.keys(row);
        await onTable(type, () =>
          sql`update ${sql.table(type.mapping.table)} as ${sql.id(ROW)} set ${sql.join(
            names.map((name) => sql`${sql.id(name)} = ${sql.val(row[name])}`),
          )} where ${orgCondition(state, request.orgId)} and ${byId(type, id)}`.execute(trx),
        );
        await writeChildren(trx, type, id, attributes);
        await releaseKeys(trx, request, current.id);
        await claimKeys(state, trx, type, request, current.id, request.uniqueKeys ?? []);
      }
      let membership: MembershipPlan | undefined;
      if (delta && members) {
        // A delta reads only the ids it names; a replacement reads the ids it may remove.
        const named = delta.kind === "delta" ? [...delta.add, ...delta.remove] : undefined;
        membership = planMembership(await members.current(trx, current.id, named), delta, (memberId) => known.has(memberId));
        if (request.unknownMembers === "reject" && membership.ignored.length > 0) throw unknownMembersError(membership.ignored);
        await members.remove(trx, current.id, membership.removed);
        await members.add(trx, current.id, membership.added);
      }
      const membersChange = membership !== undefined && changesMembers(membership);
      if (type.meta.side && (attributesChange || membersChange)) {
        const created = current.created === NEVER_WRITTEN ? request.now : current.created;
        await writeMeta(trx, request, current.id, version, created, request.now);
      }
      // A change of members alone is still a write of the group (RFC 7644 §3.14: a new ETag).
      if (membersChange && !attributesChange) await setRowMeta(state, trx, type, request, id, version, request.now);
      const read = await readOne(state, trx, type, request, id);
      if (!read) return undefined;
      const resource = await withMembers(trx, type, read, request.members);
      return membership ? { resource, membership } : { resource };
    }),
  );
}
