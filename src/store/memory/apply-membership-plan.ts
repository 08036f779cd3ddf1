/**
 * The memory store's half of a membership write: apply a planned change to a group's member set
 * in place, keeping the organization's reverse index (member → groups) in step.
 */
import type { MembershipPlan } from "../membership-plan.js";
import { linkMember, unlinkMember, type Organization } from "./organization.js";

/**
 * Applies `plan` to the member set of group `groupId` in place and keeps the organization's
 * reverse index in step. Members that stay keep their place and new ones go last, so the list
 * stays in the order members were added — a replacement included.
 */
export function applyMembershipPlan(organization: Organization, groupId: string, members: Set<string>, plan: MembershipPlan): void {
  for (const id of plan.removed) {
    members.delete(id);
    unlinkMember(organization, id, groupId);
  }
  for (const id of plan.added) {
    members.add(id);
    linkMember(organization, id, groupId);
  }
}
