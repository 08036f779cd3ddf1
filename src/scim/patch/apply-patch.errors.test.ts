/**
 * Every malformed request answers the right status and scimType (RFC 7644 §3.12), and leaves the
 * deep-frozen inputs exactly as they were.
 */
import { describe, expect, it } from "vitest";
import type { ScimObject } from "../schema/normalize-value.js";
import type { ResourceSchema } from "../schema/schema-registry.js";
import { applyPatch, type ApplyPatchOptions } from "./apply-patch.js";
import { BABS, PATCH_OP, deepFreeze, expectError, groups, patchBody, storedGroup, storedUser, users } from "./patch.fixture.js";

interface Case {
  readonly name: string;
  readonly body: unknown;
  readonly scimType: string;
  /** Words the detail must contain. */
  readonly mentions?: readonly string[];
  readonly schema?: ResourceSchema;
  readonly resource?: () => ScimObject;
  readonly options?: ApplyPatchOptions;
}

function expectFailure({ body, scimType, mentions = [], schema = users, resource = storedUser, options }: Case): void {
  const input = resource();
  const frozenBody = deepFreeze(body);
  const snapshot = structuredClone({ input, body: frozenBody });
  const error = expectError(applyPatch(schema, input, frozenBody, options), 400, scimType);
  for (const mention of mentions) expect(error.detail).toContain(mention);
  expect({ input, body: frozenBody }).toEqual(snapshot);
}

describe("malformed messages answer invalidSyntax", () => {
  const cases: Case[] = [
    { name: "a body that is not an object", body: [{ op: "add" }], scimType: "invalidSyntax" },
    { name: "a null body", body: null, scimType: "invalidSyntax" },
    { name: "no Operations", body: { schemas: [PATCH_OP] }, scimType: "invalidSyntax", mentions: ["Operations"] },
    { name: "empty Operations", body: { schemas: [PATCH_OP], Operations: [] }, scimType: "invalidSyntax", mentions: ["one or more"] },
    { name: "Operations not an array", body: { schemas: [PATCH_OP], Operations: { op: "add" } }, scimType: "invalidSyntax" },
    {
      name: "schemas without the PatchOp URN",
      body: { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], Operations: [{ op: "remove", path: "title" }] },
      scimType: "invalidSyntax",
      mentions: [PATCH_OP],
    },
    {
      name: "schemas not an array of strings",
      body: { schemas: PATCH_OP, Operations: [{ op: "remove", path: "title" }] },
      scimType: "invalidSyntax",
    },
    {
      name: "an operation that is not an object",
      body: { schemas: [PATCH_OP], Operations: [{ op: "remove", path: "title" }, "remove"] },
      scimType: "invalidSyntax",
      mentions: ["Operations[1]"],
    },
    {
      name: "an unknown op",
      body: {
        schemas: [PATCH_OP],
        Operations: [
          { op: "remove", path: "title" },
          { op: "move", path: "title" },
        ],
      },
      scimType: "invalidSyntax",
      mentions: ["Operations[1]", '"move"'],
    },
    {
      name: "a missing op",
      body: { schemas: [PATCH_OP], Operations: [{ path: "title", value: "x" }] },
      scimType: "invalidSyntax",
      mentions: ["Operations[0].op", "missing"],
    },
    {
      name: "a non-string op",
      body: { schemas: [PATCH_OP], Operations: [{ op: 1, path: "title" }] },
      scimType: "invalidSyntax",
      mentions: ["Operations[0].op"],
    },
  ];
  it.each(cases)("$name", (testCase) => expectFailure(testCase));
});

describe("bad paths answer invalidPath, and remove without a path noTarget", () => {
  const cases: Case[] = [
    {
      name: "a path that is not a string",
      body: patchBody({ op: "remove", path: 42 }),
      scimType: "invalidPath",
      mentions: ["Operations[0].path"],
    },
    {
      name: "an unknown attribute",
      body: patchBody({ op: "replace", path: "shoeSize", value: "9" }),
      scimType: "invalidPath",
      mentions: ["shoeSize"],
    },
    {
      name: "an unknown sub-attribute after a filter",
      body: patchBody({ op: "replace", path: 'emails[type eq "work"].label', value: "x" }),
      scimType: "invalidPath",
      mentions: ["label"],
    },
    { name: "an unclosed filter", body: patchBody({ op: "remove", path: 'emails[type eq "work"' }), scimType: "invalidPath" },
    { name: "a filter that does not parse", body: patchBody({ op: "remove", path: "emails[type eq]" }), scimType: "invalidPath" },
    {
      name: "a filter on a single-valued attribute",
      body: patchBody({ op: "remove", path: 'name[givenName eq "x"]' }),
      scimType: "invalidPath",
    },
    { name: "a filter on a simple attribute", body: patchBody({ op: "remove", path: 'userName[value eq "x"]' }), scimType: "invalidPath" },
    {
      name: "a path in the second operation",
      body: patchBody({ op: "replace", path: "title", value: "x" }, { op: "remove", path: "nope" }),
      scimType: "invalidPath",
      mentions: ["Operations[1]", "nope"],
    },
    { name: "remove without path (RFC 7644 §3.5.2.2)", body: patchBody({ op: "remove" }), scimType: "noTarget" },
    { name: "remove with a blank path", body: patchBody({ op: "remove", path: "  " }), scimType: "noTarget" },
  ];
  it.each(cases)("$name", (testCase) => expectFailure(testCase));
});

describe("missing or ill-typed values answer invalidValue", () => {
  const cases: Case[] = [
    {
      name: "add without value",
      body: patchBody({ op: "add", path: "title" }),
      scimType: "invalidValue",
      mentions: ["Operations[0]", "value"],
    },
    { name: "replace without value", body: patchBody({ op: "replace", path: "title" }), scimType: "invalidValue" },
    { name: "path-less add without value", body: patchBody({ op: "add" }), scimType: "invalidValue" },
    { name: "path-less replace with a non-object value", body: patchBody({ op: "replace", value: "Babs" }), scimType: "invalidValue" },
    {
      name: "a boolean that is no boolean",
      body: patchBody({ op: "replace", path: "active", value: "maybe" }),
      scimType: "invalidValue",
      mentions: ["active", "boolean"],
    },
    {
      name: "a string attribute given an object",
      body: patchBody({ op: "replace", path: "userName", value: { value: "x" } }),
      scimType: "invalidValue",
      mentions: ["userName"],
    },
    {
      name: "an ill-typed element in a multi-valued add",
      body: patchBody({ op: "add", path: "emails", value: [{ value: 5, type: "work" }] }),
      scimType: "invalidValue",
      mentions: ["emails[0].value"],
    },
    {
      name: "every ill-typed attribute of a path-less value, listed at once",
      body: patchBody({ op: "replace", value: { active: "sometimes", "name.givenName": 7 } }),
      scimType: "invalidValue",
      mentions: ["active", "name.givenName"],
    },
    {
      name: "two primary values in one add",
      body: patchBody({
        op: "add",
        path: "emails",
        value: [
          { value: "a@x", primary: true },
          { value: "b@x", primary: true },
        ],
      }),
      scimType: "invalidValue",
      mentions: ["primary"],
    },
    {
      name: "a filtered replace that makes two values primary",
      body: patchBody({ op: "replace", path: 'emails[value ew "e"].primary', value: true }),
      scimType: "invalidValue",
      resource: () => deepFreeze({ ...storedUser(), emails: [{ value: "a@one" }, { value: "b@one" }] }),
      mentions: ["primary"],
    },
    {
      name: "a member without value",
      schema: groups,
      resource: storedGroup,
      body: patchBody({ op: "add", path: "members", value: [{ display: "Babs" }] }),
      scimType: "invalidValue",
      mentions: ["members[0].value"],
    },
    {
      name: "an Entra member removal without value",
      schema: groups,
      resource: storedGroup,
      body: patchBody({ op: "Remove", path: "members", value: [{ $ref: null }] }),
      scimType: "invalidValue",
    },
    {
      name: "a member without value on an unloaded group",
      schema: groups,
      resource: storedGroup,
      options: { membersLoaded: false },
      body: patchBody({ op: "replace", path: "members", value: [{ value: BABS }, { type: "User" }] }),
      scimType: "invalidValue",
      mentions: ["members[1].value"],
    },
  ];
  it.each(cases)("$name", (testCase) => expectFailure(testCase));
});

describe("mutability (RFC 7644 §3.5.2, §3.5.2.2)", () => {
  const cases: Case[] = [
    { name: "replace id", body: patchBody({ op: "replace", path: "id", value: "new-id" }), scimType: "mutability", mentions: ["id"] },
    { name: "remove meta", body: patchBody({ op: "remove", path: "meta" }), scimType: "mutability" },
    {
      name: "replace meta.version",
      body: patchBody({ op: "replace", path: "meta.version", value: 'W/"1"' }),
      scimType: "mutability",
      mentions: ["meta.version"],
    },
    {
      name: "add groups",
      body: patchBody({ op: "add", path: "groups", value: [{ value: "g1" }] }),
      scimType: "mutability",
      mentions: ["groups"],
    },
    {
      name: "the readOnly manager displayName",
      body: patchBody({
        op: "replace",
        path: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.displayName",
        value: "X",
      }),
      scimType: "mutability",
    },
    {
      name: "remove the required userName",
      body: patchBody({ op: "remove", path: "userName" }),
      scimType: "mutability",
      mentions: ["userName", "required"],
    },
    { name: "replace userName with null", body: patchBody({ op: "replace", path: "userName", value: null }), scimType: "mutability" },
    {
      name: "path-less replace of userName with null",
      body: patchBody({ op: "replace", value: { userName: null } }),
      scimType: "mutability",
    },
    {
      name: "remove the group's required displayName",
      schema: groups,
      resource: storedGroup,
      body: patchBody({ op: "remove", path: "displayName" }),
      scimType: "mutability",
    },
    {
      name: "change a member's immutable value",
      schema: groups,
      resource: storedGroup,
      body: patchBody({ op: "replace", path: `members[value eq "${BABS}"].value`, value: "someone-else" }),
      scimType: "mutability",
      mentions: ["members.value", "immutable"],
    },
    {
      name: "replace a member with another id",
      schema: groups,
      resource: storedGroup,
      body: patchBody({ op: "replace", path: `members[value eq "${BABS}"]`, value: { value: "someone-else" } }),
      scimType: "mutability",
    },
    {
      name: "remove a member's value",
      schema: groups,
      resource: storedGroup,
      body: patchBody({ op: "remove", path: `members[value eq "${BABS}"].value` }),
      scimType: "mutability",
    },
    {
      name: "change a member's type",
      schema: groups,
      resource: storedGroup,
      body: patchBody({ op: "replace", path: `members[value eq "${BABS}"].type`, value: "Group" }),
      scimType: "mutability",
    },
    {
      name: "a member's readOnly display",
      schema: groups,
      resource: storedGroup,
      body: patchBody({ op: "replace", path: `members[value eq "${BABS}"].display`, value: "B" }),
      scimType: "mutability",
    },
    {
      name: "another id for a member of an unloaded group",
      schema: groups,
      resource: storedGroup,
      options: { membersLoaded: false },
      body: patchBody({ op: "replace", path: `members[value eq "${BABS}"].value`, value: "someone-else" }),
      scimType: "mutability",
    },
  ];
  it.each(cases)("$name", (testCase) => expectFailure(testCase));
});

describe("filters that select nothing usable", () => {
  const cases: Case[] = [
    {
      name: "a replace whose non-eq filter matches nothing",
      body: patchBody({ op: "replace", path: 'emails[value co "nowhere"].type', value: "other" }),
      scimType: "noTarget",
      mentions: ["Operations[0]"],
    },
    {
      name: "an add whose or-filter matches nothing",
      body: patchBody({ op: "add", path: 'emails[type eq "a" or type eq "b"]', value: { value: "x@y" } }),
      scimType: "noTarget",
    },
    {
      name: "a filter with contradicting equalities",
      body: patchBody({ op: "replace", path: 'emails[type eq "a" and type eq "b"].value', value: "x@y" }),
      scimType: "noTarget",
    },
    {
      name: "a member filter not by id on an unloaded group",
      schema: groups,
      resource: storedGroup,
      options: { membersLoaded: false },
      body: patchBody({ op: "remove", path: 'members[display eq "Babs Jensen"]' }),
      scimType: "invalidFilter",
      mentions: ["not loaded", "members[value eq"],
    },
    {
      name: "a member sub-attribute path without filter on an unloaded group",
      schema: groups,
      resource: storedGroup,
      options: { membersLoaded: false },
      body: patchBody({ op: "replace", path: "members.type", value: "User" }),
      scimType: "invalidPath",
      mentions: ["not loaded"],
    },
  ];
  it.each(cases)("$name", (testCase) => expectFailure(testCase));
});

describe("atomicity (RFC 7644 §3.5.2)", () => {
  it("fails the whole patch when a later operation fails, returning no partial resource", () => {
    const user = storedUser();
    const result = applyPatch(
      users,
      user,
      patchBody(
        { op: "replace", path: "displayName", value: "Changed" },
        { op: "add", path: "emails", value: [{ value: "new@example.com" }] },
        { op: "replace", path: "id", value: "hijacked" },
      ),
    );
    const error = expectError(result, 400, "mutability");
    expect(error.detail).toContain("Operations[2]");
    expect(user["displayName"]).toBe("Babs Jensen");
    expect(user["emails"]).toEqual(storedUser()["emails"]);
  });

  it("returns errors instead of throwing, whatever the body", () => {
    for (const body of [undefined, 42, "PATCH", { Operations: [null] }, { Operations: [{ op: "add", path: "emails", value: [[]] }] }]) {
      expect(() => applyPatch(users, storedUser(), body)).not.toThrow();
      expect(applyPatch(users, storedUser(), body).ok).toBe(false);
    }
  });
});
