import { describe, expect, it } from "vitest";
import { COMPATIBILITY_PROFILES } from "../compatibility/compatibility-profiles.js";
import { applyPatch } from "./apply-patch.js";
import { type MembershipPatchOptions, membershipPatchStepwise } from "./membership-patch.js";
import type { MembershipDelta } from "./membership-delta.js";
import { parsePatchRequest } from "./patch-request.js";
import { BABS, JAMES, MANDY, expectOk, groups, patchBody, storedGroup, users } from "./patch.fixture.js";

const strict = COMPATIBILITY_PROFILES.strict.tolerances;

/** The delta `membershipPatchStepwise` reads from `body`, and how many times it paused. */
function fastDelta(
  body: unknown,
  options: MembershipPatchOptions = {},
  schema = groups,
): { delta: MembershipDelta | undefined; pauses: number } {
  const operations = expectOk(parsePatchRequest(body, undefined, options.tolerances));
  const run = membershipPatchStepwise(schema, operations, options);
  for (let pauses = 0; ; pauses += 1) {
    const next = run.next();
    if (next.done) return { delta: next.value, pauses };
  }
}

/** The engine's answer for `body` on the RFC 7643 §8.4 group read without its members. */
function engine(body: unknown, options: MembershipPatchOptions = {}) {
  const { members: _members, ...group } = storedGroup();
  return applyPatch(groups, group, body, { ...options, membersLoaded: false });
}

describe("membershipPatchStepwise", () => {
  it.each([
    ["add on members with an array", patchBody({ op: "add", path: "members", value: [{ value: JAMES }, { value: BABS }] })],
    ["add on Members, op in any case", patchBody({ op: "Add", path: "Members", value: [{ value: JAMES }] })],
    [
      "add on the URN-qualified path",
      patchBody({ op: "add", path: "urn:ietf:params:scim:schemas:core:2.0:Group:members", value: [{ value: JAMES }] }),
    ],
    ["remove by a value eq filter", patchBody({ op: "remove", path: `members[value eq "${BABS}"]` })],
    ["remove by a value array (Entra)", patchBody({ op: "remove", path: "members", value: [{ value: BABS }, { value: MANDY }] })],
    [
      "several operations, composed in order",
      patchBody(
        { op: "add", path: "members", value: [{ value: JAMES }, { value: BABS }] },
        { op: "remove", path: `members[value eq "${BABS}"]` },
        { op: "remove", path: "members", value: [{ value: MANDY }] },
        { op: "add", path: "members", value: [{ value: MANDY }] },
      ),
    ],
  ])("%s: the engine's delta, without the group", (_name, body) => {
    const { delta, pauses } = fastDelta(body);
    const expected = expectOk(engine(body));
    expect(expected.attributesChanged).toBe(false);
    expect(delta).toEqual(expected.membership);
    // A pause after each operation, as the engine makes (architecture §4b).
    expect(pauses).toBe((body as { Operations: unknown[] }).Operations.length);
  });

  it.each([
    ["a replace of the members", { op: "replace", path: "members", value: [{ value: JAMES }] }],
    ["a remove of every member", { op: "remove", path: "members" }],
    ["a path-less add of members", { op: "add", value: { members: [{ value: JAMES }] } }],
    ["an attribute", { op: "replace", path: "displayName", value: "Guides" }],
    ["an or of ids", { op: "remove", path: `members[value eq "${BABS}" or value eq "${MANDY}"]` }],
    ["another filter", { op: "remove", path: 'members[display eq "Babs"]' }],
    ["a sub-attribute", { op: "remove", path: `members[value eq "${BABS}"].display` }],
    ["an add by filter", { op: "add", path: `members[value eq "${JAMES}"]`, value: { value: JAMES } }],
    ["a single member object", { op: "add", path: "members", value: { value: JAMES } }],
    ["schemas", { op: "add", path: "schemas", value: ["urn:ietf:params:scim:schemas:core:2.0:Group"] }],
  ])("leaves %s to the engine, alone or after member operations", (_name, operation) => {
    expect(fastDelta(patchBody(operation)).delta).toBeUndefined();
    expect(fastDelta(patchBody({ op: "add", path: "members", value: [{ value: JAMES }] }, operation)).delta).toBeUndefined();
  });

  it("leaves a request that changes nothing to the engine, which skips the write", () => {
    expect(fastDelta(patchBody({ op: "add", path: "members", value: [] })).delta).toBeUndefined();
  });

  it("leaves a type without members to the engine", () => {
    expect(fastDelta(patchBody({ op: "add", path: "emails", value: [{ value: "a@example.com" }] }), {}, users).delta).toBeUndefined();
  });

  it.each([
    ["a member without value", patchBody({ op: "add", path: "members", value: [{ display: "James" }] }), {}],
    ["an id that is not a string", patchBody({ op: "add", path: "members", value: [{ value: 7 }] }), {}],
    [
      "more members than maxMembers",
      patchBody({ op: "add", path: "members", value: [{ value: JAMES }] }, { op: "remove", path: `members[value eq "${BABS}"]` }),
      { maxMembers: 1 },
    ],
    [
      "a value array remove the profile refuses",
      patchBody({ op: "remove", path: "members", value: [{ value: BABS }] }),
      { tolerances: strict },
    ],
    ["a filter over filterLimits", patchBody({ op: "remove", path: `members[value eq "${BABS}"]` }), { filterLimits: { maxLength: 10 } }],
  ])("leaves %s to the engine, which refuses it", (_name, body, options: MembershipPatchOptions) => {
    expect(engine(body, options).ok).toBe(false);
    expect(fastDelta(body, options).delta).toBeUndefined();
  });
});
