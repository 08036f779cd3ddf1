/**
 * Group membership as one key per (group, member) pair plus a reverse key per (member, group)
 * (architecture §3). A delta reads and writes only the pairs it names, so adding one member to a group
 * of 100,000 costs a handful of keys; the reverse keys let a delete find the groups that list a
 * resource without scanning every group.
 *
 * Writes come in two steps, plan then apply, so that every check (unknown ids under the reject
 * policy) happens before the first key is written.
 */
import type { MembershipChange, StoredMember } from "scimkit/store";
import type { MembershipDelta } from "scimkit/core";
import type { KeyValueBackend } from "./key-value-backend.js";
import { keys } from "./key-layout.js";

/** The JSON value of a `mem:` pair: who the member is, and where it goes in the list. */
interface MemberPair {
  readonly value: string;
  /** The member's resource type, found once when it was added, so listing members needs no lookups. */
  readonly type: string;
  readonly position: number;
}

/** What a membership write will do, with the type of every member it adds. */
export interface MembershipPlan extends MembershipChange {
  readonly addedMembers: readonly StoredMember[];
}

/** Whether a plan changes the member list (and so the group's version). */
export function changesMembers(plan: MembershipPlan): boolean {
  return plan.added.length > 0 || plan.removed.length > 0;
}

/** The members of a group in the order they were added. Reads every pair: only for requests that want members. */
export async function readMembers(backend: KeyValueBackend, orgId: string, groupId: string): Promise<StoredMember[]> {
  const pairs: MemberPair[] = [];
  for await (const [, value] of backend.scan(keys.members(orgId, groupId))) pairs.push(JSON.parse(value) as MemberPair);
  return pairs.sort((a, b) => a.position - b.position).map(({ value, type }) => ({ value, type }));
}

/**
 * Plans `delta` on group `groupId`. An id to add must name a resource of the organization (one
 * `type:` lookup), else it is ignored; an id to remove need not, since removing an absent value
 * succeeds (architecture §4). An incremental delta reads only the pairs it names; a replacement reads
 * the current list once, because it must report what it removes.
 */
export async function planMembership(
  backend: KeyValueBackend,
  orgId: string,
  groupId: string,
  delta: MembershipDelta,
): Promise<MembershipPlan> {
  const isMember = async (id: string): Promise<boolean> => (await backend.get(keys.member(orgId, groupId, id))) !== undefined;
  const added: StoredMember[] = [];
  const ignored: string[] = [];
  const consider = async (id: string, isNew: (id: string) => Promise<boolean>): Promise<void> => {
    const type = await backend.get(keys.typeOf(orgId, id));
    if (type === undefined) ignored.push(id);
    else if (await isNew(id)) added.push({ value: id, type });
  };

  if (delta.kind === "replace") {
    const current = new Set((await readMembers(backend, orgId, groupId)).map((member) => member.value));
    const named = new Set(delta.ids);
    for (const id of named) await consider(id, async () => !current.has(id));
    const removed = [...current].filter((id) => !named.has(id));
    return { added: added.map((member) => member.value), addedMembers: added, removed, ignored };
  }

  const removed: string[] = [];
  for (const id of new Set(delta.remove)) if (await isMember(id)) removed.push(id);
  // Removal comes first, as in `applyMembershipDelta`, so an id both removed and added ends up a member.
  const dropped = new Set(removed);
  for (const id of new Set(delta.add)) await consider(id, async () => dropped.has(id) || !(await isMember(id)));
  return { added: added.map((member) => member.value), addedMembers: added, removed, ignored };
}

/**
 * Writes `plan` for group `groupId`: deletes the removed pairs, writes the added ones at
 * `nextPosition` onwards, and keeps the reverse keys in step. Returns the next free position.
 */
export async function applyMembership(
  backend: KeyValueBackend,
  orgId: string,
  groupId: string,
  plan: MembershipPlan,
  nextPosition: number,
): Promise<number> {
  for (const id of plan.removed) await unlink(backend, orgId, groupId, id);
  let position = nextPosition;
  for (const member of plan.addedMembers) {
    const pair: MemberPair = { value: member.value, type: member.type, position: position++ };
    await backend.set(keys.member(orgId, groupId, member.value), JSON.stringify(pair));
    await backend.set(keys.groupOf(orgId, member.value, groupId), groupId);
  }
  return position;
}

/** Removes one (group, member) pair in both directions. */
export async function unlink(backend: KeyValueBackend, orgId: string, groupId: string, memberId: string): Promise<void> {
  await backend.delete(keys.member(orgId, groupId, memberId));
  await backend.delete(keys.groupOf(orgId, memberId, groupId));
}

/** The ids of the groups that list `memberId`, from the reverse keys. */
export async function groupsListing(backend: KeyValueBackend, orgId: string, memberId: string): Promise<string[]> {
  const groupIds: string[] = [];
  for await (const [, groupId] of backend.scan(keys.groupsOf(orgId, memberId))) groupIds.push(groupId);
  return groupIds;
}

/** The ids of the members of `groupId`, without sorting them: for deleting a group. */
export async function memberIdsOf(backend: KeyValueBackend, orgId: string, groupId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const [, value] of backend.scan(keys.members(orgId, groupId))) ids.push((JSON.parse(value) as MemberPair).value);
  return ids;
}
