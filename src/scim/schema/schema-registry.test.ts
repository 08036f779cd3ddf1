import { describe, expect, it } from "vitest";
import { ENTERPRISE_URN, USER_URN } from "../sample-resources.fixture.js";
import { attribute, type SchemaDefinition } from "./attribute-definition.js";
import { formatPath } from "./resolved-path.js";
import { createSchemaRegistry } from "./schema-registry.js";

const badgeSchema: SchemaDefinition = {
  id: "urn:example:params:scim:schemas:extension:badge:2.0:User",
  name: "Badge",
  description: "Badge numbers",
  attributes: [attribute("badge", { caseExact: true }), attribute("level", { type: "integer" })],
};

describe("createSchemaRegistry", () => {
  const registry = createSchemaRegistry();
  const users = registry.resourceType("user")!;

  it("holds the User and Group resource types and their schemas", () => {
    expect(registry.resourceTypes.map((type) => type.id)).toEqual(["User", "Group"]);
    expect(registry.schema(ENTERPRISE_URN.toUpperCase())?.id).toBe(ENTERPRISE_URN);
    expect(users.extensions.map((extension) => extension.schema.id)).toEqual([ENTERPRISE_URN]);
    expect(registry.resourceType("Device")).toBeUndefined();
  });

  it.each([
    ["userName", "userName"],
    ["USERNAME", "userName"],
    ["name.givenname", "name.givenName"],
    [`${USER_URN}:userName`, "userName"],
    ["meta.lastModified", "meta.lastModified"],
    ["id", "id"],
    [`${ENTERPRISE_URN}:manager.value`, `${ENTERPRISE_URN}:manager.value`],
    [`${ENTERPRISE_URN.toLowerCase()}:Department`, `${ENTERPRISE_URN}:department`],
    ["urn:ietf:params:scim:schemas:extension:enterprise:2.0:employeeNumber", `${ENTERPRISE_URN}:employeeNumber`],
    // Identity providers send unqualified extension attributes; one owner makes it unambiguous.
    ["department", `${ENTERPRISE_URN}:department`],
  ])("resolves %s to %s", (text, canonical) => {
    const resolution = users.resolvePath(text);
    expect(resolution.ok && formatPath(resolution.path)).toBe(canonical);
  });

  it.each([
    ["nope", /not an attribute/],
    ["name.nope", /not a sub-attribute/],
    ["userName.value", /no sub-attributes/],
    ["name.givenName.x", /nests deeper/],
    ["urn:example:unknown:userName", /does not start with a schema URN/],
  ])("explains why %s does not resolve", (text, reason) => {
    const resolution = users.resolvePath(text);
    expect(resolution.ok).toBe(false);
    if (!resolution.ok) expect(resolution.reason).toMatch(reason);
  });

  it("lets integrators add an extension schema to an existing resource type", () => {
    const extended = createSchemaRegistry({
      schemas: [badgeSchema],
      extensions: [{ resourceType: "User", schema: badgeSchema.id, required: false }],
    });
    const extendedUsers = extended.resourceType("User")!;
    expect(extendedUsers.extensions.map((extension) => extension.schema.id)).toEqual([ENTERPRISE_URN, badgeSchema.id]);
    const resolution = extendedUsers.resolvePath(`${badgeSchema.id}:LEVEL`);
    expect(resolution.ok && resolution.path.attribute.type).toBe("integer");
    // The default registry is untouched.
    expect(users.resolvePath(`${badgeSchema.id}:level`).ok).toBe(false);
  });

  it("lets integrators add a resource type of their own", () => {
    const deviceSchema: SchemaDefinition = {
      id: "urn:example:schemas:Device",
      name: "Device",
      description: "A device",
      attributes: [attribute("serial", { required: true, caseExact: true })],
    };
    const extended = createSchemaRegistry({
      schemas: [deviceSchema],
      resourceTypes: [
        { id: "Device", name: "Device", endpoint: "/Devices", description: "Devices", schema: deviceSchema.id, schemaExtensions: [] },
      ],
    });
    expect(extended.resourceType("device")?.resolvePath("serial").ok).toBe(true);
  });

  it("knows which resource types have members, and refuses one whose schema has no members.value", () => {
    expect(registry.resourceType("Group")?.resourceType.hasMembers).toBe(true);
    expect(registry.resourceType("User")?.resourceType.hasMembers).toBeUndefined();
    const teamSchema = (attributes: SchemaDefinition["attributes"]): SchemaDefinition => ({
      id: "urn:example:schemas:Team",
      name: "Team",
      description: "A team",
      attributes,
    });
    const teamType = {
      id: "Team",
      name: "Team",
      endpoint: "/Teams",
      description: "Teams",
      schema: "urn:example:schemas:Team",
      schemaExtensions: [],
      hasMembers: true,
    };
    const members = attribute("members", { type: "complex", multiValued: true, subAttributes: [attribute("value")] });
    expect(
      createSchemaRegistry({ schemas: [teamSchema([members])], resourceTypes: [teamType] }).resourceType("team")?.resourceType.hasMembers,
    ).toBe(true);
    for (const attributes of [
      [],
      [attribute("members")],
      [{ ...members, subAttributes: [attribute("display")] }],
      [{ ...members, multiValued: false }],
    ]) {
      expect(() => createSchemaRegistry({ schemas: [teamSchema(attributes)], resourceTypes: [teamType] })).toThrow(/Team has members/);
    }
  });

  it("refuses ambiguous or dangling registrations", () => {
    expect(() => createSchemaRegistry({ schemas: [badgeSchema, badgeSchema] })).toThrow(/twice/);
    expect(() => createSchemaRegistry({ extensions: [{ resourceType: "User", schema: badgeSchema.id, required: false }] })).toThrow(
      /not registered/,
    );
    expect(() =>
      createSchemaRegistry({ schemas: [badgeSchema], extensions: [{ resourceType: "Printer", schema: badgeSchema.id, required: false }] }),
    ).toThrow(/Printer/);
  });
});
