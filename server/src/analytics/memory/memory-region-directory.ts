/**
 * The replica of other regions' directories in the memory analytics store (issue 30): one map
 * by organization id, a region's entries replaced in one synchronous step.
 */
import type { RegionDirectoryEntry, RegionDirectoryStore } from "../analytics-store.js";
import { checkRegionEntries } from "../check-region-entries.js";
import type { MemoryAnalyticsState } from "./memory-analytics-state.js";
import { sortedValues } from "./sorted-values.js";

/**
 * A copy of `entry` with the contract's fields only: an object the feed's parser gave with more
 * (or a caller kept) is never the store's own, and keeps nothing the SQL store would not.
 */
function entryCopy(entry: RegionDirectoryEntry): RegionDirectoryEntry {
  return {
    id: entry.id,
    name: entry.name,
    ...(entry.parentId === undefined ? {} : { parentId: entry.parentId }),
    homeRegion: entry.homeRegion,
    status: entry.status,
    updatedAt: entry.updatedAt,
  };
}

/** The `RegionDirectoryStore` of the memory analytics store over `state`. */
export function memoryRegionDirectory(state: MemoryAnalyticsState): RegionDirectoryStore {
  const { regionDirectory } = state;
  return {
    async replaceRegionEntries(region, entries) {
      checkRegionEntries(region, entries);
      // Every check comes before the first change, and nothing awaits between them, so a
      // rejected call leaves the map as it was — what the SQL store's transaction gives.
      for (const entry of entries) {
        const held = regionDirectory.get(entry.id);
        if (held !== undefined && held.homeRegion !== region) {
          throw new Error(
            `region directory: organization ${JSON.stringify(entry.id)} is homed in ${JSON.stringify(held.homeRegion)} already`,
          );
        }
      }
      for (const [id, entry] of regionDirectory) if (entry.homeRegion === region) regionDirectory.delete(id);
      for (const entry of entries) regionDirectory.set(entry.id, entryCopy(entry));
    },

    async listRegionEntries() {
      return sortedValues(regionDirectory).map(entryCopy);
    },
  };
}
