/**
 * Concurrent member deltas of one group written as one transaction (issue 29): identity providers
 * add and remove members one PATCH at a time, many at once to the same group, and each one alone
 * is a transaction that waits for the group's row lock and ends in its own commit (a durable
 * flush on PostgreSQL). Deltas commute (architecture §3), so a batch applies them in arrival order
 * to the member set it read once, and writes the net change: one read of the ids they name, one
 * delete, one insert, one row update — whatever the batch's size. Each request still gets the
 * result it would have had alone, in that order: its own version, its own `MembershipChange`.
 */
import type { Kysely } from "kysely";
import { changesMembers, planMembership, type MembershipPlan } from "../membership-plan.js";
import type { StoredMember, UpdateRequest, WriteResult } from "../resource-store.js";
import { assertMembersAllowed } from "../write-checks.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import { lockRows } from "./lock-rows.js";
import { currentMemberIds, deleteMembers, findMemberTypes, insertMembers } from "./member-rows.js";
import { storedResourceOf, type ResourceRow } from "./resource-row.js";
import { runDeferrable } from "./deferred-statement.js";
import { selectResource } from "./select-resource.js";
import type { SqlStoreDatabase } from "./sql-tables.js";
import { typedMembers } from "./typed-members.js";

/**
 * Whether `request` may join a batch: a member delta alone — no attributes, no version
 * precondition, no member list to return — so its outcome depends on nothing but the ids it names.
 */
export function isBatchableMemberDelta(request: UpdateRequest): boolean {
  return (
    request.membership?.kind === "delta" &&
    request.attributes === undefined &&
    request.expectedVersion === undefined &&
    request.read === undefined &&
    !request.members
  );
}

/**
 * Applies `requests` (each `isBatchableMemberDelta`, all to the same resource of one scope) in
 * order, in `trx`; one result per request, `undefined` for all when there is no such resource.
 * Throws, having written nothing the caller keeps, when any request would fail alone (its
 * unknown-member policy): the caller then writes them one by one for their own answers.
 */
export async function updateMembershipBatch(
  trx: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  requests: readonly UpdateRequest[],
): Promise<readonly (WriteResult | undefined)[]> {
  const [first] = requests;
  if (first === undefined) return [];
  const { orgId, id } = first;
  const adding = new Set<string>();
  const named = new Set<string>();
  for (const request of requests) {
    if (request.membership?.kind !== "delta") throw new Error("updateMembershipBatch: a request without a member delta");
    for (const memberId of request.membership.add) {
      adding.add(memberId);
      named.add(memberId);
    }
    for (const memberId of request.membership.remove) named.add(memberId);
  }
  // Members first, the group second: the lock order every writer follows (resource-row-writes.ts),
  // for the whole batch's additions before the group.
  const types = adding.size > 0 ? await findMemberTypes(trx, dialect, orgId, [...adding]) : new Map<string, string>();
  const row: ResourceRow | undefined = await lockRows(selectResource(trx, first, id), dialect, "update").executeTakeFirst();
  if (!row) return requests.map(() => undefined);

  const stored = await currentMemberIds(trx, dialect, orgId, id, [...named]);
  const present = new Set(stored);
  // The stored members that some request removed (re-added or not): their rows go.
  const removedStored = new Set<string>();
  // The members added by some request and still present at the end, in the order they were added.
  const added = new Map<string, true>();
  const storedSeq = row.member_seq === null ? null : Number(row.member_seq);
  let version = Number(row.version);
  let lastModified = row.last_modified;
  let changed = false;
  const results: WriteResult[] = [];
  for (const request of requests) {
    const delta = request.membership;
    if (delta?.kind !== "delta") continue;
    const plan: MembershipPlan = planMembership(present, delta, (memberId) => types.has(memberId));
    assertMembersAllowed(plan, request.unknownMembers);
    // A removal forgets an earlier addition, so a member removed and added again moves to the
    // end, as it does one request at a time.
    for (const memberId of plan.removed) {
      present.delete(memberId);
      added.delete(memberId);
      if (stored.has(memberId)) removedStored.add(memberId);
    }
    for (const memberId of plan.added) {
      present.add(memberId);
      added.set(memberId, true);
    }
    if (changesMembers(plan)) {
      changed = true;
      version += 1;
      lastModified = request.now;
    }
    results.push({ resource: storedResourceOf({ ...row, version, last_modified: lastModified }, dialect), membership: plan });
  }

  await deleteMembers(trx, dialect, orgId, id, [...removedStored]);
  const inserted: readonly StoredMember[] = typedMembers([...added.keys()], types);
  // Positions only order the list, so the net additions take the next ones without gaps. A group
  // that has had a delta has a sequence, as `updateResourceRow` keeps it.
  const memberSeq = (storedSeq ?? 0) + inserted.length;
  await insertMembers(trx, dialect, orgId, id, inserted, (storedSeq ?? 0) + 1);
  if (changed || memberSeq !== storedSeq) {
    const update = trx
      .updateTable("scimkit_resources")
      .set({ version, last_modified: lastModified, member_seq: memberSeq })
      .where("org_id", "=", orgId)
      .where("id", "=", id)
      .compile();
    await runDeferrable(trx, update);
  }
  return results;
}
