/**
 * Composes the membership delta of a PATCH operation by operation in time proportional to the ids
 * named (architecture §4b): `addMembers`/`removeMembers` copy the delta on every call, which a PATCH of
 * thousands of member operations would pay once per operation.
 */
import { noMembershipChange, type MembershipDelta } from "./membership-delta.js";

export interface MembershipDeltaBuilder {
  /** As `addMembers`: an id removed earlier is no longer removed. */
  add(ids: readonly string[]): void;
  /** As `removeMembers`: an id added earlier is no longer added. */
  remove(ids: readonly string[]): void;
  /** As `replaceMembers`: whatever came before is discarded. */
  replace(ids: readonly string[]): void;
  /** How many distinct ids the delta names so far (added, removed, or the replacement list). */
  readonly size: number;
  /** The composed delta, equal to composing the same calls with `addMembers`, `removeMembers` and `replaceMembers`. */
  build(): MembershipDelta;
}

/** A builder starting from `start` (default: no change). */
export function createMembershipDeltaBuilder(start: MembershipDelta = noMembershipChange): MembershipDeltaBuilder {
  // Sets keep insertion order and `add` leaves a present id where it is: the order the ids were first named.
  let replacing = start.kind === "replace";
  let added = new Set(start.kind === "replace" ? start.ids : start.add);
  const removed = new Set(start.kind === "replace" ? [] : start.remove);
  return {
    add: (ids) => {
      for (const id of ids) {
        added.add(id);
        removed.delete(id);
      }
    },
    remove: (ids) => {
      for (const id of ids) {
        added.delete(id);
        if (!replacing) removed.add(id);
      }
    },
    replace: (ids) => {
      replacing = true;
      added = new Set(ids);
      removed.clear();
    },
    get size() {
      return added.size + removed.size;
    },
    build: () => (replacing ? { kind: "replace", ids: [...added] } : { kind: "delta", add: [...added], remove: [...removed] }),
  };
}
