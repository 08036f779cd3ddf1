/**
 * Walks a canonical resource and keeps the attributes and sub-attributes a predicate accepts.
 * Profiles (which attributes are synchronized) and projection (which are returned) are both this
 * walk with different predicates.
 */
import type { AttributeDefinition, SchemaDefinition } from "./attribute-definition.js";
import type { ResourceSchema } from "./schema-registry.js";
import { mapInSlices, type EventLoopSlice } from "../../event-loop-slice.js";
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

/** Arrays already picked, by identity, with what the walk keeps of them (`undefined`: nothing). */
type PickedArrays = ReadonlyMap<readonly unknown[], unknown>;

const NONE_PICKED: PickedArrays = new Map();

const keptElements = (elements: readonly unknown[]): unknown => {
  const kept = elements.filter((element) => element !== undefined);
  return kept.length === 0 ? undefined : kept;
};

function pickValue(
  schema: SchemaDefinition,
  attribute: AttributeDefinition,
  value: unknown,
  picker: AttributePicker,
  picked: PickedArrays,
): unknown {
  if (attribute.type !== "complex") return value;
  if (Array.isArray(value)) {
    if (picked.has(value)) return picked.get(value);
    return keptElements(value.map((element) => (isPlainObject(element) ? pickComplex(schema, attribute, element, picker) : undefined)));
  }
  return isPlainObject(value) ? pickComplex(schema, attribute, value, picker) : undefined;
}

function pickFrom(
  schema: SchemaDefinition,
  source: ScimObject,
  find: (name: string) => AttributeDefinition | undefined,
  picker: AttributePicker,
  target: ScimObject,
  picked: PickedArrays,
): void {
  for (const [key, value] of Object.entries(source)) {
    const attribute = find(key);
    if (!attribute || !picker.keepAttribute(schema, attribute)) continue;
    const kept = pickValue(schema, attribute, value, picker, picked);
    if (kept !== undefined) target[attribute.name] = kept;
  }
}

/** A new resource holding what `picker` keeps; keys the schemas do not define are dropped. */
export function pickAttributes(
  schema: ResourceSchema,
  resource: ScimObject,
  picker: AttributePicker,
  picked: PickedArrays = NONE_PICKED,
): ScimObject {
  const result: ScimObject = {};
  const core = schema.core;
  for (const [key, value] of Object.entries(resource)) {
    const extension = key.includes(":") ? schema.findSchema(key) : undefined;
    if (!extension || extension === core) continue;
    if (!isPlainObject(value)) continue;
    const container: ScimObject = {};
    pickFrom(extension, value, (name) => schema.findAttribute(extension, name), picker, container, picked);
    if (Object.keys(container).length > 0) result[extension.id] = container;
  }
  const coreResult: ScimObject = {};
  pickFrom(core, resource, (name) => (name.includes(":") ? undefined : schema.findAttribute(core, name)), picker, coreResult, picked);
  // Core attributes first, as resources are conventionally written.
  return { ...coreResult, ...result };
}

/**
 * Elements of one core attribute beyond which `pickAttributesInSlices` walks them in slices: a
 * group's members run to `writeLimits.maxMembers`; every other attribute stays under `maxValues`.
 */
const SLICED_ELEMENTS = 2_000;

/**
 * `pickAttributes` for a resource whose core multi-valued complex attributes may be large (a
 * group's members, architecture §4b): their elements are picked first, in slices of the event loop, and
 * the walk then takes them as they are. The result is the same object, key for key.
 */
export async function pickAttributesInSlices(
  schema: ResourceSchema,
  resource: ScimObject,
  picker: AttributePicker,
  slice?: EventLoopSlice,
): Promise<ScimObject> {
  const core = schema.core;
  const picked = new Map<readonly unknown[], unknown>();
  for (const [key, value] of Object.entries(resource)) {
    if (!Array.isArray(value) || value.length <= SLICED_ELEMENTS || key.includes(":")) continue;
    const attribute = schema.findAttribute(core, key);
    // The same questions `pickFrom` and `pickValue` ask, so an array is picked only when the walk would.
    if (attribute?.type !== "complex" || !picker.keepAttribute(core, attribute)) continue;
    const elements = await mapInSlices(
      value,
      (element) => (isPlainObject(element) ? pickComplex(core, attribute, element, picker) : undefined),
      slice,
    );
    picked.set(value, keptElements(elements));
  }
  return pickAttributes(schema, resource, picker, picked);
}
