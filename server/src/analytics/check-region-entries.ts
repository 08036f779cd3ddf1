/**
 * What every store checks of a region's feed before it writes any of it (issue 30), so that a
 * feed the store would refuse never costs the region its previous replica.
 */
import type { RegionDirectoryEntry } from "./region-directory-store.js";

/**
 * Throws an `Error` when an entry of `entries` is not homed in `region` or shares its id with an
 * earlier one: `RegionDirectoryStore.replaceRegionEntries`' checks that need no read.
 *
 * @example checkRegionEntries("eu", [{ id: "acme", name: "Acme", homeRegion: "us", status: "active", updatedAt }]) // throws
 */
export function checkRegionEntries(region: string, entries: readonly RegionDirectoryEntry[]): void {
  const ids = new Set<string>();
  for (const entry of entries) {
    if (entry.homeRegion !== region) {
      throw new Error(
        `region directory: organization ${JSON.stringify(entry.id)} is homed in ${JSON.stringify(entry.homeRegion)}, not in ${JSON.stringify(region)}, the region being replaced`,
      );
    }
    if (ids.has(entry.id))
      throw new Error(
        `region directory: organization ${JSON.stringify(entry.id)} is listed twice in the entries of ${JSON.stringify(region)}`,
      );
    ids.add(entry.id);
  }
}
