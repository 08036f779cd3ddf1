/**
 * The reference side of the compiler's tests: resources in the canonical form the core stores
 * (made by the real validator), and the ids `matchesFilter` accepts over `resourceView` — what
 * the SQL must reproduce (architecture §3).
 */
import { expect } from "vitest";
import type { Filter } from "../../../scim/filter/filter-ast.js";
import { matchesFilter } from "../../../scim/filter/matches-filter.js";
import { compileFilter } from "../../../scim/filter/resolve-filter.js";
import { createResourceValidator } from "../../../scim/schema/create-resource-validator.js";
import type { ScimObject } from "../../../scim/schema/normalize-value.js";
import type { ResolvedPath } from "../../../scim/schema/resolved-path.js";
import { rfc7643Profile } from "../../../scim/schema/resource-profile.js";
import type { ResourceSchema } from "../../../scim/schema/schema-registry.js";
import type { StoredMember, StoredResource } from "../../resource-store.js";
import { resourceView } from "../../resource-view.js";
import { uniqueKeysOf } from "../../unique-keys.js";
import type { ResourceRow } from "./filter-test-database.fixture.js";

/** Canonical attributes for a client body, as the core would store them (members travel apart). */
export function canonicalAttributes(schema: ResourceSchema, body: Readonly<Record<string, unknown>>): ScimObject {
  const prepared = createResourceValidator(schema, rfc7643Profile).prepare({ schemas: [schema.core.id], ...body });
  if (!prepared.ok) throw new Error(`Fixture is not a valid ${schema.resourceType.id}: ${prepared.error.detail}`);
  const { members: _members, ...attributes } = prepared.value;
  return attributes;
}

/** A stored resource with its members (groups) as `list` would return them with `members: true`. */
export interface FixtureResource {
  readonly resource: StoredResource;
  readonly members?: readonly StoredMember[];
}

/** The filter text bound to `schema`, as the list endpoint hands it to a store. */
export function resolvedFilter(schema: ResourceSchema, text: string): Filter<ResolvedPath> {
  const compiled = compileFilter(schema, text);
  if (!compiled.ok) throw new Error(`Filter ${text} does not compile: ${compiled.error.detail}`);
  return compiled.value;
}

/** What a filter and a sort see of a fixture resource (`resourceView`, members loaded). */
export function viewOf(resourceType: string, { resource, members }: FixtureResource): ScimObject {
  return resourceView(resourceType, members ? { ...resource, members } : resource);
}

/** The ids `matchesFilter` accepts, sorted by code unit. */
export function referenceIds(resourceType: string, resources: readonly FixtureResource[], filter: Filter<ResolvedPath>): string[] {
  return resources
    .filter((resource) => matchesFilter(viewOf(resourceType, resource), filter))
    .map(({ resource }) => resource.id)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The rows the store would hold for `resources` in one organization. */
export function rowsOf(orgId: string, schema: ResourceSchema, resources: readonly FixtureResource[]): ResourceRow[] {
  return resources.map(({ resource, members }) => ({
    orgId,
    resourceType: schema.resourceType.id,
    resource,
    uniqueKeys: uniqueKeysOf(schema, resource.attributes),
    ...(members ? { members } : {}),
  }));
}

/** Asserts that SQL and the reference agree, with the filter in the message. */
export function expectSameIds(text: string, actual: readonly string[], expected: readonly string[]): void {
  expect(actual, `filter: ${text}`).toEqual(expected);
}
