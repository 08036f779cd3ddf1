/**
 * Projection of a resource for a response: RFC 7644 §3.9 `attributes` / `excludedAttributes`
 * combined with the RFC 7643 §7 `returned` characteristic.
 */
import type { AttributeDefinition, SchemaDefinition } from "./attribute-definition.js";
import type { ResourceSchema } from "./schema-registry.js";
import { isPlainObject, type ScimObject } from "./normalize-value.js";
import { selectAttributes } from "./attribute-selection.js";
import { pickAttributes, pickAttributesInSlices, type AttributePicker } from "./pick-attributes.js";
import type { EventLoopSlice } from "../../event-loop-slice.js";

/** The two query parameters of RFC 7644 §3.9, as lists of paths. */
export interface ProjectionRequest {
  readonly attributes?: readonly string[];
  readonly excludedAttributes?: readonly string[];
}

/** A compiled projection for one resource type: compile once per request, apply per resource. */
export interface Projection {
  /** The resource as the client may see it. */
  apply(resource: ScimObject): ScimObject;
  /**
   * `apply` for a resource that may carry a group's every member: the same object, with the
   * elements of a large attribute picked in slices of the event loop (architecture §4b).
   */
  applyInSlices(resource: ScimObject, slice?: EventLoopSlice): Promise<ScimObject>;
  /**
   * Whether the response can include the attribute at all — e.g. `includes("members")` is false
   * for `excludedAttributes=members`, so a store need not load a group's members.
   */
  includes(path: string): boolean;
}

// RFC 7643 §7: "request" attributes appear only when named in `attributes`.
const shownByDefault = (definition: AttributeDefinition): boolean => definition.returned !== "request";

const hidden = (definition: AttributeDefinition): boolean => definition.returned === "never" || definition.returned === "request";

/** Whether any sub-attribute of the resource type is hidden by default (returned never or request). */
function hasHiddenSubAttributes(schema: ResourceSchema): boolean {
  const definitions = [schema.core, ...schema.extensions.map((extension) => extension.schema)];
  return definitions.some((definition) => definition.attributes.some((attribute) => (attribute.subAttributes ?? []).some(hidden)));
}

/**
 * Whether the default projection would return `resource` unchanged: every key is an attribute the
 * schemas define and none is hidden by default. Canonical resources from the store are, so the
 * common read skips rebuilding every response object; anything else takes the full walk.
 */
function isShownWhole(schema: ResourceSchema, resource: ScimObject): boolean {
  for (const key of Object.keys(resource)) {
    const value = resource[key];
    const extension = key.includes(":") ? schema.findSchema(key) : undefined;
    if (extension && extension !== schema.core) {
      if (!isPlainObject(value)) return false;
      for (const name of Object.keys(value)) {
        const attribute = schema.findAttribute(extension, name);
        if (!attribute || attribute.name !== name || hidden(attribute)) return false;
      }
      continue;
    }
    const attribute = key.includes(":") ? undefined : schema.findAttribute(schema.core, key);
    if (!attribute || attribute.name !== key || hidden(attribute)) return false;
  }
  return true;
}

/**
 * Compiles a projection. Paths that name nothing are ignored rather than rejected: RFC 7644 §3.9
 * does not make them an error, and identity providers send attribute lists written for other
 * servers. When both parameters are given, `attributes` wins (RFC 7644 §3.9 makes them
 * alternatives).
 */
export function createProjection(schema: ResourceSchema, request: ProjectionRequest = {}): Projection {
  const included = selectAttributes(schema, request.attributes ?? []);
  const excluded = selectAttributes(schema, request.excludedAttributes ?? []);
  const mode = !included.isEmpty ? "include" : !excluded.isEmpty ? "exclude" : "default";

  const keepAttribute = (owner: SchemaDefinition, attribute: AttributeDefinition): boolean => {
    if (attribute.returned === "never") return false;
    if (attribute.returned === "always") return true;
    if (mode === "include") return included.coverage(owner.id, attribute.name) !== undefined;
    if (mode === "exclude" && excluded.coverage(owner.id, attribute.name) === "all") return false;
    return shownByDefault(attribute);
  };
  const keepSubAttribute = (owner: SchemaDefinition, attribute: AttributeDefinition, sub: AttributeDefinition): boolean => {
    if (sub.returned === "never") return false;
    if (sub.returned === "always" || attribute.returned === "always") return true;
    const key = sub.name.toLowerCase();
    if (mode === "include") {
      const coverage = included.coverage(owner.id, attribute.name);
      return coverage === "all" ? shownByDefault(sub) : coverage?.has(key) === true;
    }
    if (mode === "exclude") {
      const coverage = excluded.coverage(owner.id, attribute.name);
      if (coverage !== undefined && coverage !== "all" && coverage.has(key)) return false;
    }
    return shownByDefault(sub);
  };
  const picker: AttributePicker = { keepAttribute, keepSubAttribute };

  const pick = (resource: ScimObject): ScimObject => pickAttributes(schema, resource, picker);
  const whole = mode === "default" && !hasHiddenSubAttributes(schema);
  return {
    apply: whole ? (resource) => (isShownWhole(schema, resource) ? resource : pick(resource)) : pick,
    applyInSlices: async (resource, slice) =>
      whole && isShownWhole(schema, resource) ? resource : pickAttributesInSlices(schema, resource, picker, slice),
    includes: (path) => {
      const resolution = schema.resolvePath(path);
      if (!resolution.ok) return false;
      const owner = resolution.path.extension ? schema.findSchema(resolution.path.schema) : schema.core;
      return owner !== undefined && keepAttribute(owner, resolution.path.attribute);
    },
  };
}
