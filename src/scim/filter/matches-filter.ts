/**
 * The in-memory filter evaluator (RFC 7644 §3.4.2.2): decides whether one resource, in canonical
 * form, satisfies a resolved filter. Stores that cannot translate a filter node run this instead.
 */
import type { AttributeDefinition } from "../schema/attribute-definition.js";
import { isPlainObject, parseDateTime } from "../schema/normalize-value.js";
import { hasValue } from "../schema/has-value.js";
import { leafOf, type ResolvedPath } from "../schema/resolved-path.js";
import type { CompareFilter, Filter, FilterValue } from "./filter-ast.js";

/** Reads the candidate values a path denotes in the current scope: the resource, or one element inside `attr[…]`. */
type Reader = (path: ResolvedPath) => readonly unknown[];

// Own properties only: data parsed from JSON may carry keys such as `__proto__` or `constructor`,
// and an inherited member must never pass for an attribute value.
function own(container: unknown, key: string): unknown {
  return isPlainObject(container) && Object.hasOwn(container, key) ? container[key] : undefined;
}

function asList(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [value];
}

function topLevelValue(resource: unknown, path: ResolvedPath): unknown {
  // RFC 7643 §3.3: extension attributes live under the extension's URN.
  const container = path.extension ? own(resource, path.schema) : resource;
  return own(container, path.attribute.name);
}

function readFromResource(resource: unknown): Reader {
  return (path) => {
    const value = topLevelValue(resource, path);
    const sub = path.subAttribute;
    if (!sub) return asList(value);
    // `emails.value` on a multi-valued attribute denotes every element's value (RFC 7644 §3.4.2.2).
    return asList(value).flatMap((element) => asList(own(element, sub.name)));
  };
}

function readFromElement(element: unknown, outer: ResolvedPath): Reader {
  return (path) => {
    const sub = path.subAttribute;
    // Resolution makes every path inside `attr[…]` an `attr.sub` path; anything else names nothing here.
    if (!sub || path.attribute !== outer.attribute || path.schema !== outer.schema) return [];
    return asList(own(element, sub.name));
  };
}

const fold = (text: string, caseExact: boolean): string => (caseExact ? text : text.toLowerCase());

/** A total order on two values of the leaf's type, or undefined when they are not comparable. */
function compareValues(candidate: unknown, target: FilterValue, leaf: AttributeDefinition): number | undefined {
  switch (leaf.type) {
    case "string":
    case "reference":
    case "binary": {
      if (typeof candidate !== "string" || typeof target !== "string") return undefined;
      // RFC 7643 §2.3.6: binary values are case-exact whatever the definition says.
      const caseExact = leaf.caseExact || leaf.type === "binary";
      const a = fold(candidate, caseExact);
      const b = fold(target, caseExact);
      // Code-unit order: lexicographic as RFC 7644 §3.4.2.2 asks, and independent of the host's locale.
      return a < b ? -1 : a > b ? 1 : 0;
    }
    case "integer":
    case "decimal":
      if (typeof candidate !== "number" || typeof target !== "number" || Number.isNaN(candidate)) return undefined;
      return Math.sign(candidate - target);
    case "dateTime": {
      // RFC 7644 §3.4.2.2: dateTimes compare chronologically, so offsets denoting one instant are equal.
      const a = typeof candidate === "string" ? parseDateTime(candidate) : undefined;
      const b = typeof target === "string" ? parseDateTime(target) : undefined;
      return a === undefined || b === undefined ? undefined : Math.sign(a - b);
    }
    case "boolean":
      if (typeof candidate !== "boolean" || typeof target !== "boolean") return undefined;
      return candidate === target ? 0 : 1;
    case "complex":
      return undefined;
  }
}

function matchesSubstring(candidate: unknown, target: FilterValue, leaf: AttributeDefinition, op: "co" | "sw" | "ew"): boolean {
  if (typeof candidate !== "string" || typeof target !== "string") return false;
  if (leaf.type !== "string" && leaf.type !== "reference") return false;
  const a = fold(candidate, leaf.caseExact);
  const b = fold(target, leaf.caseExact);
  if (op === "co") return a.includes(b);
  return op === "sw" ? a.startsWith(b) : a.endsWith(b);
}

function matchesCompare(filter: CompareFilter<ResolvedPath>, read: Reader): boolean {
  const candidates = read(filter.path);
  const leaf = leafOf(filter.path);
  const present = candidates.some((candidate) => hasValue(candidate));
  const { op, value } = filter;
  // RFC 7644 §3.4.2.2 says a multi-valued attribute matches when ANY value matches. `ne` is defined
  // here as the negation of `eq` rather than as "some value differs": `emails.type ne "work"` means
  // no e-mail is a work e-mail, which is what a client filtering out work addresses wants, and it
  // keeps `not (a eq x)` and `a ne x` equivalent. An absent attribute equals nothing, so `ne` holds
  // for it, and `eq null` holds exactly when the attribute has no value.
  const equal = (): boolean =>
    value === null ? !present : candidates.some((candidate) => compareValues(candidate, value, leaf) === 0);
  switch (op) {
    case "eq":
      return equal();
    case "ne":
      return !equal();
    case "co":
    case "sw":
    case "ew":
      return candidates.some((candidate) => matchesSubstring(candidate, value, leaf, op));
    case "gt":
    case "ge":
    case "lt":
    case "le":
      // RFC 7644 §3.4.2.2: ordering is undefined for booleans (resolution rejects it); guard anyway.
      if (leaf.type === "boolean" || value === null) return false;
      return candidates.some((candidate) => {
        const order = compareValues(candidate, value, leaf);
        if (order === undefined) return false;
        if (op === "gt") return order > 0;
        if (op === "ge") return order >= 0;
        return op === "lt" ? order < 0 : order <= 0;
      });
  }
}

function evaluate(filter: Filter<ResolvedPath>, read: Reader): boolean {
  switch (filter.kind) {
    case "compare":
      return matchesCompare(filter, read);
    case "present":
      return read(filter.path).some((candidate) => hasValue(candidate));
    case "and":
      return filter.filters.every((child) => evaluate(child, read));
    case "or":
      return filter.filters.some((child) => evaluate(child, read));
    case "not":
      return !evaluate(filter.filter, read);
    case "valuePath": {
      // RFC 7644 §3.4.2.2 `attr[valFilter]`: one element must satisfy the whole inner filter by
      // itself; conditions met by different elements do not combine.
      return read(filter.path).some(
        (element) => isPlainObject(element) && evaluate(filter.filter, readFromElement(element, filter.path)),
      );
    }
  }
}

/**
 * Whether `resource` satisfies `filter` (RFC 7644 §3.4.2.2). The resource is canonical JSON: core
 * and common attributes at the top level under their canonical names, extension attributes under
 * the extension's URN. Values of the wrong JSON type never match and never throw; string comparisons
 * honour the leaf attribute's `caseExact`; dateTimes compare as instants; multi-valued attributes
 * match when any value does; `pr` is false for null, "", [] and empty objects.
 */
export function matchesFilter(resource: Readonly<Record<string, unknown>>, filter: Filter<ResolvedPath>): boolean {
  return evaluate(filter, readFromResource(resource));
}
