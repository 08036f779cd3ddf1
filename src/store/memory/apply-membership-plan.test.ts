import { describe, expect, it } from "vitest";
import { applyMembershipDelta } from "../../scim/patch/membership-delta.js";
import { planMembership } from "../membership-plan.js";
import { applyMembershipPlan } from "./apply-membership-plan.js";
import { createOrganization } from "./organization.js";

const known = (id: string): boolean => !id.startsWith("ghost");

describe("applyMembershipPlan", () => {
  it("changes the set in place, as applyMembershipDelta says a delta does, and keeps the reverse index", () => {
    const organization = createOrganization();
    const members = new Set<string>();
    const delta = { kind: "delta", add: ["a", "b", "c"], remove: [] } as const;
    applyMembershipPlan(organization, "g1", members, planMembership(members, delta, known));
    const next = { kind: "delta", add: ["d", "a"], remove: ["b"] } as const;
    const expected = applyMembershipDelta([...members], next);
    const same = members;
    applyMembershipPlan(organization, "g1", members, planMembership(members, next, known));

    expect(members).toBe(same);
    expect([...members]).toEqual(expected);
    expect(organization.groupsOfMember.get("a")).toEqual(new Set(["g1"]));
    expect(organization.groupsOfMember.has("b")).toBe(false);
  });

  it("keeps members that stay in place on a replacement and appends the new ones", () => {
    const organization = createOrganization();
    const members = new Set(["a", "b", "c"]);
    applyMembershipPlan(organization, "g1", members, planMembership(members, { kind: "replace", ids: ["d", "c", "a"] }, known));
    expect([...members]).toEqual(["a", "c", "d"]);
  });
});
