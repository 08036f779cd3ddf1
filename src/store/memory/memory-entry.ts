/**
 * One resource as the memory store holds it, and the two ways out of the store: the copy a caller
 * receives and the view a filter or sort reads.
 */
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import type { StoredMember, StoredResource, UniqueKey } from "../resource-store.js";
import { resourceView } from "../resource-view.js";

/**
 * A stored resource. Writes replace the whole record, so a record read earlier never changes
 * under its reader; only `members` is mutated in place, so that a membership delta costs the size
 * of the delta and not of the group (architecture §3).
 */
export interface MemoryEntry {
  readonly id: string;
  /** The store-wide write counter; a number, not its text, saves a string per resource. */
  readonly version: number;
  readonly created: string;
  readonly lastModified: string;
  /** The store's own deep copy, never handed out. */
  readonly attributes: ScimObject;
  /** The keys this resource holds in its table's unique index, released on update and delete. */
  readonly uniqueKeys: readonly UniqueKey[];
  /**
   * Member ids in the order they were added; created by the first write that gives the resource
   * members, and absent (read as no members) until then.
   */
  readonly members: Set<string> | undefined;
}

/**
 * A deep copy of JSON data. Stored attributes are plain JSON (normalized by the core), and a
 * plain recursive copy is several times faster than `structuredClone` on every read.
 */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  if (typeof value === "object" && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const element = cloneJson((value as Record<string, unknown>)[key]);
      // Assigning "__proto__" would set the prototype instead of copying the key.
      if (key === "__proto__") Object.defineProperty(copy, key, { value: element, enumerable: true, writable: true, configurable: true });
      else copy[key] = element;
    }
    return copy as T;
  }
  return value;
}

/** Reads member ids (none when `undefined`) as `StoredMember`s, typed in the entry's organization. */
export type MemberReader = (ids: ReadonlySet<string> | undefined) => StoredMember[];

/**
 * The resource as `resourceView` and the HTTP layer see it. The attributes are the store's own,
 * so the result is for reading only, never for returning to a caller.
 */
export function entryView(resourceType: string, entry: MemoryEntry, readMembers: MemberReader | undefined): ScimObject {
  return resourceView(resourceType, {
    id: entry.id,
    version: String(entry.version),
    created: entry.created,
    lastModified: entry.lastModified,
    attributes: entry.attributes,
    ...(readMembers ? { members: readMembers(entry.members) } : {}),
  });
}

/**
 * A copy of `entry` that the caller owns: changing it never changes the store. The member set is
 * read only when `readMembers` is given, since a group may have 100,000 members (architecture §3); then
 * `members` is there, empty for a resource that has none yet.
 */
export function storedResourceOf(entry: MemoryEntry, readMembers: MemberReader | undefined): StoredResource {
  return {
    id: entry.id,
    version: String(entry.version),
    created: entry.created,
    lastModified: entry.lastModified,
    attributes: cloneJson(entry.attributes),
    ...(readMembers ? { members: readMembers(entry.members) } : {}),
  };
}
