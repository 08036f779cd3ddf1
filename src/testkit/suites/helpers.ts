/**
 * What every suite needs to talk to a store the way the core does: canonical attributes made by
 * the real validator, unique keys from `uniqueKeysOf`, ids from UUID v7, filters from
 * `compileFilter` and sort paths from the registry — so a store is checked against the input it
 * will really receive, never against hand-built shapes.
 */
import { expect } from "vitest";
import { v7 } from "uuid";
import { isScimError, type ScimError, type ScimType } from "../../errors.js";
import type { Filter } from "../../scim/filter/filter-ast.js";
import { compileFilter } from "../../scim/filter/resolve-filter.js";
import { compareListEntries, sortKeyOf } from "../../scim/list/sort-key.js";
import { attribute, type SchemaDefinition } from "../../scim/schema/attribute-definition.js";
import { createResourceValidator } from "../../scim/schema/create-resource-validator.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import type { ResolvedPath } from "../../scim/schema/resolved-path.js";
import { rfc7643Profile } from "../../scim/schema/resource-profile.js";
import { createSchemaRegistry, type ResourceSchema } from "../../scim/schema/schema-registry.js";
import type {
  CursorPage,
  IndexPage,
  ListResult,
  StoredMember,
  StoredResource,
  UniqueKey,
  UnknownMemberPolicy,
  WriteResult,
} from "../../store/resource-store.js";
import { resourceView } from "../../store/resource-view.js";
import { uniqueKeysOf } from "../../store/unique-keys.js";
import type { ConformanceContext } from "../conformance-test.js";

export const ENTERPRISE_URN = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

/**
 * An extension the kit registers on User so that numeric comparisons and numeric sorting are
 * checked too: the core schemas define no integer or decimal attribute, yet integrators may.
 * Stores are schema-agnostic, so a store that handles these handles any registered extension.
 */
export const METRICS_URN = "urn:scimkit:params:scim:schemas:extension:conformance:2.0:User";

const metricsExtension: SchemaDefinition = {
  id: METRICS_URN,
  name: "ConformanceMetrics",
  description: "Numeric attributes for the store conformance kit.",
  attributes: [
    attribute("level", { type: "integer", description: "An integer." }),
    attribute("score", { type: "decimal", description: "A decimal." }),
  ],
};

/** The resource types the kit writes. */
export type ResourceTypeId = "User" | "Group";

const registry = createSchemaRegistry({
  schemas: [metricsExtension],
  extensions: [{ resourceType: "User", schema: METRICS_URN, required: false }],
});

function schemaOf(type: ResourceTypeId): ResourceSchema {
  const schema = registry.resourceType(type);
  if (!schema) throw new Error(`The conformance registry has no ${type} resource type`);
  return schema;
}

const schemas: Readonly<Record<ResourceTypeId, ResourceSchema>> = { User: schemaOf("User"), Group: schemaOf("Group") };
const validators = {
  User: createResourceValidator(schemas.User, rfc7643Profile),
  Group: createResourceValidator(schemas.Group, rfc7643Profile),
};

/** A fresh service id, as the core assigns them. */
export function newId(): string {
  return v7();
}

/** The canonical attributes the core would store for a client body (RFC 7643 rules). */
export function canonicalAttributes(type: ResourceTypeId, body: Readonly<Record<string, unknown>>): ScimObject {
  const prepared = validators[type].prepare(body);
  if (!prepared.ok) throw new Error(`Conformance fixture is not a valid ${type}: ${prepared.error.detail}`);
  // Members travel as ids and deltas, never inside the attributes (StoredResource.attributes).
  const { members: _members, ...attributes } = prepared.value;
  return attributes;
}

/** Canonical attributes of a user with `userName` and any other attributes of a client body. */
export function userAttributes(userName: string, rest: Readonly<Record<string, unknown>> = {}): ScimObject {
  return canonicalAttributes("User", { userName, ...rest });
}

/** Canonical attributes of a group. */
export function groupAttributes(displayName: string, rest: Readonly<Record<string, unknown>> = {}): ScimObject {
  return canonicalAttributes("Group", { displayName, ...rest });
}

/** The unique keys the core sends with `attributes`. */
export function uniqueKeys(type: ResourceTypeId, attributes: ScimObject): UniqueKey[] {
  return uniqueKeysOf(schemas[type], attributes);
}

/** A resolved filter, exactly as the list endpoints hand it to a store. */
export function filterOf(type: ResourceTypeId, text: string): Filter<ResolvedPath> {
  const compiled = compileFilter(schemas[type], text);
  if (!compiled.ok) throw new Error(`Conformance filter ${text} does not compile: ${compiled.error.detail}`);
  return compiled.value;
}

/** A resolved attribute path, as a sort request carries it. */
export function pathOf(type: ResourceTypeId, text: string): ResolvedPath {
  const resolution = schemas[type].resolvePath(text);
  if (!resolution.ok) throw new Error(`Conformance path ${text} does not resolve: ${resolution.reason}`);
  return resolution.path;
}

/** Options of the create helpers. */
export interface CreateOptions {
  /** Defaults to the context's organization. */
  readonly orgId?: string;
  readonly id?: string;
  readonly now?: string;
  readonly members?: readonly string[];
  readonly unknownMembers?: UnknownMemberPolicy;
}

/**
 * Creates a resource with canonical attributes and the unique keys the core would compute. As the
 * core does, a resource of a type with members (`hasMembers`: Group) is created with `members`,
 * `[]` for none, and any other without (`CreateRequest.members`).
 */
export function createResource(
  context: ConformanceContext,
  type: ResourceTypeId,
  attributes: ScimObject,
  options: CreateOptions = {},
): Promise<WriteResult> {
  const members = options.members ?? (schemas[type].resourceType.hasMembers ? [] : undefined);
  // A check that needs a group cannot run on a store that keeps none: it is skipped, saying why.
  if (members !== undefined) context.requireCapability("groups");
  return context.store.create({
    orgId: options.orgId ?? context.orgId,
    resourceType: type,
    id: options.id ?? newId(),
    now: options.now ?? context.now(),
    attributes,
    uniqueKeys: uniqueKeys(type, attributes),
    ...(members ? { members } : {}),
    unknownMembers: options.unknownMembers ?? "ignore",
  });
}

/** Creates a user and returns the stored resource. */
export async function createUser(
  context: ConformanceContext,
  userName: string,
  rest: Readonly<Record<string, unknown>> = {},
  options: CreateOptions = {},
): Promise<StoredResource> {
  return (await createResource(context, "User", userAttributes(userName, rest), options)).resource;
}

/** Creates a group and returns the whole write result (its membership report included). */
export function createGroup(context: ConformanceContext, displayName: string, options: CreateOptions = {}): Promise<WriteResult> {
  return createResource(context, "Group", groupAttributes(displayName), options);
}

/** Reads one resource. */
export function getResource(
  context: ConformanceContext,
  type: ResourceTypeId,
  id: string,
  options: { readonly orgId?: string; readonly members?: boolean } = {},
): Promise<StoredResource | undefined> {
  return context.store.get({ orgId: options.orgId ?? context.orgId, resourceType: type, id, members: options.members ?? false });
}

/** Reads a resource that must exist. */
export async function mustGet(
  context: ConformanceContext,
  type: ResourceTypeId,
  id: string,
  options: { readonly orgId?: string; readonly members?: boolean } = {},
): Promise<StoredResource> {
  const resource = await getResource(context, type, id, options);
  expect(resource, `${type} ${id} should exist`).toBeDefined();
  if (!resource) throw new Error("unreachable");
  return resource;
}

/** Options of `listResources`, in the terms of the kit's fixtures. */
export interface ListOptions {
  readonly orgId?: string;
  readonly filter?: string;
  readonly sort?: { readonly path: string; readonly order: "ascending" | "descending" };
  readonly page?: IndexPage | CursorPage;
  readonly members?: boolean;
}

/** A page far larger than any fixture: the whole list. */
export const WHOLE_LIST: IndexPage = { kind: "index", startIndex: 1, count: 10_000 };

/** Lists resources the way the list endpoint would ask. */
export function listResources(context: ConformanceContext, type: ResourceTypeId, options: ListOptions = {}): Promise<ListResult> {
  return context.store.list({
    orgId: options.orgId ?? context.orgId,
    resourceType: type,
    ...(options.filter === undefined ? {} : { filter: filterOf(type, options.filter) }),
    ...(options.sort === undefined ? {} : { sort: { path: pathOf(type, options.sort.path), order: options.sort.order } }),
    page: options.page ?? WHOLE_LIST,
    members: options.members ?? false,
  });
}

/** How many resources of the type the organization holds, asked the cheap way (`count: 0`). */
export async function countResources(context: ConformanceContext, type: ResourceTypeId, orgId?: string): Promise<number> {
  const result = await listResources(context, type, { page: { kind: "index", startIndex: 1, count: 0 }, ...(orgId ? { orgId } : {}) });
  return result.totalResults;
}

/** The ids of resources, in order. */
export function idsOf(resources: readonly { readonly id: string }[]): string[] {
  return resources.map((resource) => resource.id);
}

/** Ids in list order without a sort: by id, compared by UTF-16 code unit as `compareListEntries` does. */
export function byId(ids: readonly string[]): string[] {
  return [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The member ids of a stored resource, in stored order. */
export function memberIds(resource: StoredResource): string[] {
  return (resource.members ?? []).map((member: StoredMember) => member.value);
}

/**
 * The reference list order (`compareListEntries` over `sortKeyOf` of each resource's view) of
 * `views`, which the kit builds from what it wrote rather than from what the store returns.
 */
export function referenceOrder(
  type: ResourceTypeId,
  views: readonly ScimObject[],
  sort: { readonly path: string; readonly order: "ascending" | "descending" } | undefined,
): string[] {
  const path = sort ? pathOf(type, sort.path) : undefined;
  return views
    .map((view) => ({ key: path ? sortKeyOf(view, path) : null, id: String(view["id"]) }))
    .sort((a, b) => compareListEntries(a, b, sort?.order ?? "ascending"))
    .map((entry) => entry.id);
}

/** The view a filter and a sort see for a stored resource of `type`. */
export function viewOf(type: ResourceTypeId, resource: StoredResource): ScimObject {
  return resourceView(type, resource);
}

/**
 * Awaits `operation` and checks it failed with a `ScimError` of `status` (and `scimType`, or none
 * when `scimType` is `null`), the way the router will recognise it (`isScimError`).
 */
export async function expectScimError(operation: Promise<unknown>, status: number, scimType: ScimType | null): Promise<ScimError> {
  let outcome: { readonly failed: false; readonly value: unknown } | { readonly failed: true; readonly error: unknown };
  try {
    outcome = { failed: false, value: await operation };
  } catch (error) {
    outcome = { failed: true, error };
  }
  expect(outcome.failed, `expected a ScimError ${status}${scimType ? ` ${scimType}` : ""}, but the call succeeded`).toBe(true);
  const error = outcome.failed ? outcome.error : undefined;
  expect(isScimError(error), `expected a ScimError, got ${String(error)}`).toBe(true);
  if (!isScimError(error)) throw new Error("unreachable");
  expect(error.status).toBe(status);
  if (scimType === null) expect(error.scimType).toBeUndefined();
  else expect(error.scimType).toBe(scimType);
  return error;
}

/** Runs a mutation of a returned object, tolerating frozen objects: refusing a write is not aliasing. */
export function tryMutate(mutate: () => void): void {
  try {
    mutate();
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
}
