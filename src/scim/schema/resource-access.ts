/**
 * Reading and writing a resolved attribute inside a resource in canonical form: core and common
 * attributes at the top level, extension attributes under their schema URN (RFC 7643 §3.3).
 */
import type { ResolvedPath } from "./resolved-path.js";
import { isPlainObject, type ScimObject } from "./normalize-value.js";

/** The object that holds the path's top-level attribute, if it exists. */
function containerOf(resource: ScimObject, path: ResolvedPath): ScimObject | undefined {
  if (!path.extension) return resource;
  const container = resource[path.schema];
  return isPlainObject(container) ? container : undefined;
}

/** The value of the path's top-level attribute (ignoring any sub-attribute). */
export function readAttribute(resource: ScimObject, path: ResolvedPath): unknown {
  const container = containerOf(resource, path);
  // Own properties only, so that an inherited member never passes for an attribute value.
  return container && Object.hasOwn(container, path.attribute.name) ? container[path.attribute.name] : undefined;
}

/**
 * The value at the full path: for `name.givenName` the string; for `emails.value` on a
 * multi-valued attribute, the array of every element's `value`.
 */
export function readPath(resource: ScimObject, path: ResolvedPath): unknown {
  const value = readAttribute(resource, path);
  const sub = path.subAttribute;
  if (!sub) return value;
  if (Array.isArray(value)) return value.map((element) => (isPlainObject(element) ? element[sub.name] : undefined));
  return isPlainObject(value) ? value[sub.name] : undefined;
}

/**
 * Sets (or, with `undefined`, removes) the path's top-level attribute in place. `resource` must be
 * the caller's own copy. An extension container left empty is removed, and `schemas` is not
 * touched: `schemasFor` derives it.
 */
export function writeAttribute(resource: ScimObject, path: ResolvedPath, value: unknown): void {
  if (!path.extension) {
    if (value === undefined) delete resource[path.attribute.name];
    else resource[path.attribute.name] = value;
    return;
  }
  const existing = resource[path.schema];
  const container: ScimObject = isPlainObject(existing) ? { ...existing } : {};
  if (value === undefined) delete container[path.attribute.name];
  else container[path.attribute.name] = value;
  if (Object.keys(container).length === 0) delete resource[path.schema];
  else resource[path.schema] = container;
}
