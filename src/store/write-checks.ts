/**
 * The checks every built-in store makes before a write changes anything: the version precondition
 * and the unknown-member policy.
 */
import type { MembershipPlan } from "./membership-plan.js";
import type { UnknownMemberPolicy } from "./resource-store.js";
import { preconditionFailedError, unknownMembersError } from "./store-errors.js";

/** Throws the 412 of a version that is not `expected`. */
export function assertVersion(version: number | string, expected: string | undefined): void {
  // RFC 7644 §3.14: a failed precondition is 412, and nothing is written.
  if (expected !== undefined && expected !== String(version)) throw preconditionFailedError();
}

/** Throws the 400 of unknown members under the `reject` policy. */
export function assertMembersAllowed(plan: MembershipPlan, policy: UnknownMemberPolicy): void {
  if (policy === "reject" && plan.ignored.length > 0) throw unknownMembersError(plan.ignored);
}
