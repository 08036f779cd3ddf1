/**
 * SCIM users and groups as the core would hand them to a `ResourceStore`, for the analytics tests
 * that provision learners: canonical attributes under the RFC 7643 schemas (`rfc7643Profile`) and the
 * unique keys the core derives from them. Built on the public `scimkit/core` and `scimkit/store`,
 * as any store author's own fixtures would be.
 */
import { createResourceValidator, createSchemaRegistry, rfc7643Profile, type ResourceSchema, type ScimObject } from "scimkit/core";
import { uniqueKeysOf, type UniqueKey } from "scimkit/store";

/** The resource types the suites provision. */
type ResourceTypeId = "User" | "Group";

const registry = createSchemaRegistry();

function schemaOf(type: ResourceTypeId): ResourceSchema {
  const schema = registry.resourceType(type);
  if (!schema) throw new Error(`The default registry has no ${type} resource type`);
  return schema;
}

const schemas: Readonly<Record<ResourceTypeId, ResourceSchema>> = { User: schemaOf("User"), Group: schemaOf("Group") };
const validators = {
  User: createResourceValidator(schemas.User, rfc7643Profile),
  Group: createResourceValidator(schemas.Group, rfc7643Profile),
};

/** The canonical attributes the core would store for a client body, members left out (they travel as ids). */
function canonical(type: ResourceTypeId, body: Readonly<Record<string, unknown>>): ScimObject {
  const prepared = validators[type].prepare(body);
  if (!prepared.ok) throw new Error(`Analytics conformance fixture is not a valid ${type}: ${prepared.error.detail}`);
  const { members: _members, ...attributes } = prepared.value;
  return attributes;
}

/** Canonical attributes of a user with `userName` and any other attributes of a client body. */
export function userAttributes(userName: string, rest: Readonly<Record<string, unknown>> = {}): ScimObject {
  return canonical("User", { userName, ...rest });
}

/** Canonical attributes of a group. */
export function groupAttributes(displayName: string, rest: Readonly<Record<string, unknown>> = {}): ScimObject {
  return canonical("Group", { displayName, ...rest });
}

/** The unique keys the core sends with `attributes`. */
export function uniqueKeys(type: ResourceTypeId, attributes: ScimObject): UniqueKey[] {
  return uniqueKeysOf(schemas[type], attributes);
}
