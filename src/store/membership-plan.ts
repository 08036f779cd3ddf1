/**
 * Membership writes in two steps, so a write can fail without leaving anything half done: plan
 * the change against the current member set (reading only the ids the delta names), then apply
 * it — in place in memory, as row inserts and deletes in SQL. A delta therefore costs the size of the delta, never the size of the group
 * (architecture §3).
 */
import type { MembershipDelta } from "../scim/patch/membership-delta.js";
import type { MembershipChange } from "./resource-store.js";

/** What a membership write will do: the `MembershipChange` it reports, before anything is written. */
export type MembershipPlan = MembershipChange;

/** Whether a plan changes the member list at all. */
export function changesMembers(plan: MembershipPlan): boolean {
  return plan.added.length > 0 || plan.removed.length > 0;
}

/**
 * Plans `delta` against `current`. Ids that `isKnown` rejects are ignored rather than added; ids to
 * remove need not be known, since removing an absent value succeeds (architecture §4). An incremental
 * delta reads only the ids it names; a replacement reads the current list once, to report what
 * it removes.
 */
export function planMembership(current: ReadonlySet<string>, delta: MembershipDelta, isKnown: (id: string) => boolean): MembershipPlan {
  const added: string[] = [];
  const ignored: string[] = [];
  const named = new Set<string>();
  const consider = (id: string, isNew: boolean): void => {
    if (named.has(id)) return;
    named.add(id);
    if (!isKnown(id)) ignored.push(id);
    else if (isNew) added.push(id);
  };

  if (delta.kind === "replace") {
    for (const id of delta.ids) consider(id, !current.has(id));
    const removed: string[] = [];
    for (const id of current) if (!named.has(id)) removed.push(id);
    return { added, removed, ignored };
  }

  const removed: string[] = [];
  const dropped = new Set<string>();
  for (const id of delta.remove) {
    if (current.has(id) && !dropped.has(id)) {
      dropped.add(id);
      removed.push(id);
    }
  }
  // Removal comes first, as in `applyMembershipDelta`, so an id both removed and added ends up a member.
  for (const id of delta.add) consider(id, !current.has(id) || dropped.has(id));
  return { added, removed, ignored };
}
