/**
 * The bound on values per multi-valued attribute (architecture §4b), checked on a whole resource: a POST
 * or PUT body after normalization. PATCH checks it per operation, as values are added.
 */
import type { ValidationIssue } from "../../errors.js";
import type { AttributeDefinition } from "./attribute-definition.js";
import { isPlainObject, type ScimObject } from "./normalize-value.js";
import type { ResourceSchema } from "./schema-registry.js";

function countIssues(
  attributes: readonly AttributeDefinition[],
  container: unknown,
  prefix: string,
  limit: number,
  exempt: (attribute: AttributeDefinition) => boolean,
): ValidationIssue[] {
  if (!isPlainObject(container)) return [];
  return attributes.flatMap((attribute) => {
    const value = container[attribute.name];
    if (!attribute.multiValued || !Array.isArray(value) || value.length <= limit || exempt(attribute)) return [];
    return [{ path: `${prefix}${attribute.name}`, message: `holds ${value.length} values; the limit is ${limit} (maxValues)` }];
  });
}

/**
 * One issue per multi-valued attribute of `resource` (canonical form) holding more than `limit`
 * values, core and extension attributes alike; `exempt` attributes (group `members`, bounded on
 * their own) are not counted.
 */
export function valueCountIssues(
  schema: ResourceSchema,
  resource: ScimObject,
  limit: number,
  exempt: (attribute: AttributeDefinition) => boolean = () => false,
): ValidationIssue[] {
  return [
    ...countIssues(schema.core.attributes, resource, "", limit, exempt),
    ...schema.extensions.flatMap(({ schema: extension }) =>
      countIssues(extension.attributes, resource[extension.id], `${extension.id}:`, limit, exempt),
    ),
  ];
}
