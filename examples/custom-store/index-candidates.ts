/**
 * Filter pushdown for the key-value store (architecture §3): the ids that the index keys prove to be
 * the only possible matches of a filter, so that `userName eq "x"` is one `get`, not a scan of
 * every record. Everything the keys cannot answer falls back to a scan plus `matchesFilter`.
 *
 * scimkit decides which comparisons an index answers and how `and`/`or` combine them
 * (`indexKeysOf`, `candidateIds`); this file only reads the keys. The backend is async and
 * `candidateIds` is not, so every key it may consult is fetched first.
 */
import { candidateIds, indexKeysOf, type IndexKey } from "scimkit/store";
import type { Filter, ResolvedPath } from "scimkit/core";
import type { KeyValueBackend } from "./key-value-backend.js";
import { keys } from "./key-layout.js";

/** Where a lookup happens: one organization, one resource type. */
export interface IndexScope {
  readonly backend: KeyValueBackend;
  readonly orgId: string;
  readonly resourceType: string;
}

/** The backend key (or prefix) that holds the ids of `key`, which also names its answer in a Map. */
function addressOf(scope: IndexScope, key: Exclude<IndexKey, { index: "id" }>): string {
  const { orgId, resourceType } = scope;
  return key.index === "unique"
    ? keys.unique(orgId, resourceType, key.attribute, key.value)
    : keys.externalIds(orgId, resourceType, key.value);
}

async function fetchIds(scope: IndexScope, key: Exclude<IndexKey, { index: "id" }>): Promise<string[]> {
  if (key.index === "unique") {
    const holder = await scope.backend.get(addressOf(scope, key));
    return holder === undefined ? [] : [holder];
  }
  // externalId is not unique (RFC 7643 §3.1): one key per holder under a common prefix.
  const ids: string[] = [];
  for await (const [, id] of scope.backend.scan(addressOf(scope, key))) ids.push(id);
  return ids;
}

/**
 * The ids that can match `filter`, or `undefined` when no index narrows it and the caller must
 * scan. A superset of the matches, not the matches: the caller still checks every candidate with
 * `matchesFilter` (and skips ids whose record is gone).
 */
export async function indexCandidates(scope: IndexScope, filter: Filter<ResolvedPath>): Promise<readonly string[] | undefined> {
  const fetched = new Map<string, readonly string[]>();
  for (const key of indexKeysOf(filter)) {
    // An id is its own index: the record key is read anyway, so there is nothing to fetch here.
    if (key.index === "id") continue;
    const address = addressOf(scope, key);
    if (!fetched.has(address)) fetched.set(address, await fetchIds(scope, key));
  }
  return candidateIds(filter, (key) => (key.index === "id" ? [key.value] : (fetched.get(addressOf(scope, key)) ?? [])));
}
