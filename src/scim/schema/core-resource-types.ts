/**
 * The built-in resource types of RFC 7643 §4 as discovery documents describe them (RFC 7643 §6,
 * example in §8.6).
 */
import type { ResourceTypeDefinition } from "./attribute-definition.js";
import { coreGroupSchema } from "./core-group-schema.js";
import { coreUserSchema } from "./core-user-schema.js";
import { enterpriseUserSchema } from "./enterprise-user-schema.js";

/** `User` at `/Users`, accepting the Enterprise User extension. */
export const userResourceType: ResourceTypeDefinition = {
  id: "User",
  name: "User",
  endpoint: "/Users",
  description: "User Account",
  schema: coreUserSchema.id,
  // The §8.6 example marks the extension required, but it is only an example: identity providers
  // routinely create users with no enterprise attributes, and requiring it would reject them.
  schemaExtensions: [{ schema: enterpriseUserSchema.id, required: false }],
};

/** `Group` at `/Groups`, without extensions; its `members` are kept as a membership. */
export const groupResourceType: ResourceTypeDefinition = {
  id: "Group",
  name: "Group",
  endpoint: "/Groups",
  description: "Group",
  schema: coreGroupSchema.id,
  schemaExtensions: [],
  hasMembers: true,
};
