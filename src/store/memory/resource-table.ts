/**
 * The resources of one type in one organization, with the indexes that answer equality filters on
 * `id`, `externalId` and unique attributes without a scan (architecture §3).
 */
import type { IndexKey } from "../index-candidates.js";
import type { UniqueKey } from "../resource-store.js";
import type { MemoryEntry } from "./memory-entry.js";

/** One resource type of one organization. Only this module's functions keep the indexes in step. */
export interface ResourceTable {
  /** Records by id: the `id` index. */
  readonly entries: Map<string, MemoryEntry>;
  /**
   * Ids by exact `externalId`. RFC 7643 §3.1 does not make it unique, but it nearly always is: one
   * id is kept as itself and only a shared value gets a set (a set per user costs ~100 bytes of
   * the 2 KB a user may take).
   */
  readonly externalIds: Map<string, string | Set<string>>;
  /** Attribute name → normalized value (`UniqueKey.value`) → the id that holds it. */
  readonly uniqueValues: Map<string, Map<string, string>>;
  /**
   * Every id in ascending order — the list order without a sort — so an unfiltered page is a
   * slice, not a sort of the whole table. Kept in step on insert (ids are UUID v7, so a new one
   * nearly always goes last) and rebuilt lazily when that is cheaper.
   */
  idOrder: string[] | undefined;
}

export function createResourceTable(): ResourceTable {
  return { entries: new Map(), externalIds: new Map(), uniqueValues: new Map(), idOrder: [] };
}

/** The table's ids in ascending order (the list order with no sort). Read-only for the caller. */
export function sortedIds(table: ResourceTable): readonly string[] {
  if (!table.idOrder) table.idOrder = [...table.entries.keys()].sort();
  return table.idOrder;
}

/** The position of the first id in `ids` (ascending) that is greater than `id`. */
export function firstIdAfter(ids: readonly string[], id: string): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((ids[middle] as string) > id) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** The first of `keys` that a resource other than `id` already holds, if any. */
export function findUniqueClash(table: ResourceTable, id: string, keys: readonly UniqueKey[]): UniqueKey | undefined {
  return keys.find((key) => {
    const holder = table.uniqueValues.get(key.attribute)?.get(key.value);
    return holder !== undefined && holder !== id;
  });
}

/** The ids `table` lists under `key`, for `candidateIds`: exact, so `[]` means no resource has the value. */
export function indexedIds(table: ResourceTable, key: IndexKey): readonly string[] {
  switch (key.index) {
    case "id":
      return table.entries.has(key.value) ? [key.value] : [];
    case "externalId": {
      const ids = table.externalIds.get(key.value);
      return ids === undefined ? [] : typeof ids === "string" ? [ids] : [...ids];
    }
    case "unique": {
      const holder = table.uniqueValues.get(key.attribute)?.get(key.value);
      return holder === undefined ? [] : [holder];
    }
  }
}

function externalIdOf(entry: MemoryEntry): string | undefined {
  const value = entry.attributes.externalId;
  return typeof value === "string" ? value : undefined;
}

/** Stores `entry` (replacing any record with its id) and indexes it; the caller has checked uniqueness. */
export function indexEntry(table: ResourceTable, entry: MemoryEntry): void {
  if (!table.entries.has(entry.id) && table.idOrder) {
    const last = table.idOrder[table.idOrder.length - 1];
    if (last === undefined || last < entry.id) table.idOrder.push(entry.id);
    else table.idOrder = undefined;
  }
  table.entries.set(entry.id, entry);
  const externalId = externalIdOf(entry);
  if (externalId !== undefined) {
    const ids = table.externalIds.get(externalId);
    if (ids === undefined || ids === entry.id) table.externalIds.set(externalId, entry.id);
    else if (typeof ids === "string") table.externalIds.set(externalId, new Set([ids, entry.id]));
    else ids.add(entry.id);
  }
  for (const key of entry.uniqueKeys) {
    let values = table.uniqueValues.get(key.attribute);
    if (!values) {
      values = new Map();
      table.uniqueValues.set(key.attribute, values);
    }
    values.set(key.value, entry.id);
  }
}

/** Removes `entry` and its index entries, releasing its unique values. */
export function unindexEntry(table: ResourceTable, entry: MemoryEntry): void {
  table.entries.delete(entry.id);
  if (table.idOrder) {
    const at = firstIdAfter(table.idOrder, entry.id) - 1;
    if (table.idOrder[at] === entry.id) table.idOrder.splice(at, 1);
  }
  const externalId = externalIdOf(entry);
  if (externalId !== undefined) {
    const ids = table.externalIds.get(externalId);
    if (ids === entry.id) table.externalIds.delete(externalId);
    else if (typeof ids === "object") {
      ids.delete(entry.id);
      const [only, ...more] = ids;
      if (only === undefined) table.externalIds.delete(externalId);
      else if (more.length === 0) table.externalIds.set(externalId, only);
    }
  }
  for (const key of entry.uniqueKeys) {
    const values = table.uniqueValues.get(key.attribute);
    // Only the holder releases a value: another resource may have taken it legitimately since.
    if (values?.get(key.value) === entry.id) values.delete(key.value);
  }
}
