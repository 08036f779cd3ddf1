/**
 * The unique values of a resource, as the store must hold them (architecture §3): every single-valued
 * string attribute the schema marks `uniqueness: "server"` or `"global"`, in Unicode NFC and
 * lower-cased unless caseExact (RFC 7643 §2.1; `uniqueValue`), so a store compares exactly and
 * `userName` clashes case-insensitively and whatever the Unicode normalization form.
 */
import type { ScimObject } from "../scim/schema/normalize-value.js";
import type { ResourceSchema } from "../scim/schema/schema-registry.js";
import { readAttribute } from "../scim/schema/resource-access.js";
import { formatPath, type ResolvedPath } from "../scim/schema/resolved-path.js";
import { isUniqueAttribute, uniqueValue } from "../scim/schema/unique-value.js";
import type { UniqueKey } from "./resource-store.js";

// Defined beside `uniqueValue` so that `matchesFilter` (which may not import a store) shares it.
export { isUniqueAttribute } from "../scim/schema/unique-value.js";

/** The unique keys of `attributes` (canonical form) under `schema`. */
export function uniqueKeysOf(schema: ResourceSchema, attributes: ScimObject): UniqueKey[] {
  const keys: UniqueKey[] = [];
  for (const path of uniquePaths(schema)) {
    const value = readAttribute(attributes, path);
    if (typeof value !== "string") continue;
    const { caseExact } = path.attribute;
    keys.push({ attribute: formatPath(path), value: uniqueValue(value, caseExact), ...(caseExact ? { caseExact } : {}) });
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

function findUniquePaths(schema: ResourceSchema): ResolvedPath[] {
  // `id` is unique by construction (the core assigns it), so only client-supplied attributes count.
  return [schema.core, ...schema.extensions.map((extension) => extension.schema)].flatMap((definition) =>
    definition.attributes
      .filter(isUniqueAttribute)
      .map((attribute) => ({ schema: definition.id, extension: definition.id !== schema.core.id, attribute })),
  );
}
