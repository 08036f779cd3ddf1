import { describe, expect, it } from "vitest";
import { ENTERPRISE_URN, GROUP_URN, USER_URN, sampleUserBody } from "../sample-resources.fixture.js";
import { attribute, type SchemaDefinition } from "./attribute-definition.js";
import { createResourceValidator } from "./create-resource-validator.js";
import { rfc7643Profile, specProfile } from "./resource-profile.js";
import { createSchemaRegistry } from "./schema-registry.js";

const registry = createSchemaRegistry();
const users = registry.resourceType("User")!;
const groups = registry.resourceType("Group")!;

describe("createResourceValidator under the spec profile (spec §2.3)", () => {
  const validator = createResourceValidator(users, specProfile);

  it("keeps exactly the synchronized attributes and drops the rest", () => {
    const result = validator.prepare(sampleUserBody());
    expect(result).toEqual({
      ok: true,
      value: {
        schemas: [USER_URN, ENTERPRISE_URN],
        externalId: "701984",
        userName: "bjensen@example.com",
        name: { familyName: "Jensen", givenName: "Barbara" },
        nickName: "Babs",
        preferredLanguage: "en-US",
        active: true,
        emails: [
          { value: "bjensen@example.com", type: "work" },
          { value: "babs@jensen.org", type: "home" },
        ],
        addresses: [{ type: "work", country: "US" }],
        roles: [{ value: "Tour Guide", primary: true }],
        [ENTERPRISE_URN]: { employeeNumber: "701984", division: "Theme Park", department: "Tour Operations" },
      },
    });
  });

  it("requires userName, both names and a work e-mail, naming each missing path in one error", () => {
    const result = validator.prepare({ schemas: [USER_URN], emails: [{ value: "b@example.com", type: "home" }] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.status).toBe(400);
    expect(result.error.scimType).toBe("invalidValue");
    expect(result.error.issues.map((issue) => issue.path)).toEqual([
      "userName",
      "name.givenName",
      "name.familyName",
      'emails[type eq "work"].value',
    ]);
  });

  it("matches the work e-mail type case-insensitively", () => {
    const result = validator.prepare({
      userName: "b",
      name: { givenName: "B", familyName: "J" },
      emails: [{ value: "b@example.com", type: "Work" }],
    });
    expect(result.ok).toBe(true);
  });

  it("accepts employeeNumber under the spec's path and emits the RFC one", () => {
    const result = validator.prepare({
      userName: "b",
      name: { givenName: "B", familyName: "J" },
      emails: [{ value: "b@example.com", type: "work" }],
      "urn:ietf:params:scim:schemas:extension:enterprise:2.0:employeeNumber": "42",
    });
    expect(result.ok && result.value[ENTERPRISE_URN]).toEqual({ employeeNumber: "42" });
  });

  it("re-checks a resource produced by another step (conform)", () => {
    const prepared = validator.prepare(sampleUserBody());
    if (!prepared.ok) throw prepared.error;
    const { name: _name, ...withoutName } = prepared.value;
    const result = validator.conform(withoutName);
    expect(!result.ok && result.error.issues.map((issue) => issue.path)).toEqual(["name.givenName", "name.familyName"]);
  });

  it("keeps group members by id and requires displayName", () => {
    const groupValidator = createResourceValidator(groups, specProfile);
    expect(groupValidator.prepare({ schemas: [GROUP_URN], displayName: "Guides", members: [{ value: "u1", display: "Babs" }] })).toEqual({
      ok: true,
      value: { schemas: [GROUP_URN], displayName: "Guides", members: [{ value: "u1" }] },
    });
    const missing = groupValidator.prepare({ schemas: [GROUP_URN] });
    expect(!missing.ok && missing.error.issues).toEqual([{ path: "displayName", message: "is required" }]);
  });
});

describe("createResourceValidator under plain RFC 7643 rules", () => {
  it("keeps every defined attribute and requires only what the schemas require", () => {
    const validator = createResourceValidator(users, rfc7643Profile);
    const result = validator.prepare({ userName: "bjensen", title: "Tour Guide", phoneNumbers: [{ value: "555", type: "work" }] });
    expect(result).toEqual({
      ok: true,
      value: { schemas: [USER_URN], userName: "bjensen", title: "Tour Guide", phoneNumbers: [{ value: "555", type: "work" }] },
    });
    const missing = validator.prepare({ title: "Tour Guide" });
    expect(!missing.ok && missing.error.issues).toEqual([{ path: "userName", message: "is required" }]);
  });

  it("enforces required extensions and required attributes inside extensions", () => {
    const badge: SchemaDefinition = {
      id: "urn:example:badge:2.0:User",
      name: "Badge",
      description: "",
      attributes: [attribute("badge", { required: true })],
    };
    const extended = createSchemaRegistry({ schemas: [badge], extensions: [{ resourceType: "User", schema: badge.id, required: true }] });
    const validator = createResourceValidator(extended.resourceType("User")!, rfc7643Profile);
    const absent = validator.prepare({ userName: "b" });
    expect(!absent.ok && absent.error.issues).toEqual([{ path: badge.id, message: "is a required extension" }]);
    const empty = validator.prepare({ userName: "b", [badge.id]: { badge: "" } });
    expect(!empty.ok && empty.error.issues).toEqual([{ path: `${badge.id}:badge`, message: "is required" }]);
  });

  it("refuses a profile that names attributes the schemas do not define", () => {
    expect(() => createResourceValidator(users, { name: "broken", synchronized: { User: ["shoeSize"] } })).toThrow(/shoeSize/);
    expect(() => createResourceValidator(users, { name: "broken", required: { User: ["emails[type eq]"] } })).toThrow(/invalid/);
  });
});
