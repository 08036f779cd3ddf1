/**
 * The resources of one type in one organization, with the indexes that answer equality filters on
 * `id`, `externalId` and unique attributes without a scan (DESIGN §3).
 */
import type { IndexKey } from "../index-candidates.js";
import type { UniqueKey } from "../resource-store.js";
import type { MemoryEntry } from "./memory-entry.js";

/** One resource type of one organization. Only this module's functions keep the indexes in step. */
export interface ResourceTable {
  /** Records by id: the `id` index. */
  readonly entries: Map<string, MemoryEntry>;
  /** Ids by exact `externalId`, which RFC 7643 §3.1 does not make unique, hence a set per value. */
  readonly externalIds: Map<string, Set<string>>;
  /** Attribute name → normalized value (`UniqueKey.value`) → the id that holds it. */
  readonly uniqueValues: Map<string, Map<string, string>>;
}

export function createResourceTable(): ResourceTable {
  return { entries: new Map(), externalIds: new Map(), uniqueValues: new Map() };
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
    case "externalId":
      return [...(table.externalIds.get(key.value) ?? [])];
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
  table.entries.set(entry.id, entry);
  const externalId = externalIdOf(entry);
  if (externalId !== undefined) {
    let ids = table.externalIds.get(externalId);
    if (!ids) table.externalIds.set(externalId, (ids = new Set()));
    ids.add(entry.id);
  }
  for (const key of entry.uniqueKeys) {
    let values = table.uniqueValues.get(key.attribute);
    if (!values) table.uniqueValues.set(key.attribute, (values = new Map()));
    values.set(key.value, entry.id);
  }
}

/** Removes `entry` and its index entries, releasing its unique values. */
export function unindexEntry(table: ResourceTable, entry: MemoryEntry): void {
  table.entries.delete(entry.id);
  const externalId = externalIdOf(entry);
  if (externalId !== undefined) {
    const ids = table.externalIds.get(externalId);
    ids?.delete(entry.id);
    if (ids?.size === 0) table.externalIds.delete(externalId);
  }
  for (const key of entry.uniqueKeys) {
    const values = table.uniqueValues.get(key.attribute);
    // Only the holder releases a value: another resource may have taken it legitimately since.
    if (values?.get(key.value) === entry.id) values.delete(key.value);
  }
}
