/** A registered resource type as the resource service handles it: its schemas, validator and nature. */
import { createResourceValidator, type ResourceValidator } from "../../scim/schema/create-resource-validator.js";
import type { ResourceProfile } from "../../scim/schema/resource-profile.js";
import type { ResourceSchema } from "../../scim/schema/schema-registry.js";

/** A resource type as the service handles it. */
export interface TypeHandler {
  /** The resource type's id as registered (`User`), as the store and `meta.resourceType` name it. */
  readonly id: string;
  readonly schema: ResourceSchema;
  readonly validator: ResourceValidator;
  /**
   * Whether the type has members (`ResourceTypeDefinition.hasMembers`, as Group): kept by the store
   * as a membership, never inside the attributes.
   */
  readonly hasMembers: boolean;
  /**
   * Whether the core schema has a single boolean `active` (User, RFC 7643 §4.1.1): a write that
   * flips it is also reported as `activated` or `deactivated`.
   */
  readonly hasActive: boolean;
}

/** The handler of the resource type `schema`, validating by `profile`. */
export function createTypeHandler(schema: ResourceSchema, profile: ResourceProfile): TypeHandler {
  return {
    id: schema.resourceType.id,
    schema,
    validator: createResourceValidator(schema, profile),
    hasMembers: schema.resourceType.hasMembers === true,
    hasActive: schema.core.attributes.some(
      (attribute) => attribute.name === "active" && attribute.type === "boolean" && !attribute.multiValued,
    ),
  };
}
