import { describe, expect, it } from "vitest";
import { unwrap } from "../../result.js";
import { parsePatchPath } from "../path/parse-patch-path.js";
import { attribute } from "../schema/attribute-definition.js";
import type { ScimObject } from "../schema/normalize-value.js";
import { createSchemaRegistry } from "../schema/schema-registry.js";
import { applyAttributeOperation, containsValue } from "./apply-attribute-operation.js";
import { ScimError } from "../../errors.js";
import type { PatchOpName } from "./patch-request.js";
import type { PatchStep } from "./patch-step.js";
import { users } from "./patch.fixture.js";

const DEVICE_URN = "urn:example:params:scim:schemas:extension:devices:2.0:User";
const withDevices = createSchemaRegistry({
  schemas: [
    {
      id: DEVICE_URN,
      name: "Devices",
      description: "Test extension",
      attributes: [
        attribute("badge", { mutability: "immutable" }),
        attribute("devices", {
          type: "complex",
          multiValued: true,
          subAttributes: [attribute("serial"), attribute("kind"), attribute("primary", { type: "boolean" })],
        }),
      ],
    },
  ],
  extensions: [{ resourceType: "User", schema: DEVICE_URN, required: false }],
}).resourceType("User")!;

function step(op: PatchOpName, path: string, value?: unknown, schema = users): PatchStep {
  return { op, path: unwrap(parsePatchPath(schema, path)), hasValue: value !== undefined, value, origin: "Operations[0]" };
}

function failure(run: () => void): ScimError {
  try {
    run();
  } catch (error) {
    if (error instanceof ScimError) return error;
    throw error;
  }
  throw new Error("expected a ScimError");
}

describe("applyAttributeOperation", () => {
  it("addresses every value with a sub-attribute path that has no filter", () => {
    const resource: ScimObject = { emails: [{ value: "a@x" }, { value: "b@x", type: "home" }] };
    applyAttributeOperation(resource, step("replace", "emails.type", "other"));
    expect(resource["emails"]).toEqual([
      { value: "a@x", type: "other" },
      { value: "b@x", type: "other" },
    ]);
    applyAttributeOperation(resource, step("remove", "emails.type"));
    expect(resource["emails"]).toEqual([{ value: "a@x" }, { value: "b@x" }]);
  });

  it("drops a value left empty by removing its last sub-attribute", () => {
    const resource: ScimObject = { emails: [{ value: "a@x" }, { value: "b@x", type: "home" }] };
    applyAttributeOperation(resource, step("remove", 'emails[value eq "a@x"].value'));
    expect(resource["emails"]).toEqual([{ value: "b@x", type: "home" }]);
  });

  it("reports what it touched and removed", () => {
    const resource: ScimObject = {
      emails: [
        { value: "a@x", type: "work" },
        { value: "b@x", type: "home" },
      ],
    };
    expect(applyAttributeOperation(resource, step("remove", 'emails[type eq "home"]'))).toEqual({
      touched: [],
      removed: [{ value: "b@x", type: "home" }],
    });
    expect(applyAttributeOperation(resource, step("add", 'emails[type eq "work"].display', "Work"))).toEqual({
      touched: [{ value: "a@x", type: "work", display: "Work" }],
      removed: [],
    });
  });

  it("works inside an extension, filters included", () => {
    const resource: ScimObject = {};
    applyAttributeOperation(resource, step("add", `${DEVICE_URN}:devices`, [{ serial: "S1", kind: "laptop" }], withDevices));
    applyAttributeOperation(resource, step("replace", `${DEVICE_URN}:devices[kind eq "phone"].serial`, "P9", withDevices));
    applyAttributeOperation(resource, step("replace", `${DEVICE_URN}:devices[serial eq "S1"].primary`, true, withDevices));
    expect(resource).toEqual({
      [DEVICE_URN]: {
        devices: [
          { serial: "S1", kind: "laptop", primary: true },
          { kind: "phone", serial: "P9" },
        ],
      },
    });
    applyAttributeOperation(resource, step("remove", `${DEVICE_URN}:devices`, undefined, withDevices));
    expect(resource).toEqual({});
  });

  it("lets an immutable attribute be set once, then refuses to change or remove it", () => {
    const resource: ScimObject = {};
    applyAttributeOperation(resource, step("add", `${DEVICE_URN}:badge`, "B-1", withDevices));
    applyAttributeOperation(resource, step("replace", `${DEVICE_URN}:badge`, "B-1", withDevices));
    expect(resource).toEqual({ [DEVICE_URN]: { badge: "B-1" } });
    expect(failure(() => applyAttributeOperation(resource, step("replace", `${DEVICE_URN}:badge`, "B-2", withDevices))).scimType).toBe(
      "mutability",
    );
    expect(failure(() => applyAttributeOperation(resource, step("remove", `${DEVICE_URN}:badge`, undefined, withDevices))).scimType).toBe(
      "mutability",
    );
  });

  it("reads a one-element array as the element a filtered path names", () => {
    const resource: ScimObject = { emails: [{ value: "a@x", type: "work" }] };
    applyAttributeOperation(resource, step("replace", 'emails[type eq "work"]', [{ value: "b@x" }]));
    expect(resource["emails"]).toEqual([{ value: "b@x", type: "work" }]);
  });

  it("adds nothing for a null value and unassigns for a null replace", () => {
    const resource: ScimObject = { nickName: "Babs", emails: [{ value: "a@x", type: "work" }] };
    applyAttributeOperation(resource, step("add", "nickName", null));
    expect(resource["nickName"]).toBe("Babs");
    applyAttributeOperation(resource, step("replace", 'emails[type eq "work"]', null));
    expect(resource).toEqual({ nickName: "Babs" });
  });
});

describe("containsValue", () => {
  it("matches on the candidate's sub-attributes only", () => {
    expect(containsValue({ value: "1", display: "x" }, { value: "1" })).toBe(true);
    expect(containsValue({ value: "1" }, { value: "1", type: "User" })).toBe(false);
    expect(containsValue({ value: "1" }, {})).toBe(false);
    expect(containsValue("a", "a")).toBe(true);
  });
});
