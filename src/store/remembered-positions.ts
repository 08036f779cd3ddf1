/**
 * Where recent `startIndex` pages ended (issue 29): for each organization, a few list positions
 * — "the resource at offset k of this list was P, and the list held N when its generation was G"
 * — so that the page an identity provider asks for next (page k+1 of a sequential walk) is read
 * as a keyset range after P instead of skipping k rows, and its `totalResults` is not counted
 * again. A store follows a position only while the list's generation is still G, read in the
 * same snapshot as the page, so a followed position gives exactly the page OFFSET k would.
 *
 * Bounded memory, and fair: each organization keeps its own most recent positions, and the
 * organizations themselves are kept most recent first, so one tenant's walks never push out
 * another's beyond the per-organization share.
 */
import type { SortPosition } from "./resource-store.js";

/** One remembered position. */
export interface RememberedPosition {
  /** The list generation it holds at (opaque to this module). */
  readonly generation: string;
  /** The position of the resource just before the remembered offset. */
  readonly after: SortPosition;
  /** The list's size at that generation. */
  readonly total: number;
}

/** The remembered positions of one store. */
export interface RememberedPositions {
  /** The position remembered for `list` of `orgId` at `offset`, if any. */
  get(orgId: string, list: string, offset: number): RememberedPosition | undefined;
  /** Remembers `position` for `list` of `orgId` at `offset`, forgetting the least recent beyond the bounds. */
  set(orgId: string, list: string, offset: number, position: RememberedPosition): void;
  /** Forgets every position of `orgId` (the organization was deleted). */
  forget(orgId: string): void;
}

/** Bounds of `rememberedPositions`. */
export interface RememberedPositionsLimits {
  /** Organizations with positions at once. Default 1,024. */
  readonly organizations?: number;
  /** Positions per organization: about one per concurrent walk. Default 32. */
  readonly perOrganization?: number;
}

/** Moves `key` to the most recent end of `map` with `value`, dropping the least recent over `max`. */
function touch<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) {
    const oldest = map.keys().next();
    if (oldest.done) break;
    map.delete(oldest.value);
  }
}

/**
 * An empty set of remembered positions, about 200 bytes each: 32 per organization for 1,024
 * organizations stays under 7 MB.
 *
 * @example const positions = rememberedPositions(); positions.set("acme", "User\nid", 100, { generation: "7", after: { key: null, id }, total: 1000 })
 */
export function rememberedPositions(limits: RememberedPositionsLimits = {}): RememberedPositions {
  const maxOrganizations = limits.organizations ?? 1024;
  const perOrganization = limits.perOrganization ?? 32;
  const byOrganization = new Map<string, Map<string, RememberedPosition>>();
  const keyOf = (list: string, offset: number): string => `${offset}\n${list}`;
  return {
    get(orgId, list, offset) {
      return byOrganization.get(orgId)?.get(keyOf(list, offset));
    },
    set(orgId, list, offset, position) {
      const positions = byOrganization.get(orgId) ?? new Map<string, RememberedPosition>();
      touch(positions, keyOf(list, offset), position, perOrganization);
      touch(byOrganization, orgId, positions, maxOrganizations);
    },
    forget(orgId) {
      byOrganization.delete(orgId);
    },
  };
}
