/**
 * Filter pushdown for any store (architecture §3: `userName eq "x"` is a lookup, not a scan): which
 * comparisons an index can answer, and which ids a whole filter can then match. The store only
 * says what its indexes hold for one key; the memory store reads a map, the key-value example
 * fetches every key first with `indexKeysOf`, a SQL store can turn the keys into one query.
 */
import type { CompareFilter, Filter } from "../scim/filter/filter-ast.js";
import { formatPath, type ResolvedPath } from "../scim/schema/resolved-path.js";
import { isUniqueAttribute, uniqueValue } from "../scim/schema/unique-value.js";

/**
 * One index entry a store looks up: the resource with an `id`, the resources with an
 * `externalId`, or the holder of a unique value. `attribute` and `value` of a `unique` key are in
 * the form of `UniqueKey` (`formatPath`, lower-cased unless caseExact), so a store that indexes
 * the `uniqueKeys` the core hands it compares them exactly: a filter value in NFD finds the
 * holder of its NFC form.
 *
 * @example { index: "unique", attribute: "userName", value: "alice" }  // from `userName eq "Alice"`
 */
export type IndexKey =
  | { readonly index: "id"; readonly value: string }
  | { readonly index: "externalId"; readonly value: string }
  | { readonly index: "unique"; readonly attribute: string; readonly value: string };

/**
 * The index entry that lists every resource `filter` can match, or `undefined` when no index
 * does. Indexed are `eq` on `id`, on `externalId` and on a unique attribute (`isUniqueAttribute`),
 * each compared with a string.
 */
export function indexKeyOf(filter: CompareFilter<ResolvedPath>): IndexKey | undefined {
  const { path, value } = filter;
  // `eq null` matches the resources WITHOUT a value, which no index lists; a sub-attribute
  // (`name.familyName`) has no index of its own.
  if (filter.op !== "eq" || typeof value !== "string" || path.subAttribute) return undefined;
  const { attribute } = path;
  // Ids and externalIds are indexed exactly as written (RFC 7643 §3.1 makes both caseExact); a
  // schema that relaxes that would need a case-insensitive match, which only a scan gives.
  if (!path.extension && attribute.name === "id") {
    return attribute.caseExact ? { index: "id", value } : undefined;
  }
  if (!path.extension && attribute.name === "externalId") {
    return attribute.caseExact ? { index: "externalId", value } : undefined;
  }
  // The same test as `uniqueKeysOf`, so the unique index holds every resource with a value here.
  if (!isUniqueAttribute(attribute)) return undefined;
  // In the form `uniqueKeysOf` stores and `matchesFilter` compares: NFC, lower-cased unless caseExact.
  return { index: "unique", attribute: formatPath(path), value: uniqueValue(value, attribute.caseExact) };
}

/**
 * Every key `candidateIds(filter, lookup)` may pass to `lookup`, so that a store whose lookups are
 * async (or batched into one query) can fetch them all first and answer `lookup` from what it
 * fetched. Empty when no index narrows `filter`. A key repeats when the filter repeats a
 * comparison; keys of `or` branches that cannot narrow anything are left out.
 *
 * @example
 * const found = new Map(await Promise.all(indexKeysOf(filter).map(async (key) => [address(key), await fetch(key)] as const)));
 * const ids = candidateIds(filter, (key) => found.get(address(key)) ?? []);
 */
export function indexKeysOf(filter: Filter<ResolvedPath>): IndexKey[] {
  switch (filter.kind) {
    case "compare": {
      const key = indexKeyOf(filter);
      return key ? [key] : [];
    }
    case "and":
      return filter.filters.flatMap(indexKeysOf);
    case "or":
      return isIndexed(filter) ? filter.filters.flatMap(indexKeysOf) : [];
    case "present":
    case "not":
    case "valuePath":
      return [];
  }
}

/**
 * The ids that can match `filter`, or `undefined` when no index narrows it and the caller must
 * scan. `lookup` says which ids a store's index lists under one key (every holder of an
 * externalId; an empty list when none); it is called only with keys `indexKeysOf(filter)` lists.
 *
 * The answer is a superset of the matches, not the matches: check every candidate with
 * `matchesFilter`. That keeps this small — it never has to be exactly right, only never miss. An
 * `and` uses its most selective indexed child, since every match satisfies each child; an `or`
 * the union of its children when every child is indexed, since one unindexed child could match
 * anything.
 *
 * @example
 * const ids = candidateIds(filter, (key) => (key.index === "id" ? [key.value] : idsIn(table, key)));
 * const candidates = ids === undefined ? allResources() : ids.map(read);
 */
export function candidateIds(filter: Filter<ResolvedPath>, lookup: (key: IndexKey) => readonly string[]): readonly string[] | undefined {
  switch (filter.kind) {
    case "compare": {
      const key = indexKeyOf(filter);
      return key ? lookup(key) : undefined;
    }
    case "and": {
      let best: readonly string[] | undefined;
      for (const child of filter.filters) {
        const ids = candidateIds(child, lookup);
        if (ids && (!best || ids.length < best.length)) best = ids;
      }
      return best;
    }
    case "or": {
      // Decided before any lookup, so `indexKeysOf` need not list the keys of a hopeless `or`.
      if (!isIndexed(filter)) return undefined;
      const union = new Set<string>();
      for (const child of filter.filters) {
        for (const id of candidateIds(child, lookup) ?? []) union.add(id);
      }
      return [...union];
    }
    case "present":
    case "not":
    case "valuePath":
      return undefined;
  }
}

/** Whether `candidateIds` answers `filter` from indexes rather than `undefined`; it depends on the shape alone. */
function isIndexed(filter: Filter<ResolvedPath>): boolean {
  switch (filter.kind) {
    case "compare":
      return indexKeyOf(filter) !== undefined;
    case "and":
      return filter.filters.some(isIndexed);
    case "or":
      return filter.filters.every(isIndexed);
    case "present":
    case "not":
    case "valuePath":
      return false;
  }
}
