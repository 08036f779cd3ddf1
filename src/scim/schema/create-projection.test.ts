import { describe, expect, it } from "vitest";
import { ENTERPRISE_URN, GROUP_URN, USER_URN } from "../sample-resources.fixture.js";
import { attribute, type SchemaDefinition } from "./attribute-definition.js";
import { createProjection } from "./create-projection.js";
import { createSchemaRegistry } from "./schema-registry.js";

const registry = createSchemaRegistry();
const users = registry.resourceType("User")!;
const groups = registry.resourceType("Group")!;

const storedUser = () => ({
  schemas: [USER_URN, ENTERPRISE_URN],
  id: "2819c223",
  externalId: "701984",
  meta: { resourceType: "User", version: 'W/"3"', created: "2025-01-01T00:00:00.000Z" },
  userName: "bjensen",
  password: "t1meMa$heen",
  name: { givenName: "Barbara", familyName: "Jensen" },
  emails: [
    { value: "bjensen@example.com", type: "work", primary: true },
    { value: "babs@jensen.org", type: "home" },
  ],
  [ENTERPRISE_URN]: { department: "Tour Operations", employeeNumber: "701984" },
});

describe("createProjection", () => {
  it("returns everything by default except attributes returned never (password)", () => {
    const projected = createProjection(users).apply(storedUser());
    const { password: _password, ...expected } = storedUser();
    expect(projected).toEqual(expected);
  });

  it("returns only the named attributes plus those returned always (id, schemas)", () => {
    const projected = createProjection(users, { attributes: ["userName", "name.givenName"] }).apply(storedUser());
    expect(projected).toEqual({ schemas: [USER_URN, ENTERPRISE_URN], id: "2819c223", userName: "bjensen", name: { givenName: "Barbara" } });
  });

  it("never returns password, even when asked for it", () => {
    expect(createProjection(users, { attributes: ["password"] }).apply(storedUser())).not.toHaveProperty("password");
  });

  it("takes URN-qualified attributes and whole extensions by their URN", () => {
    const one = createProjection(users, { attributes: [`${ENTERPRISE_URN}:department`] }).apply(storedUser());
    expect(one[ENTERPRISE_URN]).toEqual({ department: "Tour Operations" });
    const whole = createProjection(users, { attributes: [ENTERPRISE_URN.toLowerCase()] }).apply(storedUser());
    expect(whole[ENTERPRISE_URN]).toEqual({ department: "Tour Operations", employeeNumber: "701984" });
    expect(whole).not.toHaveProperty("userName");
    const qualified = createProjection(users, { attributes: [`${USER_URN}:userName`] }).apply(storedUser());
    expect(qualified["userName"]).toBe("bjensen");
  });

  it("removes excluded attributes and sub-attributes, case-insensitively", () => {
    const projected = createProjection(users, { excludedAttributes: ["EMAILS.type", "name", `${ENTERPRISE_URN}:department`] }).apply(
      storedUser(),
    );
    expect(projected["emails"]).toEqual([{ value: "bjensen@example.com", primary: true }, { value: "babs@jensen.org" }]);
    expect(projected).not.toHaveProperty("name");
    expect(projected[ENTERPRISE_URN]).toEqual({ employeeNumber: "701984" });
    expect(projected["userName"]).toBe("bjensen");
  });

  it("cannot exclude an attribute returned always", () => {
    expect(createProjection(users, { excludedAttributes: ["id", "schemas"] }).apply(storedUser())).toMatchObject({
      id: "2819c223",
      schemas: [USER_URN, ENTERPRISE_URN],
    });
  });

  it("Entra: excludedAttributes=members lookups tell a store it need not load a group's members", () => {
    const group = { schemas: [GROUP_URN], id: "g1", displayName: "Tour Guides", members: [{ value: "2819c223", type: "User" }] };
    const withoutMembers = createProjection(groups, { excludedAttributes: ["members"] });
    expect(withoutMembers.includes("members")).toBe(false);
    expect(withoutMembers.includes("displayName")).toBe(true);
    expect(withoutMembers.apply(group)).toEqual({ schemas: [GROUP_URN], id: "g1", displayName: "Tour Guides" });
    expect(createProjection(groups).includes("members")).toBe(true);
    expect(createProjection(groups, { attributes: ["displayName"] }).includes("members")).toBe(false);
    expect(createProjection(groups, { attributes: ["members.value"] }).includes("members")).toBe(true);
  });

  it("returns attributes marked returned request only when named", () => {
    const auditSchema: SchemaDefinition = {
      id: "urn:example:audit:2.0:User",
      name: "Audit",
      description: "",
      attributes: [attribute("lastLogin", { type: "dateTime", returned: "request" }), attribute("source")],
    };
    const extended = createSchemaRegistry({
      schemas: [auditSchema],
      extensions: [{ resourceType: "User", schema: auditSchema.id, required: false }],
    }).resourceType("User")!;
    const user = { ...storedUser(), [auditSchema.id]: { lastLogin: "2025-01-01T00:00:00.000Z", source: "hr" } };
    expect(createProjection(extended).apply(user)[auditSchema.id]).toEqual({ source: "hr" });
    expect(createProjection(extended, { attributes: [`${auditSchema.id}:lastLogin`] }).apply(user)[auditSchema.id]).toEqual({
      lastLogin: "2025-01-01T00:00:00.000Z",
    });
  });

  it("ignores names it does not know rather than failing the request", () => {
    expect(createProjection(users, { attributes: ["userName", "shoeSize"] }).apply(storedUser())).toEqual({
      schemas: [USER_URN, ENTERPRISE_URN],
      id: "2819c223",
      userName: "bjensen",
    });
  });

  it("never mutates the resource", () => {
    const user = Object.freeze(storedUser());
    createProjection(users, { excludedAttributes: ["emails.type"] }).apply(user);
    expect(user).toEqual(storedUser());
  });
});
