import { describe, expect, it } from "vitest";
import { ScimError } from "../../errors.js";
import { rfc7643Profile } from "../../scim/schema/resource-profile.js";
import { createSchemaRegistry } from "../../scim/schema/schema-registry.js";
import { checkPatchBounds, prepareWrite } from "./prepare-write.js";
import { createTypeHandler, type TypeHandler } from "./type-handler.js";
import { DEFAULT_WRITE_LIMITS } from "./write-limits.js";

const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/** The handler of `type`, counting how often its validator normalized a body. */
function counted(type: "User" | "Group"): { handler: TypeHandler; normalized: () => number } {
  const schema = createSchemaRegistry().resourceType(type);
  if (!schema) throw new Error(`no ${type}`);
  const base = createTypeHandler(schema, rfc7643Profile);
  let count = 0;
  const handler: TypeHandler = {
    ...base,
    validator: {
      ...base.validator,
      prepare: (body, tolerances) => {
        count += 1;
        return base.validator.prepare(body, tolerances);
      },
    },
  };
  return { handler, normalized: () => count };
}

function refusal(run: () => unknown): ScimError {
  try {
    run();
  } catch (error) {
    if (error instanceof ScimError) return error;
    throw error;
  }
  throw new Error("not refused");
}

describe("prepareWrite: the bounds before the work", () => {
  it("refuses a body carrying 1,001 e-mails without normalizing it", () => {
    const { handler, normalized } = counted("User");
    const emails = Array.from({ length: 1_001 }, (_, index) => ({ value: `e${index}@x.io`, type: "work" }));
    const error = refusal(() => prepareWrite(handler, { schemas: [USER_SCHEMA], userName: "big", emails }, DEFAULT_WRITE_LIMITS));
    expect(error.status).toBe(400);
    expect(error.detail).toBe("emails: holds 1001 values; the limit is 1000 (maxValues)");
    expect(normalized()).toBe(0);
  });

  it("counts attributes named in any case, as normalization would read them", () => {
    const { handler, normalized } = counted("User");
    const phones = Array.from({ length: 1_001 }, (_, index) => ({ value: `+1${index}` }));
    const error = refusal(() =>
      prepareWrite(handler, { schemas: [USER_SCHEMA], userName: "big", PhoneNumbers: phones }, { ...DEFAULT_WRITE_LIMITS }),
    );
    expect(error.detail).toBe("PhoneNumbers: holds 1001 values; the limit is 1000 (maxValues)");
    expect(normalized()).toBe(0);
  });

  it("refuses a group naming more distinct members than maxMembers with 413 without normalizing it; duplicates count once", () => {
    const { handler, normalized } = counted("Group");
    const members = Array.from({ length: 11 }, (_, index) => ({ value: `m${index}` }));
    const limits = { ...DEFAULT_WRITE_LIMITS, maxMembers: 10 };
    const error = refusal(() => prepareWrite(handler, { schemas: [GROUP_SCHEMA], displayName: "g", members }, limits));
    expect(error.status).toBe(413);
    expect(error.detail).toBe("The request names 11 members; the limit is 10 (maxMembers).");
    expect(normalized()).toBe(0);
    const twice = [...members.slice(0, 10), ...members.slice(0, 10)];
    expect(prepareWrite(handler, { schemas: [GROUP_SCHEMA], displayName: "g", members: twice }, limits).memberIds).toHaveLength(10);
  });

  it("checkPatchBounds refuses by shape: operations, values carried per attribute, members named", () => {
    const { handler } = counted("User");
    const limits = { maxPatchOperations: 3, maxValues: 2, maxMembers: 2 };
    const add = (value: unknown) => ({ op: "add", path: "emails", value });
    expect(
      refusal(() => checkPatchBounds(handler, { schemas: [PATCH_SCHEMA], Operations: [add([]), add([]), add([]), add([])] }, limits))
        .status,
    ).toBe(413);
    const grown = refusal(() =>
      checkPatchBounds(
        handler,
        { schemas: [PATCH_SCHEMA], Operations: [add([{ value: "a@x" }, { value: "b@x" }]), add({ value: "c@x" })] },
        limits,
      ),
    );
    expect(grown.detail).toBe("Operations[1]: emails: carries, with the operations before it, 3 values; the limit is 2 (maxValues)");
    // Values under a filter change a selected value: the engine decides those.
    expect(() =>
      checkPatchBounds(
        handler,
        {
          schemas: [PATCH_SCHEMA],
          Operations: [add([{ value: "a@x" }, { value: "b@x" }]), { op: "add", path: 'emails[value eq "c@x"].type', value: "home" }],
        },
        limits,
      ),
    ).not.toThrow();
    const group = counted("Group").handler;
    const members = refusal(() =>
      checkPatchBounds(
        group,
        {
          schemas: [PATCH_SCHEMA],
          Operations: [
            { op: "add", path: "members", value: [{ value: "m1" }, { value: "m2" }] },
            { op: "remove", path: 'members[value eq "m3"]' },
          ],
        },
        limits,
      ),
    );
    expect(members.status).toBe(413);
    expect(members.detail).toBe("Operations[1]: the request names 3 members; the limit is 2 (maxMembers).");
  });
});
