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
import type { MembershipDelta } from "../../scim/patch/membership-delta.js";
import { changesMembers, planMembership, type MembershipPlan } from "../membership-plan.js";
import type { StoredMember, UpdateRequest, WriteResult } from "../resource-store.js";
import { assertMembersAllowed } from "../write-checks.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import { type BatchBounds, keyedBatches, settle, type Settled } from "./keyed-batches.js";
import { lockRows } from "./lock-rows.js";
import { currentMemberIds, deleteMembers, findMemberTypes, insertMembers } from "./member-rows.js";
import { storedResourceOf, type ResourceRow } from "./resource-row.js";
import { runDeferrable } from "./deferred-statement.js";
import { selectResource } from "./select-resource.js";
import type { SqlStoreDatabase } from "./sql-tables.js";
import { typedMembers } from "./typed-members.js";
import { writeAllWithEvents } from "./write-with-events.js";

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
  const deltas = requests.map((request) => {
    if (request.membership?.kind !== "delta") throw new Error("updateMembershipBatch: a request without a member delta");
    return request.membership;
  });
  const adding = new Set(deltas.flatMap((delta) => delta.add));
  const named = [...new Set([...adding, ...deltas.flatMap((delta) => delta.remove)])];
  // Members first, the group second: the lock order every writer follows (resource-row-writes.ts),
  // for the whole batch's additions before the group.
  const types = adding.size > 0 ? await findMemberTypes(trx, dialect, orgId, [...adding]) : new Map<string, string>();
  const row: ResourceRow | undefined = await lockRows(selectResource(trx, first, id), dialect, "update").executeTakeFirst();
  if (!row) return requests.map(() => undefined);

  const stored = await currentMemberIds(trx, dialect, orgId, id, named);
  const present = new Set(stored);
  // The stored members that some request removed (re-added or not): their rows go.
  const removedStored = new Set<string>();
  // The members added by some request and still present at the end, in the order they were added.
  const added = new Set<string>();
  const storedVersion = Number(row.version);
  let version = storedVersion;
  let lastModified = row.last_modified;
  const results = requests.map((request, index): WriteResult => {
    const plan: MembershipPlan = planMembership(present, deltas[index] as MembershipDelta, (memberId) => types.has(memberId));
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
      added.add(memberId);
    }
    if (changesMembers(plan)) {
      version += 1;
      lastModified = request.now;
    }
    return { resource: storedResourceOf({ ...row, version, last_modified: lastModified }, dialect), membership: plan };
  });

  await deleteMembers(trx, dialect, orgId, id, [...removedStored]);
  const inserted: readonly StoredMember[] = typedMembers([...added], types);
  // Positions only order the list, so the net additions take the next ones without gaps. A group
  // that has had a delta has a sequence, as `updateResourceRow` keeps it.
  const storedSeq = row.member_seq === null ? null : Number(row.member_seq);
  const memberSeq = (storedSeq ?? 0) + inserted.length;
  await insertMembers(trx, dialect, orgId, id, inserted, (storedSeq ?? 0) + 1);
  if (version !== storedVersion || memberSeq !== storedSeq) {
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

/**
 * How many member deltas of one group one transaction writes: at most 64, naming at most 20,000
 * ids between them (the router's default `maxMembers` for one request), so a batch holds the
 * group's lock — and SQLite's one writer — about as long as one large request would.
 */
const MEMBER_BATCH: BatchBounds<UpdateRequest> = {
  maxItems: 64,
  maxWeight: 20_000,
  weight: (request) => (request.membership?.kind === "delta" ? request.membership.add.length + request.membership.remove.length : 1),
};

/**
 * The SQL store's member deltas per group (`isBatchableMemberDelta`): what arrives for a group
 * while one of its batches is written goes together in the next (`keyedBatches`), in one
 * transaction with each request's events. A lone request, and every request of a batch that one
 * of them would make fail, is written by `alone`, so each gets exactly the answer it would have
 * had by itself (a 400 for its unknown members, the database's error) and the others still land.
 *
 * @example const deltas = memberDeltaBatches(db, dialect, now, updateAlone); await deltas.submit(request);
 */
export function memberDeltaBatches(
  db: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  now: () => string,
  alone: (request: UpdateRequest) => Promise<WriteResult | undefined>,
): { submit(request: UpdateRequest): Promise<WriteResult | undefined> } {
  const batches = keyedBatches<UpdateRequest, WriteResult | undefined>(async (requests) => {
    const [first] = requests;
    if (first === undefined) return [];
    if (requests.length === 1) return [await settle(alone(first))];
    try {
      const results = await writeAllWithEvents(
        db,
        dialect,
        now,
        first.orgId,
        requests.map((request) => request.events),
        (trx) => updateMembershipBatch(trx, dialect, requests),
        (result) => result,
      );
      return results.map((value) => ({ ok: true, value }));
    } catch {
      // Rolled back whole: each request written alone.
      const settled: Settled<WriteResult | undefined>[] = [];
      for (const request of requests) settled.push(await settle(alone(request)));
      return settled;
    }
  }, MEMBER_BATCH);
  return {
    submit(request) {
      // Length-prefixed, so no organization id can make two scopes' keys equal.
      return batches.submit(`${request.orgId.length}:${request.orgId}${request.resourceType}/${request.id}`, request);
    },
  };
}
