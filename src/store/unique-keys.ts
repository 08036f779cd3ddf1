/**
 * The unique values of a resource, as the store must hold them (DESIGN §3): every single-valued
 * string attribute the schema marks `uniqueness: "server"` or `"global"`, lower-cased unless
 * caseExact (RFC 7643 §2.1), so a store compares exactly and `userName` clashes case-insensitively.
 */
import type { AttributeDefinition } from "../scim/schema/attribute-definition.js";
import type { ScimObject } from "../scim/schema/normalize-value.js";
import type { ResourceSchema } from "../scim/schema/schema-registry.js";
import { readAttribute } from "../scim/schema/resource-access.js";
import { formatPath, type ResolvedPath } from "../scim/schema/resolved-path.js";
import type { UniqueKey } from "./resource-store.js";

/** The unique keys of `attributes` (canonical form) under `schema`. */
export function uniqueKeysOf(schema: ResourceSchema, attributes: ScimObject): UniqueKey[] {
  const keys: UniqueKey[] = [];
  for (const path of uniquePaths(schema)) {
    const value = readAttribute(attributes, path);
    if (typeof value !== "string") continue;
    keys.push({ attribute: formatPath(path), value: path.attribute.caseExact ? value : value.toLowerCase() });
  }
  return keys;
}

const cache = new WeakMap<ResourceSchema, readonly ResolvedPath[]>();

function uniquePaths(schema: ResourceSchema): readonly ResolvedPath[] {
  let paths = cache.get(schema);
  if (!paths) {
    paths = findUniquePaths(schema);
    cache.set(schema, paths);
  }
  return paths;
}

/**
 * Whether the store must hold `attribute` unique: a single-valued, client-writable string whose
 * schema says `uniqueness: "server"` or `"global"`. Stores use it to find index-backed filters.
 */
export function isUniqueAttribute(attribute: AttributeDefinition): boolean {
  return attribute.uniqueness !== "none" && attribute.type === "string" && !attribute.multiValued && attribute.mutability !== "readOnly";
}

function findUniquePaths(schema: ResourceSchema): ResolvedPath[] {
  // `id` is unique by construction (the core assigns it), so only client-supplied attributes count.
  return [schema.core, ...schema.extensions.map((extension) => extension.schema)].flatMap((definition) =>
    definition.attributes
      .filter(isUniqueAttribute)
      .map((attribute) => ({ schema: definition.id, extension: definition.id !== schema.core.id, attribute })),
  );
}
