/**
 * Filter pushdown for the memory store (DESIGN §3): the ids an index proves to be the only
 * possible matches of a filter, so that `userName eq "x"` is a lookup, not a scan.
 */
import type { CompareFilter, Filter } from "../../scim/filter/filter-ast.js";
import { formatPath, type ResolvedPath } from "../../scim/schema/resolved-path.js";
import { isUniqueAttribute } from "../unique-keys.js";
import type { ResourceTable } from "./resource-table.js";

function lookup(table: ResourceTable, filter: CompareFilter<ResolvedPath>): readonly string[] | undefined {
  const { path, value } = filter;
  // `eq null` matches the resources WITHOUT a value, which no index lists.
  if (filter.op !== "eq" || typeof value !== "string" || path.subAttribute) return undefined;
  const { attribute } = path;
  if (!path.extension && attribute.name === "id") {
    if (!attribute.caseExact) return undefined;
    return table.entries.has(value) ? [value] : [];
  }
  if (!path.extension && attribute.name === "externalId") {
    // The index holds values exactly as written; a case-insensitive externalId would need a scan.
    if (!attribute.caseExact) return undefined;
    return [...(table.externalIds.get(value) ?? [])];
  }
  // The same test as `uniqueKeysOf`, so the unique index holds every resource with a value for it.
  if (!isUniqueAttribute(attribute)) return undefined;
  // Unique keys are lower-cased unless caseExact (RFC 7643 §2.1), as `matchesFilter` compares them.
  const holder = table.uniqueValues.get(formatPath(path))?.get(attribute.caseExact ? value : value.toLowerCase());
  return holder === undefined ? [] : [holder];
}

/**
 * The ids that can match `filter`, or `undefined` when no index narrows it and the caller must
 * scan. The answer is a superset of the matches, not the matches: check every candidate with
 * `matchesFilter`. Indexed are `eq` on `id`, on `externalId` and on a unique attribute; an `and`
 * uses its most selective indexed child, an `or` the union when every child is indexed.
 */
export function indexCandidates(table: ResourceTable, filter: Filter<ResolvedPath>): readonly string[] | undefined {
  switch (filter.kind) {
    case "compare":
      return lookup(table, filter);
    case "and": {
      let best: readonly string[] | undefined;
      for (const child of filter.filters) {
        const ids = indexCandidates(table, child);
        if (ids && (!best || ids.length < best.length)) best = ids;
      }
      return best;
    }
    case "or": {
      const union = new Set<string>();
      for (const child of filter.filters) {
        const ids = indexCandidates(table, child);
        if (!ids) return undefined;
        for (const id of ids) union.add(id);
      }
      return [...union];
    }
    case "present":
    case "not":
    case "valuePath":
      return undefined;
  }
}
