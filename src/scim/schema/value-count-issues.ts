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
  issues: ValidationIssue[],
): void {
  if (!isPlainObject(container)) return;
  // Loops, not flatMap: this runs on every POST and PUT body, and nearly always finds nothing.
  for (const attribute of attributes) {
    if (!attribute.multiValued) continue;
    const value = container[attribute.name];
    if (!Array.isArray(value) || value.length <= limit || exempt(attribute)) continue;
    issues.push({ path: `${prefix}${attribute.name}`, message: `holds ${value.length} values; the limit is ${limit} (maxValues)` });
  }
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
  const issues: ValidationIssue[] = [];
  countIssues(schema.core.attributes, resource, "", limit, exempt, issues);
  for (const { schema: extension } of schema.extensions) {
    countIssues(extension.attributes, resource[extension.id], `${extension.id}:`, limit, exempt, issues);
  }
  return issues;
}
