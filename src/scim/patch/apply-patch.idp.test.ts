/**
 * One test per identity-provider tolerance of architecture §4, each with a request body in the shape the
 * provider documents or is known to send.
 */
import { describe, expect, it } from "vitest";
import { ENTERPRISE_URN, USER_URN } from "../sample-resources.fixture.js";
import { applyPatch } from "./apply-patch.js";
import { BABS, MANDY, PATCH_OP, deepFreeze, expectOk, groups, storedGroup, storedUser, users } from "./patch.fixture.js";

/** A user as Entra creates it: no work e-mail, address or role yet. */
function bareUser() {
  return deepFreeze({
    schemas: [USER_URN],
    id: "6764549bef60420686bc",
    userName: "Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1",
    active: true,
    name: { givenName: "Test", familyName: "User" },
  });
}

/** A group whose members were not loaded (`excludedAttributes=members`). */
function groupWithoutMembers() {
  const { members: _members, ...group } = storedGroup();
  return deepFreeze(group);
}

describe("Microsoft Entra ID", () => {
  it("Microsoft Entra ID: capitalized ops", () => {
    // learn.microsoft.com "Develop and plan provisioning for a SCIM endpoint": Update User [Multi-valued properties].
    const body = deepFreeze({
      schemas: [PATCH_OP],
      Operations: [
        { op: "Replace", path: 'emails[type eq "work"].value', value: "updatedEmail@microsoft.com" },
        { op: "Replace", path: "name.familyName", value: "updatedFamilyName" },
        { op: "Add", path: "nickName", value: "Babs" },
        { op: "Remove", path: "title" },
      ],
    });
    const result = expectOk(applyPatch(users, storedUser(), body));
    expect(result.resource["emails"]).toEqual([
      { value: "updatedEmail@microsoft.com", type: "work", primary: true },
      { value: "babs@jensen.org", type: "home" },
    ]);
    expect(result.resource["name"]).toMatchObject({ familyName: "updatedFamilyName" });
    expect(result.resource).not.toHaveProperty("title");
  });

  it('Entra: "True"/"False" strings for booleans', () => {
    const body = deepFreeze({
      schemas: [PATCH_OP],
      Operations: [
        { op: "Replace", path: "active", value: "False" },
        { op: "Replace", path: 'emails[type eq "home"].primary', value: "True" },
      ],
    });
    const result = expectOk(applyPatch(users, storedUser(), body));
    expect(result.resource["active"]).toBe(false);
    expect(result.resource["emails"]).toEqual([
      { value: "bjensen@example.com", type: "work", primary: false },
      { value: "babs@jensen.org", type: "home", primary: true },
    ]);
  });

  it("Entra: member removal as path members with a value array", () => {
    // learn.microsoft.com "Develop and plan provisioning for a SCIM endpoint": Update Group [Remove Members].
    const body = deepFreeze({
      schemas: [PATCH_OP],
      Operations: [{ op: "Remove", path: "members", value: [{ $ref: null, value: BABS }] }],
    });
    const loaded = expectOk(applyPatch(groups, storedGroup(), body));
    expect(loaded.resource["members"]).toEqual([{ value: MANDY, $ref: `https://example.com/v2/Users/${MANDY}`, type: "User" }]);
    expect(loaded.membership).toEqual({ kind: "delta", add: [], remove: [BABS] });

    const unloaded = expectOk(applyPatch(groups, groupWithoutMembers(), body, { membersLoaded: false }));
    expect(unloaded.resource).not.toHaveProperty("members");
    expect(unloaded.membership).toEqual({ kind: "delta", add: [], remove: [BABS] });
    expect(unloaded.changed).toBe(true);
  });

  it("Entra: manager as a plain string", () => {
    const body = deepFreeze({
      schemas: [PATCH_OP],
      Operations: [{ op: "Add", path: `${ENTERPRISE_URN}:manager`, value: "26118915-6090-4610-87e4-49d8ca9f808d" }],
    });
    const result = expectOk(applyPatch(users, bareUser(), body));
    expect(result.resource[ENTERPRISE_URN]).toEqual({ manager: { value: "26118915-6090-4610-87e4-49d8ca9f808d" } });
    expect(result.resource["schemas"]).toEqual([USER_URN, ENTERPRISE_URN]);

    const pathless = deepFreeze({
      schemas: [PATCH_OP],
      Operations: [{ op: "Replace", value: { [`${ENTERPRISE_URN}:manager`]: "other-manager-id" } }],
    });
    const replaced = expectOk(applyPatch(users, storedUser(), pathless));
    // The stored manager's displayName is readOnly data the server keeps; only value changes.
    expect(replaced.resource[ENTERPRISE_URN]).toMatchObject({ manager: { value: "other-manager-id" } });
  });

  it("Entra: manager as an array of one reference (tutorial example 5)", () => {
    const body = deepFreeze({
      schemas: [PATCH_OP],
      Operations: [
        {
          op: "Add",
          path: "manager",
          value: [{ $ref: "../Users/26118915-6090-4610-87e4-49d8ca9f808d", value: "26118915-6090-4610-87e4-49d8ca9f808d" }],
        },
      ],
    });
    const result = expectOk(applyPatch(users, bareUser(), body));
    expect(result.resource[ENTERPRISE_URN]).toEqual({
      manager: { $ref: "../Users/26118915-6090-4610-87e4-49d8ca9f808d", value: "26118915-6090-4610-87e4-49d8ca9f808d" },
    });
    // Two elements are ambiguous for a single-valued attribute, so they stay an error.
    const two = deepFreeze({ schemas: [PATCH_OP], Operations: [{ op: "Add", path: "manager", value: [{ value: "a" }, { value: "b" }] }] });
    const failed = applyPatch(users, bareUser(), two);
    expect(failed.ok ? undefined : failed.error.scimType).toBe("invalidValue");
  });

  it("Entra: path-less add/replace with dotted and URN keys", () => {
    // The shape Entra sends with the aadOptscim062020 flag (known-issues page): one path-less op.
    const body = deepFreeze({
      schemas: [PATCH_OP],
      Operations: [
        {
          op: "replace",
          value: {
            displayName: "Babs J",
            "name.givenName": "Babs",
            "name.familyName": "Jensen-Smith",
            active: "False",
            [`${ENTERPRISE_URN}:department`]: "Guest Services",
            "urn:ietf:params:scim:schemas:extension:enterprise:2.0:employeeNumber": "701985",
            'emails[type eq "work"].value': "babs@example.com",
          },
        },
        { op: "add", value: { [ENTERPRISE_URN]: { costCenter: "4131" }, 'addresses[type eq "work"].country': "DE" } },
      ],
    });
    const result = expectOk(applyPatch(users, storedUser(), body));
    expect(result.resource).toMatchObject({
      displayName: "Babs J",
      name: { formatted: "Ms. Barbara J Jensen III", givenName: "Babs", familyName: "Jensen-Smith" },
      active: false,
      emails: [
        { value: "babs@example.com", type: "work", primary: true },
        { value: "babs@jensen.org", type: "home" },
      ],
      addresses: [{ type: "work", streetAddress: "100 Universal City Plaza", country: "DE" }],
    });
    expect(result.resource[ENTERPRISE_URN]).toEqual({
      employeeNumber: "701985",
      costCenter: "4131",
      division: "Theme Park",
      department: "Guest Services",
      manager: { value: "26118915-6090-4610-87e4-49d8ca9f808d" },
    });
  });

  it("Entra: add/replace on a filtered path with no match creates the element", () => {
    const body = deepFreeze({
      schemas: [PATCH_OP],
      Operations: [
        { op: "Add", path: 'emails[type eq "work"].value', value: "Test_User@testuser.com" },
        { op: "Replace", path: 'addresses[type eq "work"].country', value: "US" },
        { op: "Replace", path: 'roles[primary eq "True"].value', value: "Tour Guide" },
      ],
    });
    const result = expectOk(applyPatch(users, bareUser(), body));
    expect(result.resource["emails"]).toEqual([{ type: "work", value: "Test_User@testuser.com" }]);
    expect(result.resource["addresses"]).toEqual([{ type: "work", country: "US" }]);
    expect(result.resource["roles"]).toEqual([{ primary: true, value: "Tour Guide" }]);
  });
});

describe("Okta", () => {
  it("Okta: path-less replace {active:false}", () => {
    // developer.okta.com "SCIM 2.0 protocol reference": deactivate a user.
    const body = deepFreeze({ schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] });
    const result = expectOk(applyPatch(users, storedUser(), body));
    expect(result.resource).toEqual({ ...storedUser(), active: false });
    expect(result.changed).toBe(true);
  });

  it("Okta: members: [] replace clears the group", () => {
    const withPath = deepFreeze({ schemas: [PATCH_OP], Operations: [{ op: "replace", path: "members", value: [] }] });
    const pathless = deepFreeze({ schemas: [PATCH_OP], Operations: [{ op: "replace", value: { members: [] } }] });
    for (const body of [withPath, pathless]) {
      const loaded = expectOk(applyPatch(groups, storedGroup(), body));
      expect(loaded.resource).not.toHaveProperty("members");
      expect(loaded.membership).toEqual({ kind: "replace", ids: [] });
      expect(loaded.changed).toBe(true);
      const unloaded = expectOk(applyPatch(groups, groupWithoutMembers(), body, { membersLoaded: false }));
      expect(unloaded.membership).toEqual({ kind: "replace", ids: [] });
      expect(unloaded.changed).toBe(true);
    }
  });

  it("Okta: group replace value carrying id", () => {
    // developer.okta.com "SCIM 2.0 protocol reference": update a group name.
    const body = deepFreeze({
      schemas: [PATCH_OP],
      Operations: [{ op: "replace", value: { id: "abf4dd94-a4c0-4f67-89c9-76b03340cb9b", displayName: "Test SCIMv2" } }],
    });
    const result = expectOk(applyPatch(groups, groupWithoutMembers(), body, { membersLoaded: false }));
    expect(result.resource["id"]).toBe(storedGroup()["id"]);
    expect(result.resource["displayName"]).toBe("Test SCIMv2");
    expect(result.membership).toBeUndefined();

    // And the member pushes that follow it, on the same unloaded group.
    const members = deepFreeze({
      schemas: [PATCH_OP],
      Operations: [
        { op: "add", path: "members", value: [{ value: "23a35c27-23d3-4c03-b4c5-6443c09e7173", display: "test.user@okta.local" }] },
        { op: "remove", path: 'members[value eq "89bb1940-b905-4575-9e7f-6f887cfb368e"]' },
      ],
    });
    const pushed = expectOk(applyPatch(groups, groupWithoutMembers(), members, { membersLoaded: false }));
    expect(pushed.membership).toEqual({
      kind: "delta",
      add: ["23a35c27-23d3-4c03-b4c5-6443c09e7173"],
      remove: ["89bb1940-b905-4575-9e7f-6f887cfb368e"],
    });
    expect(pushed.resource).not.toHaveProperty("members");
  });
});

describe("Google", () => {
  it("Google: extra SCIM 1.0 schema URN in a path-less value / schemas is ignored", () => {
    const body = deepFreeze({
      schemas: [PATCH_OP, "urn:scim:schemas:core:1.0"],
      Operations: [
        {
          op: "replace",
          value: {
            schemas: ["urn:scim:schemas:core:1.0", USER_URN],
            "urn:scim:schemas:core:1.0": { nickName: "ignored" },
            name: { givenName: "Barb" },
          },
        },
      ],
    });
    const result = expectOk(applyPatch(users, storedUser(), body));
    expect(result.resource["schemas"]).toEqual([USER_URN, ENTERPRISE_URN]);
    expect(result.resource).not.toHaveProperty("urn:scim:schemas:core:1.0");
    expect(result.resource["nickName"]).toBe("Babs");
    expect(result.resource["name"]).toMatchObject({ givenName: "Barb", familyName: "Jensen" });
  });
});

describe("OneLogin", () => {
  it("OneLogin: lowercase ops and odd attribute casing", () => {
    const body = deepFreeze({
      schemas: [PATCH_OP],
      Operations: [
        { op: "replace", path: "name.givenname", value: "Barb" },
        { op: "replace", path: 'EMAILS[TYPE eq "work"].VALUE', value: "barb@example.com" },
        { op: "add", value: { Username: "barb", NAME: { FAMILYNAME: "Jensen-Lee" }, PreferredLanguage: "en-GB" } },
        { op: "remove", path: "NickName" },
      ],
    });
    const result = expectOk(applyPatch(users, storedUser(), body));
    expect(result.resource).toMatchObject({
      userName: "barb",
      name: { givenName: "Barb", familyName: "Jensen-Lee" },
      preferredLanguage: "en-GB",
      emails: [
        { value: "barb@example.com", type: "work", primary: true },
        { value: "babs@jensen.org", type: "home" },
      ],
    });
    expect(result.resource).not.toHaveProperty("nickName");
    expect(Object.keys(result.resource)).not.toContain("Username");
  });
});
