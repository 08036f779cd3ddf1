/**
 * Helpers for the memory store's unit tests: real schemas, real unique keys, compiled filters.
 */
import { compileFilter } from "../../scim/filter/resolve-filter.js";
import type { Filter } from "../../scim/filter/filter-ast.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import type { ResolvedPath } from "../../scim/schema/resolved-path.js";
import { createSchemaRegistry, type ResourceSchema } from "../../scim/schema/schema-registry.js";
import type { ListRequest, ResourceStore, StoredResource, UnknownMemberPolicy, WriteResult } from "../resource-store.js";
import { uniqueKeysOf } from "../unique-keys.js";

const registry = createSchemaRegistry();
export const users: ResourceSchema = registry.resourceType("User")!;
export const groups: ResourceSchema = registry.resourceType("Group")!;

export const T0 = "2024-01-01T00:00:00.000Z";
export const T1 = "2024-01-02T00:00:00.000Z";
export const T2 = "2024-01-03T00:00:00.000Z";

/** `text` compiled against `schema`; throws when it does not compile. */
export function filterOf(schema: ResourceSchema, text: string): Filter<ResolvedPath> {
  const result = compileFilter(schema, text);
  if (!result.ok) throw new Error(`${text}: ${result.error.detail}`);
  return result.value;
}

/** `text` resolved against `schema`; throws when it does not resolve. */
export function pathOf(schema: ResourceSchema, text: string): ResolvedPath {
  const resolution = schema.resolvePath(text);
  if (!resolution.ok) throw new Error(`${text}: ${resolution.reason}`);
  return resolution.path;
}

export function addUser(store: ResourceStore, orgId: string, id: string, userName: string, more: ScimObject = {}): Promise<WriteResult> {
  const attributes = { userName, ...more };
  return store.create({
    orgId,
    resourceType: "User",
    id,
    now: T0,
    attributes,
    uniqueKeys: uniqueKeysOf(users, attributes),
    unknownMembers: "ignore",
  });
}

export function addGroup(
  store: ResourceStore,
  orgId: string,
  id: string,
  displayName: string,
  members: readonly string[] = [],
  unknownMembers: UnknownMemberPolicy = "ignore",
): Promise<WriteResult> {
  const attributes = { displayName };
  return store.create({
    orgId,
    resourceType: "Group",
    id,
    now: T0,
    attributes,
    uniqueKeys: uniqueKeysOf(groups, attributes),
    // As the core does: a Group is created with `members`, `[]` for none (CreateRequest.members).
    members,
    unknownMembers,
  });
}

/** Every resource of `resourceType` in `orgId` (one big index page), with members. */
export async function listAll(
  store: ResourceStore,
  orgId: string,
  resourceType: string,
  more: Partial<ListRequest> = {},
): Promise<{ readonly totalResults: number; readonly resources: readonly StoredResource[] }> {
  return store.list({ orgId, resourceType, page: { kind: "index", startIndex: 1, count: 1_000_000 }, members: true, ...more });
}

/** The member ids of a group, in stored order. */
export async function memberIds(store: ResourceStore, orgId: string, id: string): Promise<string[] | undefined> {
  const group = await store.get({ orgId, resourceType: "Group", id, members: true });
  return group?.members?.map((member) => member.value);
}

/** The rejection of `promise`, for asserting on a thrown `ScimError`. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to reject");
}
