/**
 * Group membership changes as deltas (architecture §3): what a PATCH does to a group's member ids, so a
 * store applies "add these, remove those" or "replace with these" without loading or rewriting
 * the other members.
 */

/**
 * Either an incremental change (ids to add, ids to remove; disjoint) or a replacement of the whole
 * member list. Ids are service-assigned member ids (`members.value`), compared exactly, listed once
 * each in the order they were first named.
 */
export type MembershipDelta =
  | { readonly kind: "delta"; readonly add: readonly string[]; readonly remove: readonly string[] }
  | { readonly kind: "replace"; readonly ids: readonly string[] };

/** The delta that changes nothing: the start of a composition. */
export const noMembershipChange: MembershipDelta = { kind: "delta", add: [], remove: [] };

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

function without(ids: readonly string[], removed: readonly string[]): string[] {
  const drop = new Set(removed);
  return ids.filter((id) => !drop.has(id));
}

/** `delta` followed by adding `ids`: an id removed earlier is no longer removed. */
export function addMembers(delta: MembershipDelta, ids: readonly string[]): MembershipDelta {
  if (delta.kind === "replace") return { kind: "replace", ids: unique([...delta.ids, ...ids]) };
  return { kind: "delta", add: unique([...delta.add, ...ids]), remove: without(delta.remove, ids) };
}

/** `delta` followed by removing `ids`: an id added earlier is no longer added. */
export function removeMembers(delta: MembershipDelta, ids: readonly string[]): MembershipDelta {
  if (delta.kind === "replace") return { kind: "replace", ids: without(delta.ids, ids) };
  return { kind: "delta", add: without(delta.add, ids), remove: unique([...delta.remove, ...ids]) };
}

/** Replacing the member list discards whatever came before it. */
export function replaceMembers(ids: readonly string[]): MembershipDelta {
  return { kind: "replace", ids: unique(ids) };
}

/** `first` followed by `second`, as one delta. */
export function composeMembershipDeltas(first: MembershipDelta, second: MembershipDelta): MembershipDelta {
  if (second.kind === "replace") return second;
  return addMembers(removeMembers(first, second.remove), second.add);
}

/** Whether applying `delta` to any member list would leave it unchanged. */
export function isEmptyMembershipDelta(delta: MembershipDelta): boolean {
  return delta.kind === "delta" && delta.add.length === 0 && delta.remove.length === 0;
}

/**
 * The member ids after `delta`: `currentIds` minus the removed ones, then the added ones that were
 * not members yet, in order. What a store does in SQL, spelled out for tests and memory stores.
 */
export function applyMembershipDelta(currentIds: readonly string[], delta: MembershipDelta): string[] {
  if (delta.kind === "replace") return unique(delta.ids);
  const kept = without(unique(currentIds), delta.remove);
  const present = new Set(kept);
  return [...kept, ...delta.add.filter((id) => !present.has(id))];
}
