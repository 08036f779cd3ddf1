import { describe, expect, it } from "vitest";
import { ENTERPRISE_URN, USER_URN } from "../sample-resources.fixture.js";
import { attribute, type SchemaDefinition } from "../schema/attribute-definition.js";
import { createSchemaRegistry } from "../schema/schema-registry.js";
import { applyPatch } from "./apply-patch.js";
import { expandOperation } from "./expand-operation.js";
import { deepFreeze, expectError, expectOk, patchBody, storedUser, users } from "./patch.fixture.js";

const MANAGER = "26118915-6090-4610-87e4-49d8ca9f808d";

/** A user carrying the enterprise extension with two attributes, deep-frozen. */
function enterpriseUser(): Record<string, unknown> {
  return deepFreeze({
    schemas: [USER_URN, ENTERPRISE_URN],
    id: "u1",
    userName: "bjensen",
    [ENTERPRISE_URN]: { department: "Tour Operations", costCenter: "4130", manager: { value: MANAGER } },
  });
}

describe("a PATCH path naming a whole extension (RFC 7644 §3.5.2, §3.10)", () => {
  it("add merges the value's attributes into the extension", () => {
    const result = expectOk(
      applyPatch(users, enterpriseUser(), patchBody({ op: "add", path: ENTERPRISE_URN, value: { department: "Sales", division: "East" } })),
    );
    expect(result.resource[ENTERPRISE_URN]).toEqual({
      department: "Sales",
      costCenter: "4130",
      division: "East",
      manager: { value: MANAGER },
    });
    expect(result.changed).toBe(true);
  });

  it("add creates the extension, and its URN in schemas, on a user without it", () => {
    const user = deepFreeze({ schemas: [USER_URN], id: "u1", userName: "bjensen" });
    const result = expectOk(applyPatch(users, user, patchBody({ op: "add", path: ENTERPRISE_URN, value: { employeeNumber: "42" } })));
    expect(result.resource["schemas"]).toEqual([USER_URN, ENTERPRISE_URN]);
    expect(result.resource[ENTERPRISE_URN]).toEqual({ employeeNumber: "42" });
  });

  it("replace leaves the extension holding exactly the value's attributes", () => {
    const result = expectOk(
      applyPatch(
        users,
        enterpriseUser(),
        patchBody({ op: "replace", path: ENTERPRISE_URN, value: { department: "Sales", division: "East" } }),
      ),
    );
    expect(result.resource[ENTERPRISE_URN]).toEqual({ department: "Sales", division: "East" });
  });

  it("remove takes the extension away, and its URN from schemas", () => {
    const result = expectOk(applyPatch(users, enterpriseUser(), patchBody({ op: "remove", path: ENTERPRISE_URN })));
    expect(result.resource).not.toHaveProperty(ENTERPRISE_URN);
    expect(result.resource["schemas"]).toEqual([USER_URN]);
    expect(result.resource["userName"]).toBe("bjensen");
  });

  it("remove on a user without the extension changes nothing", () => {
    const user = deepFreeze({ schemas: [USER_URN], id: "u1", userName: "bjensen" });
    expect(expectOk(applyPatch(users, user, patchBody({ op: "remove", path: ENTERPRISE_URN }))).changed).toBe(false);
  });

  it("reads the URN and the op case-insensitively, and a value with a null for no value", () => {
    const result = expectOk(
      applyPatch(users, enterpriseUser(), patchBody({ op: "Remove", path: ` ${ENTERPRISE_URN.toUpperCase()} `, value: null })),
    );
    expect(result.resource).not.toHaveProperty(ENTERPRISE_URN);
  });

  it("normalizes the value as a path-less value: attribute case, a bare manager id", () => {
    const result = expectOk(
      applyPatch(
        users,
        enterpriseUser(),
        patchBody({ op: "replace", path: ENTERPRISE_URN, value: { DEPARTMENT: "Sales", manager: "m2" } }),
      ),
    );
    expect(result.resource[ENTERPRISE_URN]).toEqual({ department: "Sales", manager: { value: "m2" } });
  });

  it("skips readOnly sub-attributes as a path-less value does (manager.displayName)", () => {
    const result = expectOk(
      applyPatch(
        users,
        enterpriseUser(),
        patchBody({ op: "replace", path: ENTERPRISE_URN, value: { manager: { value: "m2", displayName: "Someone" } } }),
      ),
    );
    expect(result.resource[ENTERPRISE_URN]).toEqual({ manager: { value: "m2" } });
  });

  it("keeps the URN-qualified attribute paths working", () => {
    const result = expectOk(
      applyPatch(users, enterpriseUser(), patchBody({ op: "replace", path: `${ENTERPRISE_URN}:manager`, value: "m3" })),
    );
    expect(result.resource[ENTERPRISE_URN]).toMatchObject({ department: "Tour Operations", manager: { value: "m3" } });
    const removed = expectOk(applyPatch(users, enterpriseUser(), patchBody({ op: "remove", path: `${ENTERPRISE_URN}:manager.value` })));
    expect(removed.resource[ENTERPRISE_URN]).toEqual({ department: "Tour Operations", costCenter: "4130" });
  });

  it("gives a type error the same SCIM error as inside a path-less PATCH", () => {
    const value = { department: 7, costCenter: ["a"] };
    const withPath = expectError(
      applyPatch(users, enterpriseUser(), patchBody({ op: "add", path: ENTERPRISE_URN, value })),
      400,
      "invalidValue",
    );
    const pathless = expectError(
      applyPatch(users, enterpriseUser(), patchBody({ op: "add", value: { [ENTERPRISE_URN]: value } })),
      400,
      "invalidValue",
    );
    expect(withPath.detail).toBe(pathless.detail);
    expect(withPath.issues).toEqual(pathless.issues);
  });

  it("refuses a value that is not an object, and an add or replace without one, with invalidValue naming the URN", () => {
    for (const operation of [
      { op: "add", path: ENTERPRISE_URN, value: "Sales" },
      { op: "replace", path: ENTERPRISE_URN, value: [{ department: "Sales" }] },
      { op: "replace", path: ENTERPRISE_URN },
    ]) {
      const error = expectError(applyPatch(users, enterpriseUser(), patchBody(operation)), 400, "invalidValue");
      expect(error.detail).toContain(ENTERPRISE_URN);
      expect(error.detail).toMatch(/^Operations\[0\]: /);
    }
  });

  it("refuses a remove that carries a value, pointing to attribute paths instead", () => {
    const error = expectError(
      applyPatch(users, enterpriseUser(), patchBody({ op: "remove", path: ENTERPRISE_URN, value: { department: "Tour Operations" } })),
      400,
      "invalidValue",
    );
    expect(error.detail).toContain(`${ENTERPRISE_URN}:department`);
  });

  it("leaves a path naming the core schema an invalidPath", () => {
    expectError(applyPatch(users, storedUser(), patchBody({ op: "remove", path: USER_URN })), 400, "invalidPath");
  });

  it("is atomic with the other operations of the request", () => {
    const error = expectError(
      applyPatch(users, enterpriseUser(), patchBody({ op: "remove", path: ENTERPRISE_URN }, { op: "replace", path: "userName", value: 5 })),
      400,
      "invalidValue",
    );
    expect(error.detail).toMatch(/Operations\[1\]/);
  });

  it("expands into removals first, then one step per attribute of the value", () => {
    const steps = [
      ...expandOperation(users, { index: 0, op: "replace", path: ENTERPRISE_URN, hasValue: true, value: { department: "Sales" } }, {}),
    ].map((step) => `${step.op} ${step.path.text}`);
    expect(steps).toEqual([
      `remove ${ENTERPRISE_URN}:employeeNumber`,
      `remove ${ENTERPRISE_URN}:costCenter`,
      `remove ${ENTERPRISE_URN}:organization`,
      `remove ${ENTERPRISE_URN}:division`,
      `remove ${ENTERPRISE_URN}:manager`,
      `replace ${ENTERPRISE_URN}:department`,
    ]);
  });
});

describe("a whole-extension PATCH on an extension with immutable and required attributes", () => {
  const badge: SchemaDefinition = {
    id: "urn:example:params:scim:schemas:extension:badge:2.0:User",
    name: "Badge",
    description: "Badges",
    attributes: [
      attribute("badge", { mutability: "immutable", caseExact: true }),
      attribute("level", { type: "integer", required: true }),
      attribute("issuer", { mutability: "readOnly" }),
    ],
  };
  const badgeUsers = createSchemaRegistry({
    schemas: [badge],
    extensions: [{ resourceType: "User", schema: badge.id, required: false }],
  }).resourceType("User")!;
  const user = (extension: Record<string, unknown>): Record<string, unknown> =>
    deepFreeze({ schemas: [USER_URN, badge.id], id: "u1", userName: "b", [badge.id]: extension });

  it("answers mutability for a change to a set immutable attribute, as a path naming it does", () => {
    const error = expectError(
      applyPatch(
        badgeUsers,
        user({ badge: "A1", level: 1 }),
        patchBody({ op: "replace", path: badge.id, value: { badge: "B2", level: 2 } }),
      ),
      400,
      "mutability",
    );
    expect(error.detail).toContain(`${badge.id}:badge`);
  });

  it("answers mutability for removing a required attribute, through replace and remove alike", () => {
    expectError(
      applyPatch(badgeUsers, user({ level: 1 }), patchBody({ op: "replace", path: badge.id, value: { badge: "B2" } })),
      400,
      "mutability",
    );
    expectError(applyPatch(badgeUsers, user({ level: 1 }), patchBody({ op: "remove", path: badge.id })), 400, "mutability");
  });

  it("sets an unset immutable attribute, keeps readOnly ones, and ignores a readOnly one in the value", () => {
    const result = expectOk(
      applyPatch(
        badgeUsers,
        user({ level: 1, issuer: "hr" }),
        patchBody({ op: "replace", path: badge.id, value: { badge: "B2", level: 3, issuer: "me" } }),
      ),
    );
    expect(result.resource[badge.id]).toEqual({ badge: "B2", level: 3, issuer: "hr" });
  });
});
