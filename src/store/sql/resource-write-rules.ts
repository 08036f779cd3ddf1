/**
 * What every write of the SQL resource store checks and derives: the version precondition, the
 * unknown-member policy, the members' types as stored, and the `externalId` column.
 */
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import type { MembershipPlan } from "../membership-plan.js";
import type { StoredMember, UnknownMemberPolicy } from "../resource-store.js";
import { preconditionFailedError, unknownMembersError } from "../store-errors.js";

/** Throws the 412 of a version that is not `expected`. */
export function assertVersion(version: number | string, expected: string | undefined): void {
  // RFC 7644 §3.14: a failed precondition is 412, and nothing is written.
  if (expected !== undefined && expected !== String(version)) throw preconditionFailedError();
}

/** Throws the 400 of unknown members under the `reject` policy. */
export function assertMembersAllowed(plan: MembershipPlan, policy: UnknownMemberPolicy): void {
  if (policy === "reject" && plan.ignored.length > 0) throw unknownMembersError(plan.ignored);
}

/** The members of `ids` that exist, each with the type it was found to be. */
export function typedMembers(ids: readonly string[], types: ReadonlyMap<string, string>): StoredMember[] {
  return ids.flatMap((value) => {
    const type = types.get(value);
    return type === undefined ? [] : [{ value, type }];
  });
}

/** The `external_id` column of `attributes`. */
export function externalIdOf(attributes: ScimObject): string | null {
  const value = attributes["externalId"];
  return typeof value === "string" ? value : null;
}
