/**
 * The in-memory filter evaluator (RFC 7644 §3.4.2.2): decides whether one resource, in canonical
 * form, satisfies a resolved filter. Stores that cannot translate a filter node run this instead.
 */
import type { AttributeDefinition } from "../schema/attribute-definition.js";
import { isPlainObject, parseDateTime } from "../schema/normalize-value.js";
import { hasValue } from "../schema/has-value.js";
import { leafOf, type ResolvedPath } from "../schema/resolved-path.js";
import { isUniqueAttribute, uniqueValue } from "../schema/unique-value.js";
import type { CompareFilter, Filter, FilterValue, ValuePathFilter } from "./filter-ast.js";

/**
 * Whether some candidate value the path denotes in a scope satisfies `test`. The scope is the
 * resource, or one element inside `attr[…]`. Candidates are visited in place, never collected,
 * because a store may evaluate one filter against 100,000 resources.
 */
type Candidates = (scope: unknown, test: (candidate: unknown) => boolean) => boolean;

// Own properties only: data parsed from JSON may carry keys such as `__proto__` or `constructor`,
// and an inherited member must never pass for an attribute value.
function own(container: unknown, key: string): unknown {
  return isPlainObject(container) && Object.hasOwn(container, key) ? container[key] : undefined;
}

/** `test` on a value, or on each element of an array value (a lone value is a list of one). */
function someOf(value: unknown, test: (candidate: unknown) => boolean): boolean {
  if (!Array.isArray(value)) return test(value);
  for (const element of value) if (test(element)) return true;
  return false;
}

const never: Candidates = () => false;

function candidatesOf(path: ResolvedPath, outer: ResolvedPath | undefined): Candidates {
  const sub = path.subAttribute;
  if (outer) {
    // Resolution makes every path inside `attr[…]` an `attr.sub` path; anything else names nothing here.
    if (!sub || path.attribute !== outer.attribute || path.schema !== outer.schema) return never;
    const name = sub.name;
    return (element, test) => someOf(own(element, name), test);
  }
  const { schema, extension } = path;
  const name = path.attribute.name;
  // RFC 7643 §3.3: extension attributes live under the extension's URN.
  const top = extension ? (resource: unknown) => own(own(resource, schema), name) : (resource: unknown) => own(resource, name);
  if (!sub) return (resource, test) => someOf(top(resource), test);
  const subName = sub.name;
  // `emails.value` on a multi-valued attribute denotes every element's value (RFC 7644 §3.4.2.2).
  return (resource, test) => someOf(top(resource), (element) => someOf(own(element, subName), test));
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

/** The test "equals `target`" for candidates of `leaf`, with the target folded or parsed once. */
function equalityTest(target: FilterValue, leaf: AttributeDefinition): (candidate: unknown) => boolean {
  if (leaf.type === "string" || leaf.type === "reference" || leaf.type === "binary") {
    if (typeof target !== "string") return () => false;
    // RFC 7643 §2.3.6: binary values are case-exact whatever the definition says.
    const caseExact = leaf.caseExact || leaf.type === "binary";
    const folded = fold(target, caseExact);
    return (candidate) => typeof candidate === "string" && fold(candidate, caseExact) === folded;
  }
  if (leaf.type === "dateTime") {
    const instant = typeof target === "string" ? parseDateTime(target) : undefined;
    if (instant === undefined) return () => false;
    return (candidate) => typeof candidate === "string" && parseDateTime(candidate) === instant;
  }
  return (candidate) => compareValues(candidate, target, leaf) === 0;
}

/**
 * Equality on a unique attribute (`userName`): as its `UniqueKey`s compare (`uniqueValue`, Unicode
 * NFC), so `userName eq` finds the same resources here as through a store's unique index.
 */
function uniqueEqualityTest(target: FilterValue, leaf: AttributeDefinition): (candidate: unknown) => boolean {
  if (typeof target !== "string") return () => false;
  const key = uniqueValue(target, leaf.caseExact);
  return (candidate) => typeof candidate === "string" && uniqueValue(candidate, leaf.caseExact) === key;
}

function substringTest(target: FilterValue, leaf: AttributeDefinition, op: "co" | "sw" | "ew"): (candidate: unknown) => boolean {
  if (typeof target !== "string" || (leaf.type !== "string" && leaf.type !== "reference")) return () => false;
  const caseExact = leaf.caseExact;
  const folded = fold(target, caseExact);
  if (op === "co") return (candidate) => typeof candidate === "string" && fold(candidate, caseExact).includes(folded);
  if (op === "sw") return (candidate) => typeof candidate === "string" && fold(candidate, caseExact).startsWith(folded);
  return (candidate) => typeof candidate === "string" && fold(candidate, caseExact).endsWith(folded);
}

function orderTest(target: FilterValue, leaf: AttributeDefinition, op: "gt" | "ge" | "lt" | "le"): (candidate: unknown) => boolean {
  // RFC 7644 §3.4.2.2: ordering is undefined for booleans (resolution rejects it); guard anyway.
  if (leaf.type === "boolean" || target === null) return () => false;
  const accept =
    op === "gt"
      ? (order: number) => order > 0
      : op === "ge"
        ? (order: number) => order >= 0
        : op === "lt"
          ? (order: number) => order < 0
          : (order: number) => order <= 0;
  return (candidate) => {
    const order = compareValues(candidate, target, leaf);
    return order !== undefined && accept(order);
  };
}

type Predicate = (scope: unknown) => boolean;

function compileCompare(filter: CompareFilter<ResolvedPath>, outer: ResolvedPath | undefined): Predicate {
  const candidates = candidatesOf(filter.path, outer);
  const leaf = leafOf(filter.path);
  const { op, value } = filter;
  // RFC 7644 §3.4.2.2 says a multi-valued attribute matches when ANY value matches. `ne` is defined
  // here as the negation of `eq` rather than as "some value differs": `emails.type ne "work"` means
  // no e-mail is a work e-mail, which is what a client filtering out work addresses wants, and it
  // keeps `not (a eq x)` and `a ne x` equivalent. An absent attribute equals nothing, so `ne` holds
  // for it, and `eq null` holds exactly when the attribute has no value.
  const isEqual =
    !outer && !filter.path.subAttribute && isUniqueAttribute(leaf) ? uniqueEqualityTest(value, leaf) : equalityTest(value, leaf);
  const equal: Predicate = value === null ? (scope) => !candidates(scope, hasValue) : (scope) => candidates(scope, isEqual);
  switch (op) {
    case "eq":
      return equal;
    case "ne":
      return (scope) => !equal(scope);
    case "co":
    case "sw":
    case "ew": {
      const test = substringTest(value, leaf, op);
      return (scope) => candidates(scope, test);
    }
    case "gt":
    case "ge":
    case "lt":
    case "le": {
      const test = orderTest(value, leaf, op);
      return (scope) => candidates(scope, test);
    }
  }
}

function compile(filter: Filter<ResolvedPath>, outer: ResolvedPath | undefined): Predicate {
  switch (filter.kind) {
    case "compare":
      return compileCompare(filter, outer);
    case "present": {
      const candidates = candidatesOf(filter.path, outer);
      return (scope) => candidates(scope, hasValue);
    }
    case "and": {
      const children = filter.filters.map((child) => compile(child, outer));
      return (scope) => children.every((child) => child(scope));
    }
    case "or": {
      const children = filter.filters.map((child) => compile(child, outer));
      return (scope) => children.some((child) => child(scope));
    }
    case "not": {
      const inner = compile(filter.filter, outer);
      return (scope) => !inner(scope);
    }
    case "valuePath": {
      // RFC 7644 §3.4.2.2 `attr[valFilter]`: one element must satisfy the whole inner filter by
      // itself; conditions met by different elements do not combine.
      const elements = candidatesOf(filter.path, outer);
      const inner = compile(filter.filter, filter.path);
      const test = (element: unknown): boolean => isPlainObject(element) && inner(element);
      return (scope) => elements(scope, test);
    }
  }
}

// A filter is compiled once, however many resources it is matched against; the AST is immutable data.
const compiled = new WeakMap<Filter<ResolvedPath>, Predicate>();

/**
 * Whether `resource` satisfies `filter` (RFC 7644 §3.4.2.2). The resource is canonical JSON: core
 * and common attributes at the top level under their canonical names, extension attributes under
 * the extension's URN. Values of the wrong JSON type never match and never throw; string comparisons
 * honour the leaf attribute's `caseExact`, and equality on a unique attribute (`userName`) compares
 * in Unicode NFC as its unique keys do; dateTimes compare as instants; multi-valued attributes
 * match when any value does; `pr` is false for null, "", [] and empty objects.
 */
export function matchesFilter(resource: Readonly<Record<string, unknown>>, filter: Filter<ResolvedPath>): boolean {
  let predicate = compiled.get(filter);
  if (!predicate) {
    predicate = compile(filter, undefined);
    compiled.set(filter, predicate);
  }
  return predicate(resource);
}

// The inner filter of a value path, compiled once to test one element on its own.
const compiledElements = new WeakMap<ValuePathFilter<ResolvedPath>, Predicate>();

/**
 * Whether one element of a multi-valued complex attribute satisfies the inner filter of
 * `attr[filter]` by itself (RFC 7644 §3.4.2.2), as `matchesFilter` decides it for a resource
 * holding only that element — without building that resource for each element tested.
 */
export function matchesElement(filter: ValuePathFilter<ResolvedPath>, element: unknown): boolean {
  let predicate = compiledElements.get(filter);
  if (!predicate) {
    const inner = compile(filter.filter, filter.path);
    predicate = (candidate) => isPlainObject(candidate) && inner(candidate);
    compiledElements.set(filter, predicate);
  }
  return predicate(element);
}
