/**
 * Filter pushdown for the key-value store (DESIGN §3): the ids that the index keys prove to be
 * the only possible matches of a filter, so that `userName eq "x"` is one `get`, not a scan of
 * every record. Everything the keys cannot answer falls back to a scan plus `matchesFilter`.
 */
import { formatPath, isUniqueAttribute, type CompareFilter, type Filter, type ResolvedPath } from "../../src/index.js";
import type { KeyValueBackend } from "./key-value-backend.js";
import { keys } from "./key-layout.js";

/** Where a lookup happens: one organization, one resource type. */
export interface IndexScope {
  readonly backend: KeyValueBackend;
  readonly orgId: string;
  readonly resourceType: string;
}

async function lookup(scope: IndexScope, filter: CompareFilter<ResolvedPath>): Promise<readonly string[] | undefined> {
  const { backend, orgId, resourceType } = scope;
  const { path, value } = filter;
  // `eq null` matches the resources WITHOUT a value, which no index lists; a sub-attribute
  // (`name.familyName`) has no index of its own.
  if (filter.op !== "eq" || typeof value !== "string" || path.subAttribute) return undefined;
  const { attribute } = path;
  // The keys hold values exactly as written, so a case-insensitive attribute would need a scan.
  if (!path.extension && attribute.name === "id") {
    return attribute.caseExact ? [value] : undefined;
  }
  if (!path.extension && attribute.name === "externalId") {
    if (!attribute.caseExact) return undefined;
    const ids: string[] = [];
    for await (const [, id] of backend.scan(keys.externalIds(orgId, resourceType, value))) ids.push(id);
    return ids;
  }
  // The same test the core uses to derive `uniqueKeys`, so an `idx:` key exists for every
  // resource with a value for this attribute; unique values are lower-cased unless caseExact.
  if (!isUniqueAttribute(attribute)) return undefined;
  const normalized = attribute.caseExact ? value : value.toLowerCase();
  const holder = await backend.get(keys.unique(orgId, resourceType, formatPath(path), normalized));
  return holder === undefined ? [] : [holder];
}

/**
 * The ids that can match `filter`, or `undefined` when no index narrows it and the caller must
 * scan. A superset of the matches, not the matches: the caller still checks every candidate with
 * `matchesFilter`, which keeps this function small — it never has to be exactly right, only never
 * miss. An `and` uses its most selective indexed child; an `or` the union when every child is indexed.
 */
export async function indexCandidates(scope: IndexScope, filter: Filter<ResolvedPath>): Promise<readonly string[] | undefined> {
  switch (filter.kind) {
    case "compare":
      return lookup(scope, filter);
    case "and": {
      let best: readonly string[] | undefined;
      for (const child of filter.filters) {
        const ids = await indexCandidates(scope, child);
        if (ids && (!best || ids.length < best.length)) best = ids;
      }
      return best;
    }
    case "or": {
      const union = new Set<string>();
      for (const child of filter.filters) {
        const ids = await indexCandidates(scope, child);
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
