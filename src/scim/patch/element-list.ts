/**
 * The working copy of one multi-valued attribute while a PATCH runs: its elements at stable
 * positions, with hash indexes built on first use and kept current by every change, so that an
 * operation reaches the elements it names without comparing with all of them (architecture §4b). A PATCH
 * of n operations on an attribute of m values costs about n + m, not n × m.
 */
import { deepEqual } from "../deep-equal.js";
import { equalityKeys, filterEqualityKey } from "../filter/equality-key.js";
import type { Filter, ValuePathFilter } from "../filter/filter-ast.js";
import { matchesElement } from "../filter/matches-filter.js";
import type { AttributeDefinition } from "../schema/attribute-definition.js";
import { isPlainObject } from "../schema/normalize-value.js";
import type { ResolvedPath } from "../schema/resolved-path.js";

/**
 * The identity of an element for add and remove-by-value: two elements with the same key are the
 * same value. Undefined for an element that is the same as nothing (a member without an id).
 */
export type ElementKey = (element: unknown) => string | undefined;

export interface ElementList {
  /** The attribute whose values these are. */
  readonly attribute: AttributeDefinition;
  /** How many values the attribute holds now. */
  readonly size: number;
  /** Whether any change was made since the list was read from the resource. */
  readonly changed: boolean;
  /** Counts the changes made so far: a step that leaves it as it was changed nothing. */
  readonly revision: number;
  /** The element at a live position. */
  at(position: number): unknown;
  /** Every live position, in order. */
  positions(): number[];
  /** The live elements, in order: the attribute's value. */
  values(): unknown[];
  /**
   * The positions, in order, of the elements `filter` selects. An `eq` comparison (alone, in an
   * `and`, or in an `or` of them) is answered from an index; any other filter tests every element.
   */
  select(target: ResolvedPath, filter: ValuePathFilter<ResolvedPath>): number[];
  /**
   * The positions, in order, of the elements that are `candidate` (RFC 7644 §3.5.2.1: a value
   * already there is not added twice): by `elementKey` when the list has one, else every
   * sub-attribute of the candidate is in the element with an equal value (`containsValue`).
   */
  matching(candidate: unknown): number[];
  /** Replaces the element at a live position; an equal element changes nothing. */
  set(position: number, element: unknown): void;
  /** Removes the element at a live position. */
  remove(position: number): void;
  /** Appends an element and returns its position. */
  append(element: unknown): number;
  /** The live positions whose element has `primary: true` (RFC 7643 §2.4). */
  primaries(): readonly number[];
}

/** RFC 7644 §3.5.2.1: `existing` contains every sub-attribute value of `candidate`. */
export function containsValue(existing: unknown, candidate: unknown): boolean {
  if (!isPlainObject(candidate) || !isPlainObject(existing)) return deepEqual(existing, candidate);
  const entries = Object.entries(candidate);
  return entries.length > 0 && entries.every(([name, value]) => deepEqual(existing[name], value));
}

// A removed element leaves this in its slot, so that every other position stays what it was.
const REMOVED: unique symbol = Symbol("removed");

/**
 * How many sets of sub-attribute names get a projection index. Every change updates each one, and
 * an attribute of k sub-attributes has 2^k - 1 sets; clients send a few (`value`; `value`, `type`,
 * `primary`). Candidates naming yet another set are compared with each element instead.
 */
const MAX_PROJECTIONS = 16;

/** A map from key to the positions holding it. */
type Buckets = Map<string, Set<number>>;

function put(buckets: Buckets, key: string, position: number): void {
  const bucket = buckets.get(key);
  if (bucket) bucket.add(position);
  else buckets.set(key, new Set([position]));
}

function take(buckets: Buckets, key: string, position: number): void {
  const bucket = buckets.get(key);
  if (!bucket) return;
  bucket.delete(position);
  if (bucket.size === 0) buckets.delete(key);
}

// Sub-attribute values are scalars or arrays of scalars, so JSON text is an exact key for the
// equality `containsValue` uses; a scalar element (a simple multi-valued attribute) is its own text.
const SCALAR = "";

/**
 * The key of `element` projected onto the sub-attributes `names` (sorted, joined by NUL), or
 * undefined when it lacks one of them and so contains no candidate with those names.
 */
function projectionKey(element: unknown, names: string): string | undefined {
  if (names === SCALAR) return isPlainObject(element) ? undefined : JSON.stringify(element);
  if (!isPlainObject(element)) return undefined;
  const values: unknown[] = [];
  for (const name of names.split("\u0000")) {
    const value = element[name];
    if (value === undefined) return undefined;
    values.push(value);
  }
  return JSON.stringify(values);
}

/** The sub-attribute names of a candidate, as a projection name; undefined when it can match nothing. */
function namesOf(candidate: unknown): string | undefined {
  if (!isPlainObject(candidate)) return SCALAR;
  const names = Object.keys(candidate)
    .filter((name) => candidate[name] !== undefined)
    .sort();
  return names.length === 0 ? undefined : names.join("\u0000");
}

function primaryOf(element: unknown): boolean {
  return isPlainObject(element) && element["primary"] === true;
}

function ascending(a: number, b: number): number {
  return a - b;
}

/**
 * The working copy of `value` (the attribute's current value; a lone value counts as one element),
 * identified by `elementKey` when given.
 */
export function createElementList(attribute: AttributeDefinition, value: unknown, elementKey?: ElementKey): ElementList {
  const slots: unknown[] = value === undefined || value === null ? [] : Array.isArray(value) ? [...value] : [value];
  let size = slots.length;
  let revision = 0;
  const primaries = new Set<number>();
  slots.forEach((element, position) => {
    if (primaryOf(element)) primaries.add(position);
  });
  // Built on first use, then maintained: `eq` indexes per sub-attribute, projections per name set.
  const equalities = new Map<string, { readonly leaf: AttributeDefinition; readonly buckets: Buckets }>();
  const projections = new Map<string, Buckets>();
  const identities: Buckets | undefined = elementKey ? new Map() : undefined;

  const live = (position: number): boolean => position >= 0 && position < slots.length && slots[position] !== REMOVED;

  const index = (position: number, element: unknown): void => {
    if (primaryOf(element)) primaries.add(position);
    for (const [name, { leaf, buckets }] of equalities) {
      if (isPlainObject(element)) for (const key of equalityKeys(element[name], leaf)) put(buckets, key, position);
    }
    for (const [names, buckets] of projections) {
      const key = projectionKey(element, names);
      if (key !== undefined) put(buckets, key, position);
    }
    const identity = elementKey?.(element);
    if (identities && identity !== undefined) put(identities, identity, position);
  };

  const unindex = (position: number, element: unknown): void => {
    primaries.delete(position);
    for (const [name, { leaf, buckets }] of equalities) {
      if (isPlainObject(element)) for (const key of equalityKeys(element[name], leaf)) take(buckets, key, position);
    }
    for (const [names, buckets] of projections) {
      const key = projectionKey(element, names);
      if (key !== undefined) take(buckets, key, position);
    }
    const identity = elementKey?.(element);
    if (identities && identity !== undefined) take(identities, identity, position);
  };

  if (identities && elementKey) {
    slots.forEach((element, position) => {
      const identity = elementKey(element);
      if (identity !== undefined) put(identities, identity, position);
    });
  }

  const equalityIndex = (sub: AttributeDefinition): Buckets => {
    const built = equalities.get(sub.name);
    if (built) return built.buckets;
    const buckets: Buckets = new Map();
    slots.forEach((element, position) => {
      if (element !== REMOVED && isPlainObject(element))
        for (const key of equalityKeys(element[sub.name], sub)) put(buckets, key, position);
    });
    equalities.set(sub.name, { leaf: sub, buckets });
    return buckets;
  };

  const projection = (names: string): Buckets | undefined => {
    const built = projections.get(names);
    if (built) return built;
    if (projections.size >= MAX_PROJECTIONS) return undefined;
    const buckets: Buckets = new Map();
    slots.forEach((element, position) => {
      if (element === REMOVED) return;
      const key = projectionKey(element, names);
      if (key !== undefined) put(buckets, key, position);
    });
    projections.set(names, buckets);
    return buckets;
  };

  /** A superset of the positions `filter` can select, from the indexes; undefined when it needs a scan. */
  const candidates = (target: ResolvedPath, filter: Filter<ResolvedPath>): ReadonlySet<number> | undefined => {
    switch (filter.kind) {
      case "compare": {
        const sub = filter.path.subAttribute;
        if (filter.op !== "eq" || filter.value === null || !sub || filter.path.attribute !== target.attribute) return undefined;
        const key = filterEqualityKey(filter.value, sub);
        if (key === undefined) return new Set();
        return equalityIndex(sub).get(key) ?? new Set();
      }
      case "and": {
        // Any one indexed conjunct bounds the selection; the smallest bounds it best.
        let best: ReadonlySet<number> | undefined;
        for (const child of filter.filters) {
          const found = candidates(target, child);
          if (found && (!best || found.size < best.size)) best = found;
        }
        return best;
      }
      case "or": {
        const union = new Set<number>();
        for (const child of filter.filters) {
          const found = candidates(target, child);
          if (!found) return undefined;
          for (const position of found) union.add(position);
        }
        return union;
      }
      default:
        return undefined;
    }
  };

  const positions = (): number[] => {
    const found: number[] = [];
    slots.forEach((element, position) => {
      if (element !== REMOVED) found.push(position);
    });
    return found;
  };

  return {
    attribute,
    get size() {
      return size;
    },
    get changed() {
      return revision > 0;
    },
    get revision() {
      return revision;
    },
    at: (position) => (live(position) ? slots[position] : undefined),
    positions,
    values: () => slots.filter((element) => element !== REMOVED),
    select: (target, filter) => {
      const bound = candidates(target, filter.filter);
      const considered = bound ? [...bound].filter(live).sort(ascending) : positions();
      // The index only narrows: every candidate is tested against the whole filter.
      return considered.filter((position) => matchesElement(filter, slots[position]));
    },
    matching: (candidate) => {
      if (identities && elementKey) {
        const identity = elementKey(candidate);
        return identity === undefined ? [] : [...(identities.get(identity) ?? [])].sort(ascending);
      }
      const names = namesOf(candidate);
      if (names === undefined) return [];
      const key = projectionKey(candidate, names);
      if (key === undefined) return [];
      const buckets = projection(names);
      if (!buckets) return positions().filter((position) => containsValue(slots[position], candidate));
      return [...(buckets.get(key) ?? [])].sort(ascending);
    },
    set: (position, element) => {
      const previous = slots[position];
      if (!live(position) || deepEqual(previous, element)) return;
      unindex(position, previous);
      slots[position] = element;
      index(position, element);
      revision += 1;
    },
    remove: (position) => {
      if (!live(position)) return;
      unindex(position, slots[position]);
      slots[position] = REMOVED;
      size -= 1;
      revision += 1;
    },
    append: (element) => {
      const position = slots.length;
      slots.push(element);
      index(position, element);
      size += 1;
      revision += 1;
      return position;
    },
    primaries: () => [...primaries].sort(ascending),
  };
}
