import { describe, expect, it } from "vitest";
import { unwrap } from "../../result.js";
import { parsePatchPath } from "../path/parse-patch-path.js";
import type { ScimObject } from "../schema/normalize-value.js";
import { applyMemberOperation } from "./apply-member-operation.js";
import { createMembershipDeltaBuilder } from "./membership-delta-builder.js";
import { applyPatch } from "./apply-patch.js";
import { applyMembershipDelta, noMembershipChange, type MembershipDelta } from "./membership-delta.js";
import type { PatchOpName } from "./patch-request.js";
import type { PatchStep } from "./patch-step.js";
import { BABS, JAMES, MANDY, expectOk, groups, patchBody, storedGroup } from "./patch.fixture.js";

function step(op: PatchOpName, path: string, value?: unknown): PatchStep {
  return { op, path: unwrap(parsePatchPath(groups, path)), hasValue: value !== undefined, value, origin: "Operations[0]" };
}

/** The delta one member step composes onto `start`. */
function memberDelta(resource: ScimObject, patchStep: PatchStep, start: MembershipDelta, loaded: boolean): MembershipDelta {
  const builder = createMembershipDeltaBuilder(start);
  applyMemberOperation(resource, patchStep, builder, loaded);
  return builder.build();
}

function memberIds(group: ScimObject): string[] {
  return ((group["members"] ?? []) as { value: string }[]).map((member) => member.value);
}

describe("applyMemberOperation", () => {
  it("updates a loaded member list and reports the delta", () => {
    const resource: ScimObject = { ...storedGroup() };
    const delta = memberDelta(resource, step("add", "members", [{ value: JAMES }, { value: BABS }]), noMembershipChange, true);
    expect(delta).toEqual({ kind: "delta", add: [JAMES, BABS], remove: [] });
    expect(memberIds(resource)).toEqual([BABS, MANDY, JAMES]);
  });

  it("leaves the resource alone when members are not loaded", () => {
    const resource: ScimObject = { displayName: "Tour Guides" };
    const delta = memberDelta(resource, step("remove", `members[value eq "${BABS}" or value eq "${JAMES}"]`), noMembershipChange, false);
    expect(delta).toEqual({ kind: "delta", add: [], remove: [BABS, JAMES] });
    expect(resource).toEqual({ displayName: "Tour Guides" });
  });

  it("composes onto the delta it is given", () => {
    const resource: ScimObject = {};
    const afterAdd = memberDelta(resource, step("add", "members", { value: JAMES }), noMembershipChange, false);
    const afterRemove = memberDelta(resource, step("remove", `members[value eq "${JAMES}"]`), afterAdd, false);
    expect(afterRemove).toEqual({ kind: "delta", add: [], remove: [JAMES] });
  });

  it("accepts a bare id as a member value", () => {
    const delta = memberDelta({}, step("add", "members", [JAMES]), noMembershipChange, false);
    expect(delta).toEqual({ kind: "delta", add: [JAMES], remove: [] });
  });

  it("adds a member named by a filter with no match, on loaded and unloaded groups", () => {
    const loaded: ScimObject = { ...storedGroup() };
    const path = `members[value eq "${JAMES}"]`;
    expect(memberDelta(loaded, step("replace", path, { type: "User" }), noMembershipChange, true)).toEqual({
      kind: "delta",
      add: [JAMES],
      remove: [],
    });
    expect(memberIds(loaded)).toEqual([BABS, MANDY, JAMES]);
    expect(memberDelta({}, step("replace", path, { type: "User" }), noMembershipChange, false)).toEqual({
      kind: "delta",
      add: [JAMES],
      remove: [],
    });
  });
});

describe("loaded and unloaded groups agree", () => {
  const bodies: readonly unknown[] = [
    patchBody({ op: "add", path: "members", value: [{ value: JAMES }] }),
    patchBody({ op: "remove", path: `members[value eq "${BABS}"]` }),
    patchBody({ op: "Remove", path: "members", value: [{ value: MANDY }, { value: "not-a-member" }] }),
    patchBody({ op: "remove", path: "members" }, { op: "add", path: "members", value: [{ value: JAMES }] }),
    patchBody(
      { op: "replace", path: "members", value: [{ value: JAMES }, { value: BABS }] },
      { op: "remove", path: `members[value eq "${BABS}"]` },
    ),
    patchBody({ op: "add", value: { members: [{ value: JAMES }], displayName: "Guides" } }),
    patchBody({ op: "add", path: "members", value: [{ value: JAMES }] }, { op: "remove", path: `members[value eq "${JAMES}"]` }),
    patchBody({ op: "replace", path: `members[value eq "${BABS}"]`, value: null }),
    patchBody({ op: "Add", path: `members[value eq "${JAMES}"]`, value: [{ value: JAMES, type: "User" }] }),
    patchBody({ op: "replace", path: `members[value eq "${BABS}"].type`, value: "User" }),
  ];

  it.each(bodies.map((body, index) => [index, body] as const))(
    "body %i gives one delta, and the delta gives the loaded result",
    (_, body) => {
      const loaded = expectOk(applyPatch(groups, storedGroup(), body));
      const unloaded = expectOk(applyPatch(groups, storedGroup(), body, { membersLoaded: false }));
      expect(unloaded.membership).toEqual(loaded.membership);
      expect(unloaded.resource).not.toHaveProperty("members");
      expect(applyMembershipDelta(memberIds(storedGroup()), loaded.membership!)).toEqual(memberIds(loaded.resource));
    },
  );
});
