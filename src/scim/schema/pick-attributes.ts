/**
 * Walks a canonical resource and keeps the attributes and sub-attributes a predicate accepts.
 * Profiles (which attributes are synchronized) and projection (which are returned) are both this
 * walk with different predicates.
 */
import type { AttributeDefinition, SchemaDefinition } from "./attribute-definition.js";
import type { ResourceSchema } from "./schema-registry.js";
import { isPlainObject, type ScimObject } from "./normalize-value.js";

/** Decides, per attribute and per sub-attribute, what survives the walk. */
export interface AttributePicker {
  keepAttribute(schema: SchemaDefinition, attribute: AttributeDefinition): boolean;
  keepSubAttribute(schema: SchemaDefinition, attribute: AttributeDefinition, sub: AttributeDefinition): boolean;
}

function pickComplex(
  schema: SchemaDefinition,
  attribute: AttributeDefinition,
  value: ScimObject,
  picker: AttributePicker,
): ScimObject | undefined {
  const result: ScimObject = {};
  let kept = false;
  for (const sub of attribute.subAttributes ?? []) {
    const subValue = value[sub.name];
    if (subValue === undefined || !picker.keepSubAttribute(schema, attribute, sub)) continue;
    result[sub.name] = subValue;
    kept = true;
  }
  return kept ? result : undefined;
}

function pickValue(schema: SchemaDefinition, attribute: AttributeDefinition, value: unknown, picker: AttributePicker): unknown {
  if (attribute.type !== "complex") return value;
  if (Array.isArray(value)) {
    const elements = value
      .map((element) => (isPlainObject(element) ? pickComplex(schema, attribute, element, picker) : undefined))
      .filter((element) => element !== undefined);
    return elements.length === 0 ? undefined : elements;
  }
  return isPlainObject(value) ? pickComplex(schema, attribute, value, picker) : undefined;
}

function pickFrom(
  schema: SchemaDefinition,
  source: ScimObject,
  find: (name: string) => AttributeDefinition | undefined,
  picker: AttributePicker,
  target: ScimObject,
): void {
  for (const [key, value] of Object.entries(source)) {
    const attribute = find(key);
    if (!attribute || !picker.keepAttribute(schema, attribute)) continue;
    const picked = pickValue(schema, attribute, value, picker);
    if (picked !== undefined) target[attribute.name] = picked;
  }
}

/** A new resource holding what `picker` keeps; keys the schemas do not define are dropped. */
export function pickAttributes(schema: ResourceSchema, resource: ScimObject, picker: AttributePicker): ScimObject {
  const result: ScimObject = {};
  const core = schema.core;
  for (const [key, value] of Object.entries(resource)) {
    const extension = key.includes(":") ? schema.findSchema(key) : undefined;
    if (!extension || extension === core) continue;
    if (!isPlainObject(value)) continue;
    const container: ScimObject = {};
    pickFrom(extension, value, (name) => schema.findAttribute(extension, name), picker, container);
    if (Object.keys(container).length > 0) result[extension.id] = container;
  }
  const coreResult: ScimObject = {};
  pickFrom(core, resource, (name) => (name.includes(":") ? undefined : schema.findAttribute(core, name)), picker, coreResult);
  // Core attributes first, as resources are conventionally written.
  return { ...coreResult, ...result };
}
