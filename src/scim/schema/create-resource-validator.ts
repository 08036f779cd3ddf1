/**
 * The write-side gate of a resource type under a profile: normalize a client body, drop what the
 * profile does not synchronize, and check what it requires — every issue reported at once.
 */
import { commonAttributes } from "./common-attributes.js";
import { invalidValueError, type ValidationIssue } from "../../errors.js";
import { fail, ok, type Result } from "../../result.js";
import type { Tolerances } from "../compatibility/compatibility-profile.js";
import type { Filter } from "../filter/filter-ast.js";
import { compileFilter } from "../filter/resolve-filter.js";
import { matchesFilter } from "../filter/matches-filter.js";
import type { AttributeDefinition, SchemaDefinition } from "./attribute-definition.js";
import type { ResolvedPath } from "./resolved-path.js";
import type { ResourceSchema } from "./schema-registry.js";
import type { ResourceProfile } from "./resource-profile.js";
import { hasValue } from "./has-value.js";
import { isPlainObject, type ScimObject } from "./normalize-value.js";
import { normalizeResource, schemasFor } from "./normalize-resource.js";
import { selectAttributes } from "./attribute-selection.js";
import { pickAttributes } from "./pick-attributes.js";

export interface ResourceValidator {
  /**
   * A POST or PUT body → the resource to store, or one 400 naming every problem. `tolerances`: the
   * identity-provider shapes to accept (architecture §4); default every one.
   */
  prepare(body: unknown, tolerances?: Tolerances): Result<ScimObject>;
  /**
   * An already-normalized resource (for example the result of `applyPatch`) → the resource to
   * store: pruned to the profile and checked for required attributes.
   */
  conform(resource: ScimObject): Result<ScimObject>;
}

interface RequiredCheck {
  readonly label: string;
  readonly filter: Filter<ResolvedPath>;
}

function missingSchemaRequired(schema: SchemaDefinition, container: ScimObject | undefined, prefix: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const isMissing = (value: unknown): boolean => !hasValue(value);
  const checkSubs = (attribute: AttributeDefinition, value: unknown, path: string): void => {
    const required = (attribute.subAttributes ?? []).filter((sub) => sub.required && sub.mutability !== "readOnly");
    if (required.length === 0) return;
    const elements = Array.isArray(value) ? value : [value];
    elements.forEach((element, index) => {
      if (!isPlainObject(element)) return;
      const at = Array.isArray(value) ? `${path}[${index}]` : path;
      for (const sub of required) {
        if (isMissing(element[sub.name])) issues.push({ path: `${at}.${sub.name}`, message: "is required" });
      }
    });
  };
  for (const attribute of schema.attributes) {
    // RFC 7643 §7: the service provider assigns readOnly attributes, so a client cannot be asked for them.
    if (attribute.mutability === "readOnly") continue;
    const value = container?.[attribute.name];
    const path = `${prefix}${attribute.name}`;
    if (isMissing(value)) {
      if (attribute.required) issues.push({ path, message: "is required" });
    } else if (attribute.type === "complex") {
      checkSubs(attribute, value, path);
    }
  }
  return issues;
}

/** Builds the validator of one resource type under a profile. */
export function createResourceValidator(schema: ResourceSchema, profile: ResourceProfile): ResourceValidator {
  const typeId = schema.resourceType.id;
  const keptPaths = profile.synchronized?.[typeId];
  const kept = keptPaths === undefined ? undefined : selectAttributes(schema, keptPaths);
  if (kept && kept.unknown.length > 0) {
    throw new Error(`Profile ${profile.name}: ${typeId} synchronizes unknown attributes ${kept.unknown.join(", ")}`);
  }
  const requiredChecks: RequiredCheck[] = (profile.required?.[typeId] ?? []).map((label) => {
    const compiled = compileFilter(schema, `${label} pr`);
    if (!compiled.ok) throw new Error(`Profile ${profile.name}: required path "${label}" is invalid: ${compiled.error.detail}`);
    return { label, filter: compiled.value };
  });
  const common = new Set<AttributeDefinition>(commonAttributes);

  const prune = (resource: ScimObject): ScimObject => {
    if (!kept) return resource;
    const pruned = pickAttributes(schema, resource, {
      keepAttribute: (owner, attribute) => common.has(attribute) || kept.coverage(owner.id, attribute.name) !== undefined,
      keepSubAttribute: (owner, attribute, sub) => {
        if (common.has(attribute)) return true;
        const coverage = kept.coverage(owner.id, attribute.name);
        return coverage === "all" || coverage?.has(sub.name.toLowerCase()) === true;
      },
    });
    return { ...pruned, schemas: schemasFor(schema, pruned) };
  };

  const conform = (resource: ScimObject): Result<ScimObject> => {
    const pruned = prune(resource);
    const issues: ValidationIssue[] = missingSchemaRequired(schema.core, pruned, "");
    for (const extension of schema.extensions) {
      const container = pruned[extension.schema.id];
      if (extension.required && !isPlainObject(container)) {
        issues.push({ path: extension.schema.id, message: "is a required extension" });
      } else if (isPlainObject(container)) {
        issues.push(...missingSchemaRequired(extension.schema, container, `${extension.schema.id}:`));
      }
    }
    for (const check of requiredChecks) {
      if (!issues.some((issue) => issue.path === check.label) && !matchesFilter(pruned, check.filter)) {
        issues.push({ path: check.label, message: "is required" });
      }
    }
    return issues.length > 0 ? fail(invalidValueError(issues)) : ok(pruned);
  };

  return {
    prepare: (body, tolerances) => {
      const normalized = normalizeResource(schema, body, tolerances);
      return normalized.ok ? conform(normalized.value) : normalized;
    },
    conform,
  };
}
