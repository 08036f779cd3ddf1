import { describe, expect, it } from "vitest";
import { ENTERPRISE_URN } from "../sample-resources.fixture.js";
import { expandOperation } from "./expand-operation.js";
import { ScimError } from "../../errors.js";
import type { PatchOperation } from "./patch-request.js";
import { groups, users } from "./patch.fixture.js";

function paths(operation: PatchOperation, schema = users): string[] {
  return [...expandOperation(schema, operation, {})].map(
    (step) => `${step.path.text} → ${step.path.target.attribute.name}${step.path.subAttribute ? `.${step.path.subAttribute.name}` : ""}`,
  );
}

describe("expandOperation", () => {
  it("makes one step of an operation with a path", () => {
    expect(paths({ index: 0, op: "replace", path: "name.givenName", hasValue: true, value: "B" })).toEqual([
      "name.givenName → name.givenName",
    ]);
  });

  it("makes one step per attribute of a path-less value, skipping read-only and unknown keys", () => {
    const value = {
      id: "client-id",
      meta: { version: "x" },
      schemas: ["urn:scim:schemas:core:1.0"],
      userName: "b",
      "name.familyName": "J",
      [ENTERPRISE_URN]: { department: "D" },
      'emails[type eq "work"].value': "b@x",
      "urn:scim:schemas:core:1.0": {},
      shoeSize: 9,
    };
    expect(paths({ index: 0, op: "add", hasValue: true, value })).toEqual([
      "userName → userName",
      "name.familyName → name.familyName",
      `${ENTERPRISE_URN}:department → department`,
      'emails[type eq "work"].value → emails.value',
    ]);
  });

  it("skips an explicit schemas path: schemas is derived", () => {
    expect(paths({ index: 0, op: "add", path: "schemas", hasValue: true, value: [ENTERPRISE_URN] })).toEqual([]);
  });

  it("skips the id Okta sends in a group replace", () => {
    expect(paths({ index: 0, op: "replace", hasValue: true, value: { id: "abf4", displayName: "G" } }, groups)).toEqual([
      "displayName → displayName",
    ]);
  });

  it("fails with the operation's position in the detail", () => {
    try {
      expandOperation(users, { index: 3, op: "remove", path: "nope", hasValue: false, value: undefined }, {});
      throw new Error("expected a failure");
    } catch (error) {
      expect(error).toBeInstanceOf(ScimError);
      if (error instanceof ScimError) {
        expect(error.scimType).toBe("invalidPath");
        expect(error.detail).toMatch(/^Operations\[3\]: /);
      }
    }
  });
});
