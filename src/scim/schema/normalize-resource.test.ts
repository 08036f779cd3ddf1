import { describe, expect, it } from "vitest";
import { ENTERPRISE_URN, USER_URN, sampleUserBody } from "../sample-resources.fixture.js";
import { createSchemaRegistry } from "./schema-registry.js";
import { flattenInput, normalizeResource } from "./normalize-resource.js";

const users = createSchemaRegistry().resourceType("User")!;

describe("normalizeResource", () => {
  it("keeps a well-formed body as it is, with schemas derived from what it carries", () => {
    const result = normalizeResource(users, sampleUserBody());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value["schemas"]).toEqual([USER_URN, ENTERPRISE_URN]);
    expect(result.value["userName"]).toBe("bjensen@example.com");
    expect(result.value[ENTERPRISE_URN]).toEqual({
      employeeNumber: "701984",
      costCenter: "4130",
      division: "Theme Park",
      department: "Tour Operations",
      manager: { value: "26118915-6090-4610-87e4-49d8ca9f808d" },
    });
  });

  it("maps attribute names and schema URNs case-insensitively to canonical ones", () => {
    const result = normalizeResource(users, {
      SCHEMAS: [USER_URN.toUpperCase()],
      USERNAME: "bjensen",
      Name: { GivenName: "Barbara" },
      EMAILS: [{ VALUE: "b@example.com", Type: "work" }],
      [ENTERPRISE_URN.toUpperCase()]: { DEPARTMENT: "Sales" },
    });
    expect(result).toEqual({
      ok: true,
      value: {
        schemas: [USER_URN, ENTERPRISE_URN],
        userName: "bjensen",
        name: { givenName: "Barbara" },
        emails: [{ value: "b@example.com", type: "work" }],
        [ENTERPRISE_URN]: { department: "Sales" },
      },
    });
  });

  it("ignores readOnly attributes on input (id, meta, groups)", () => {
    const result = normalizeResource(users, {
      id: "client-chosen",
      meta: { resourceType: "User", version: 'W/"1"' },
      groups: [{ value: "g1" }],
      userName: "bjensen",
    });
    expect(result).toEqual({ ok: true, value: { schemas: [USER_URN], userName: "bjensen" } });
  });

  it("accepts dotted and URN-qualified keys and the spec's employeeNumber path, emitting RFC paths", () => {
    const result = normalizeResource(users, {
      userName: "bjensen",
      "name.familyName": "Jensen",
      [`${ENTERPRISE_URN}:department`]: "Sales",
      "urn:ietf:params:scim:schemas:extension:enterprise:2.0:employeeNumber": "42",
    });
    expect(result.ok && result.value).toEqual({
      schemas: [USER_URN, ENTERPRISE_URN],
      userName: "bjensen",
      name: { familyName: "Jensen" },
      [ENTERPRISE_URN]: { department: "Sales", employeeNumber: "42" },
    });
  });

  it("accepts and drops attributes and schemas it does not know, such as Google's SCIM 1.0 URN", () => {
    const body = {
      schemas: [USER_URN, "urn:scim:schemas:core:1.0"],
      userName: "bjensen",
      "urn:scim:schemas:extension:custom:1.0": { badge: "17" },
      favouriteColour: "green",
    };
    expect(normalizeResource(users, body)).toEqual({ ok: true, value: { schemas: [USER_URN], userName: "bjensen" } });
    expect(flattenInput(users, body).ignored).toEqual(["urn:scim:schemas:extension:custom:1.0", "favouriteColour"]);
  });

  it("reports every type problem at once, each with its path, as one invalidValue", () => {
    const result = normalizeResource(users, {
      userName: 7,
      active: "maybe",
      emails: [{ value: "a@example.com" }, { value: ["b"] }],
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.status).toBe(400);
    expect(result.error.scimType).toBe("invalidValue");
    expect(result.error.issues.map((issue) => issue.path)).toEqual(["userName", "active", "emails[1].value"]);
  });

  it("rejects a body that is not an object, or a schemas member that is not a list of URNs", () => {
    for (const body of [null, [], "user", 42]) {
      const result = normalizeResource(users, body);
      expect(!result.ok && result.error.scimType).toBe("invalidSyntax");
    }
    const result = normalizeResource(users, { schemas: USER_URN, userName: "x" });
    expect(!result.ok && result.error.detail).toMatch(/"schemas" must be an array/);
  });

  it("never mutates the body", () => {
    const body = sampleUserBody();
    const copy = structuredClone(body);
    normalizeResource(users, body);
    expect(body).toEqual(copy);
  });
});
