/**
 * Each tolerance of architecture §4 switched off alone, in the core: the shape it tolerates is
 * refused as RFC 7643/7644 say, and every other tolerance still works — one definition per
 * switch, read where the tolerance is implemented.
 */
import { describe, expect, it } from "vitest";
import { compileFilter } from "../filter/resolve-filter.js";
import { applyPatch } from "../patch/apply-patch.js";
import {
  BABS,
  MANDY,
  PATCH_OP,
  deepFreeze,
  expectError,
  expectOk,
  groups,
  storedGroup,
  storedUser,
  users,
} from "../patch/patch.fixture.js";
import { normalizeResource } from "../schema/normalize-resource.js";
import { ENTERPRISE_URN, USER_URN, sampleUserBody } from "../sample-resources.fixture.js";
import type { Tolerances } from "./compatibility-profile.js";
import { ALL_TOLERANCES, COMPATIBILITY_PROFILES } from "./compatibility-profiles.js";

function without(tolerance: keyof Tolerances): Tolerances {
  return { ...ALL_TOLERANCES, [tolerance]: false };
}

function patch(...operations: unknown[]): unknown {
  return deepFreeze({ schemas: [PATCH_OP], Operations: operations });
}

describe("each tolerance switched off alone", () => {
  it("anyCaseOps: a capitalized op is invalidSyntax; lower case still works", () => {
    const body = patch({ op: "Replace", path: "title", value: "Guide" });
    expect(expectOk(applyPatch(users, storedUser(), body)).resource["title"]).toBe("Guide");
    const error = expectError(applyPatch(users, storedUser(), body, { tolerances: without("anyCaseOps") }), 400, "invalidSyntax");
    expect(error.detail).toContain('it is "Replace"');
    const lower = patch({ op: "replace", path: "title", value: "Guide" });
    expect(expectOk(applyPatch(users, storedUser(), lower, { tolerances: without("anyCaseOps") })).resource["title"]).toBe("Guide");
  });

  it("stringBooleans: refused in a body (invalidValue), a filter (invalidFilter) and a PATCH path (invalidPath)", () => {
    const tolerances = without("stringBooleans");
    const body = { ...sampleUserBody(), active: "False" };
    expect(expectOk(normalizeResource(users, body))["active"]).toBe(false);
    expect(expectError(normalizeResource(users, body, tolerances), 400, "invalidValue").detail).toContain('got "False"');
    expect(expectOk(compileFilter(users, 'active eq "True"'))).toMatchObject({ value: true });
    expect(expectError(compileFilter(users, 'active eq "True"', {}, tolerances), 400, "invalidFilter").detail).toContain('"True"');
    expect(expectOk(compileFilter(users, "active eq true", {}, tolerances))).toMatchObject({ value: true });
    const path = patch({ op: "replace", path: 'emails[primary eq "True"].value', value: "x@example.com" });
    expectError(applyPatch(users, storedUser(), path, { tolerances }), 400, "invalidPath");
  });

  it("removeByValue: a value array on remove is invalidSyntax, members loaded or not", () => {
    const tolerances = without("removeByValue");
    const body = patch({ op: "remove", path: "members", value: [{ value: BABS }] });
    expect(expectOk(applyPatch(groups, storedGroup(), body)).membership).toEqual({ kind: "delta", add: [], remove: [BABS] });
    expectError(applyPatch(groups, storedGroup(), body, { tolerances }), 400, "invalidSyntax");
    expectError(applyPatch(groups, storedGroup(), body, { tolerances, membersLoaded: false }), 400, "invalidSyntax");
    const emails = patch({ op: "remove", path: "emails", value: [{ value: "babs@jensen.org", type: "home" }] });
    expectError(applyPatch(users, storedUser(), emails, { tolerances }), 400, "invalidSyntax");
    const filtered = patch({ op: "remove", path: `members[value eq "${BABS}"]` });
    expect(expectOk(applyPatch(groups, storedGroup(), filtered, { tolerances })).membership).toEqual({
      kind: "delta",
      add: [],
      remove: [BABS],
    });
  });

  it("bareStringComplex and arrayOfOne: manager as a string or an array of one is invalidValue", () => {
    const bare = patch({ op: "add", path: `${ENTERPRISE_URN}:manager`, value: "m-1" });
    const array = patch({ op: "add", path: `${ENTERPRISE_URN}:manager`, value: [{ value: "m-1" }] });
    for (const body of [bare, array]) {
      expect(expectOk(applyPatch(users, storedUser(), body)).resource[ENTERPRISE_URN]).toMatchObject({ manager: { value: "m-1" } });
    }
    expectError(applyPatch(users, storedUser(), bare, { tolerances: without("bareStringComplex") }), 400, "invalidValue");
    expectOk(applyPatch(users, storedUser(), array, { tolerances: without("bareStringComplex") }));
    expectError(applyPatch(users, storedUser(), array, { tolerances: without("arrayOfOne") }), 400, "invalidValue");
    expectOk(applyPatch(users, storedUser(), bare, { tolerances: without("arrayOfOne") }));
    const element = patch({ op: "replace", path: 'emails[type eq "home"]', value: [{ value: "new@home.example" }] });
    expectError(applyPatch(users, storedUser(), element, { tolerances: without("arrayOfOne") }), 400, "invalidValue");
    const member = patch({ op: "add", path: `members[value eq "${MANDY}"]`, value: [{ value: MANDY }] });
    expectError(
      applyPatch(groups, storedGroup(), member, { tolerances: without("arrayOfOne"), membersLoaded: false }),
      400,
      "invalidValue",
    );
  });

  it("pathKeys: dotted, URN-qualified and filtered keys are invalidValue in a body and a path-less value; nested forms still work", () => {
    const tolerances = without("pathKeys");
    const body = { ...sampleUserBody(), "name.givenName": "Barb", [`${ENTERPRISE_URN}:department`]: "Sales" };
    const refused = expectError(normalizeResource(users, body, tolerances), 400, "invalidValue");
    expect(refused.issues.map((issue) => issue.path)).toEqual(["name.givenName", `${ENTERPRISE_URN}:department`]);
    for (const key of ["name.givenName", `${USER_URN}:title`, 'emails[type eq "work"].value']) {
      expectOk(applyPatch(users, storedUser(), patch({ op: "replace", value: { [key]: "x" } })));
      const error = expectError(
        applyPatch(users, storedUser(), patch({ op: "replace", value: { [key]: "x" } }), { tolerances }),
        400,
        "invalidValue",
      );
      expect(error.detail).toContain(key);
    }
    const nested = patch({ op: "replace", value: { name: { givenName: "Barb" }, [ENTERPRISE_URN]: { department: "Sales" } } });
    expect(expectOk(applyPatch(users, storedUser(), nested, { tolerances })).resource[ENTERPRISE_URN]).toMatchObject({
      department: "Sales",
    });
  });

  it("createOnNoMatch: add or replace on a filter matching nothing is noTarget", () => {
    const body = patch({ op: "replace", path: 'addresses[type eq "home"].country', value: "DE" });
    expect(expectOk(applyPatch(users, storedUser(), body)).resource["addresses"]).toContainEqual({ type: "home", country: "DE" });
    expectError(applyPatch(users, storedUser(), body, { tolerances: without("createOnNoMatch") }), 400, "noTarget");
    const matching = patch({ op: "replace", path: 'addresses[type eq "work"].country', value: "DE" });
    expectOk(applyPatch(users, storedUser(), matching, { tolerances: without("createOnNoMatch") }));
  });

  it("removeAbsent: a filter or value array finding nothing is noTarget; an unassigned attribute or what is there is removed", () => {
    const tolerances = without("removeAbsent");
    const absent = [
      { op: "remove", path: 'emails[type eq "other"]' },
      { op: "remove", path: 'emails[type eq "other"].display' },
      { op: "remove", path: "emails", value: [{ value: "nobody@example.com" }] },
    ];
    for (const operation of absent) {
      expectOk(applyPatch(users, storedUser(), patch(operation)));
      const error = expectError(applyPatch(users, storedUser(), patch(operation), { tolerances }), 400, "noTarget");
      expect(error.detail).toContain("matches no value to remove");
    }
    // RFC 7644 §3.5.2.2: an unassigned attribute or sub-attribute stays unassigned, with no error.
    const user = deepFreeze({ ...storedUser(), name: { givenName: "Barbara" } });
    for (const path of ["profileUrl", "x509Certificates", 'emails[type eq "home"].display', "name.middleName"]) {
      expectOk(applyPatch(users, user, patch({ op: "remove", path }), { tolerances }));
    }
    const removed = expectOk(applyPatch(users, storedUser(), patch({ op: "remove", path: "title" }), { tolerances }));
    expect(removed.resource).not.toHaveProperty("title");
    const absentMember = patch({ op: "remove", path: 'members[value eq "0190b3a0-0000-7000-8000-00000000dead"]' });
    expectError(applyPatch(groups, storedGroup(), absentMember, { tolerances }), 400, "noTarget");
    // Without the member list, absence cannot be told: the store's list is the authority.
    expectOk(applyPatch(groups, storedGroup(), absentMember, { tolerances, membersLoaded: false }));
  });

  it("foreignSchemaUrns: an unknown URN in schemas is invalidSyntax, in a body and a PatchOp", () => {
    const tolerances = without("foreignSchemaUrns");
    const body = { ...sampleUserBody(), schemas: [USER_URN, ENTERPRISE_URN, "urn:scim:schemas:core:1.0"] };
    expectOk(normalizeResource(users, body));
    expect(expectError(normalizeResource(users, body, tolerances), 400, "invalidSyntax").detail).toContain("urn:scim:schemas:core:1.0");
    expectOk(normalizeResource(users, { ...body, schemas: [USER_URN, ENTERPRISE_URN] }, tolerances));
    const message = { schemas: [PATCH_OP, "urn:scim:schemas:core:1.0"], Operations: [{ op: "replace", path: "title", value: "x" }] };
    expectOk(applyPatch(users, storedUser(), message));
    expectError(applyPatch(users, storedUser(), message, { tolerances }), 400, "invalidSyntax");
  });

  it("missingSchemas: a body or PatchOp without schemas is invalidSyntax", () => {
    const tolerances = without("missingSchemas");
    const { schemas: _schemas, ...body } = sampleUserBody();
    expectOk(normalizeResource(users, body));
    expectError(normalizeResource(users, body, tolerances), 400, "invalidSyntax");
    const message = { Operations: [{ op: "replace", path: "title", value: "x" }] };
    expectOk(applyPatch(users, storedUser(), message));
    expectError(applyPatch(users, storedUser(), message, { tolerances }), 400, "invalidSyntax");
  });
});

describe("the strict profile in the core", () => {
  it("accepts RFC 7644's own PATCH examples", () => {
    const { tolerances } = COMPATIBILITY_PROFILES.strict;
    const body = patch(
      { op: "add", path: "emails", value: [{ value: "babs@jensen.org", type: "home" }] },
      { op: "replace", path: 'addresses[type eq "work"].streetAddress', value: "1010 Broadway Ave" },
      { op: "remove", path: 'emails[type eq "home"]' },
      { op: "replace", value: { displayName: "Babs", active: false } },
    );
    const result = expectOk(applyPatch(users, storedUser(), body, { tolerances }));
    expect(result.resource).toMatchObject({ displayName: "Babs", active: false });
    expect(result.resource["emails"]).toEqual([{ value: "bjensen@example.com", type: "work", primary: true }]);
  });
});
