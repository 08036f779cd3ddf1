/**
 * The transactions of the SQL resource store's writes (architecture §3): a create, an update and a
 * delete of one resource row with its unique keys and member rows. Locks are taken in one order
 * everywhere — members about to be referenced, then the row written, then (on delete) the groups
 * that lose it — so concurrent writers wait for each other instead of deadlocking.
 */
import { sql, type Kysely } from "kysely";
import { deepEqual } from "../../scim/deep-equal.js";
import type { MembershipDelta } from "../../scim/patch/membership-delta.js";
import { changesMembers, planMembership, type MembershipPlan } from "../membership-plan.js";
import type { CreateRequest, DeleteRequest, UpdateRequest, WriteResult } from "../resource-store.js";
import { chunksOf } from "./chunks.js";
import { runDeferrable } from "./deferred-statement.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import { lockRows } from "./lock-rows.js";
import { bumpListGeneration } from "./list-generation.js";
import { currentMemberIds, deleteMembers, findMemberTypes, insertMembers } from "./member-rows.js";
import { storedResourceOf, type ResourceRow } from "./resource-row.js";
import { externalIdOf, typedMembers } from "./typed-members.js";
import { assertMembersAllowed, assertVersion } from "../write-checks.js";
import { hasMemberList, membersOf, selectResource } from "./select-resource.js";
import type { SqlStoreDatabase } from "./sql-tables.js";
import { claimUniqueKeys, heldKeysColumn, heldKeysOf, replaceUniqueKeys } from "./unique-key-rows.js";

const NO_MEMBERS: ReadonlySet<string> = new Set();

/** The ids a membership write may add: these must be looked up (and locked) before the group. */
function idsToAdd(delta: MembershipDelta | undefined): readonly string[] {
  if (delta === undefined) return [];
  return delta.kind === "replace" ? delta.ids : delta.add;
}

/** Inserts the resource of `request` with its unique keys and members, in `trx`. */
export async function createResourceRow(trx: Kysely<SqlStoreDatabase>, dialect: SqlDialect, request: CreateRequest): Promise<WriteResult> {
  const types = request.members?.length ? await findMemberTypes(trx, dialect, request.orgId, request.members) : new Map<string, string>();
  const membership =
    request.members === undefined
      ? undefined
      : planMembership(NO_MEMBERS, { kind: "delta", add: request.members, remove: [] }, (id) => types.has(id));
  const memberSeq = membership ? membership.added.length : null;
  // The core picks fresh UUIDs, so a taken id fails on the primary key: a bug, not a client error.
  const insert = trx
    .insertInto("scimkit_resources")
    .values({
      org_id: request.orgId,
      id: request.id,
      resource_type: request.resourceType,
      version: 1,
      created: request.now,
      last_modified: request.now,
      external_id: externalIdOf(request.attributes),
      attributes: dialect.toJson(request.attributes),
      member_seq: memberSeq,
    })
    .compile();
  await runDeferrable(trx, insert);
  await dialect.indexResources?.(trx, { kind: "write", orgId: request.orgId, id: request.id, attributes: request.attributes });
  if (dialect.listGenerations !== false) await bumpListGeneration(trx, dialect, request);
  await claimUniqueKeys(trx, dialect, request, request.id, request.uniqueKeys);
  const resource = {
    id: request.id,
    version: "1",
    created: request.now,
    lastModified: request.now,
    // Through JSON, as a read would return it, and never the caller's own object.
    attributes: dialect.fromJson(dialect.toJson(request.attributes)),
  };
  if (!membership) return { resource };
  assertMembersAllowed(membership, request.unknownMembers);
  const members = typedMembers(membership.added, types);
  await insertMembers(trx, dialect, request.orgId, request.id, members, 1);
  // CreateRequest has no `members` flag: a create that gives members gets them back.
  return { resource: { ...resource, members }, membership };
}

/** Applies `request` to its resource row, unique keys and member rows, in `trx`; undefined when there is no such resource. */
export async function updateResourceRow(
  trx: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  request: UpdateRequest,
): Promise<WriteResult | undefined> {
  const { orgId, id, membership: delta } = request;
  // Members first, the group second: the lock order every writer follows.
  const adding = idsToAdd(delta);
  const types = adding.length > 0 ? await findMemberTypes(trx, dialect, orgId, adding) : new Map<string, string>();
  // The unique keys it holds come with the row when the update may change them: one statement,
  // not two, before the writes.
  const keysColumn = request.attributes === undefined ? undefined : heldKeysColumn(dialect);
  const query = selectResource(trx, request, id);
  const row: (ResourceRow & { readonly held_keys?: unknown }) | undefined = await lockRows(
    keysColumn === undefined ? query : query.select(keysColumn),
    dialect,
    "update",
  ).executeTakeFirst();
  if (!row) return undefined;
  assertVersion(row.version, request.expectedVersion);

  const stored = dialect.fromJson(row.attributes);
  // Attributes deep-equal to the stored ones are no write: version and lastModified stay.
  const attributes = request.attributes !== undefined && !deepEqual(request.attributes, stored) ? request.attributes : undefined;
  if (attributes) {
    const held = keysColumn === undefined ? undefined : heldKeysOf(row.held_keys);
    await replaceUniqueKeys(trx, dialect, request, id, request.uniqueKeys ?? [], held);
  }

  let membership: MembershipPlan | undefined;
  const storedSeq = row.member_seq === null ? null : Number(row.member_seq);
  let memberSeq = storedSeq;
  if (delta) {
    // A delta reads only the ids it names; a replacement reads the ids it may remove.
    const named = delta.kind === "delta" ? [...delta.add, ...delta.remove] : undefined;
    const current = await currentMemberIds(trx, dialect, orgId, id, named);
    membership = planMembership(current, delta, (memberId) => types.has(memberId));
    assertMembersAllowed(membership, request.unknownMembers);
    await deleteMembers(trx, dialect, orgId, id, membership.removed);
    const first = (memberSeq ?? 0) + 1;
    await insertMembers(trx, dialect, orgId, id, typedMembers(membership.added, types), first);
    memberSeq = first - 1 + membership.added.length;
  }

  const changed = attributes !== undefined || (membership !== undefined && changesMembers(membership));
  const version = changed ? Number(row.version) + 1 : Number(row.version);
  const lastModified = changed ? request.now : row.last_modified;
  if (changed || memberSeq !== storedSeq) {
    const update = trx
      .updateTable("scimkit_resources")
      .set({
        version,
        last_modified: lastModified,
        member_seq: memberSeq,
        ...(attributes ? { attributes: dialect.toJson(attributes), external_id: externalIdOf(attributes) } : {}),
      })
      .where("org_id", "=", orgId)
      .where("id", "=", id)
      .compile();
    await runDeferrable(trx, update);
    if (attributes) await dialect.indexResources?.(trx, { kind: "write", orgId, id, attributes, previous: stored });
  }

  const next: ResourceRow = {
    ...row,
    version,
    last_modified: lastModified,
    member_seq: memberSeq,
    ...(attributes ? { attributes: dialect.toJson(attributes) } : {}),
  };
  const members = request.members && hasMemberList(next) ? await membersOf(trx, dialect, orgId, id) : undefined;
  const resource = storedResourceOf(next, dialect, members);
  return membership ? { resource, membership } : { resource };
}

/** Deletes the resource of `request`, a new version for each group that loses it, in `trx`; false when there is none. */
export async function deleteResourceRow(
  trx: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  request: DeleteRequest,
  now: () => string,
): Promise<boolean> {
  const { orgId, id } = request;
  // The delete lock waits for every transaction still adding this resource somewhere, and
  // keeps new ones out: they find it gone and ignore it, so no member row is orphaned.
  const row = await lockRows(
    trx
      .selectFrom("scimkit_resources as r")
      .select(["r.id", "r.version"])
      .where("r.org_id", "=", orgId)
      .where("r.resource_type", "=", request.resourceType)
      .where("r.id", "=", id),
    dialect,
    "delete",
  ).executeTakeFirst();
  if (!row) return false;
  assertVersion(row.version, request.expectedVersion);

  // A lost member is a write to the group: its ETag must change (RFC 7644 §3.14). Locked in
  // id order, so two deletes touching the same groups queue instead of deadlocking.
  const groups = await lockRows(
    trx
      .selectFrom("scimkit_resources as r")
      .select("r.id")
      .where("r.org_id", "=", orgId)
      .where("r.id", "in", (eb) =>
        eb.selectFrom("scimkit_members as m").select("m.group_id").where("m.org_id", "=", orgId).where("m.member_id", "=", id),
      )
      .orderBy("r.id"),
    dialect,
    "update",
  ).execute();
  for (const chunk of chunksOf(
    groups.map((group) => group.id),
    dialect.maxParameters - 2,
  )) {
    const update = trx
      .updateTable("scimkit_resources")
      .set({ version: sql<number>`version + 1`, last_modified: request.now ?? now() })
      .where("org_id", "=", orgId)
      .where("id", "in", chunk)
      .compile();
    await runDeferrable(trx, update);
  }
  await dialect.indexResources?.(trx, { kind: "delete", orgId, id });
  // The foreign keys cascade: its unique keys, its own member rows, its rows in other groups.
  await runDeferrable(trx, trx.deleteFrom("scimkit_resources").where("org_id", "=", orgId).where("id", "=", id).compile());
  if (dialect.listGenerations !== false) await bumpListGeneration(trx, dialect, request);
  return true;
}
