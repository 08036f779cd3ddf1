/**
 * Shared inputs of the PATCH tests: the registry's User and Group types, canonical stored resources
 * shaped like RFC 7643 §8.2 and §8.4, and a deep freeze so every test proves its inputs untouched.
 */
import { expect } from "vitest";
import { unwrap, type Result } from "../../result.js";
import type { ScimError } from "../../errors.js";
import { GROUP_URN, sampleUserBody } from "../sample-resources.fixture.js";
import { normalizeResource } from "../schema/normalize-resource.js";
import type { ScimObject } from "../schema/normalize-value.js";
import { createSchemaRegistry } from "../schema/schema-registry.js";

const registry = createSchemaRegistry();
export const users = registry.resourceType("User")!;
export const groups = registry.resourceType("Group")!;

export { PATCH_OP_SCHEMA as PATCH_OP } from "./patch-request.js";
import { PATCH_OP_SCHEMA as PATCH_OP } from "./patch-request.js";
export const BABS = "2819c223-7f76-453a-919d-413861904646";
export const JAMES = "08e1d05d-121c-4561-8b96-473d93df9210";
export const MANDY = "902c246b-6245-4190-8e05-00816be7344a";

/** Freezes a JSON value and everything inside it, so any write into it throws. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** A PatchOp body around the given operations, deep-frozen. */
export function patchBody(...operations: readonly unknown[]): unknown {
  return deepFreeze({ schemas: [PATCH_OP], Operations: operations });
}

/** Barbara Jensen as stored: canonical, with server-assigned id and meta, deep-frozen. */
export function storedUser(): ScimObject {
  const user = unwrap(normalizeResource(users, sampleUserBody()));
  return deepFreeze({
    ...user,
    id: BABS,
    meta: {
      resourceType: "User",
      created: "2010-01-23T04:56:22.000Z",
      lastModified: "2011-05-13T04:42:34.000Z",
      version: 'W/"3694e05e9dff591"',
    },
  });
}

/** The RFC 7643 §8.4 group with two members, as stored, deep-frozen. */
export function storedGroup(): ScimObject {
  return deepFreeze({
    schemas: [GROUP_URN],
    id: "e9e30dba-f08f-4109-8486-d5c6a331660a",
    displayName: "Tour Guides",
    members: [
      { value: BABS, $ref: `https://example.com/v2/Users/${BABS}`, type: "User" },
      { value: MANDY, $ref: `https://example.com/v2/Users/${MANDY}`, type: "User" },
    ],
    meta: {
      resourceType: "Group",
      created: "2010-01-23T04:56:22.000Z",
      lastModified: "2011-05-13T04:42:34.000Z",
      version: 'W/"3694e05e9dff592"',
    },
  });
}

/** The value of a successful result; fails the test with the error's detail otherwise. */
export function expectOk<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${result.error.status} ${result.error.scimType}: ${result.error.detail}`);
  return result.value;
}

/** The error of a failed result, checked for status and scimType. */
export function expectError<T>(result: Result<T>, status: number, scimType: string): ScimError {
  if (result.ok) throw new Error(`expected ${status} ${scimType}, got success: ${JSON.stringify(result.value)}`);
  expect(result.error.status).toBe(status);
  expect(result.error.scimType).toBe(scimType);
  return result.error;
}
