/**
 * What this region's host knows of the organizations homed in the other regions (issue 30): the
 * replica its database keeps of their directories, held in memory so that answering a request for
 * one of them (421, `misdirected-request.ts`) reads nothing, and the count of such requests per
 * organization for the operator. The replica holds no personal data — id, name, parent, home
 * region, state — and only the home region writes an organization's row (each peer's feed
 * replaces that peer's rows whole), so two regions never disagree on who holds an organization.
 */
import { scimBaseUrl } from "../scim-base-url.js";
import type { MisdirectedRequests, RegionDirectoryEntry, RegionDirectoryStore, RegionState, RegionsView } from "@scimkit/server";

/** The regions this host knows, and what it knows of the organizations homed elsewhere. */
export interface RegionDirectory extends RegionsView {
  /** The entry of `orgId` when it is homed in another region; undefined otherwise (here, or unknown). Reads nothing. */
  homeElsewhere(orgId: string): RegionDirectoryEntry | undefined;
  /** Counts one request for `entry`'s organization that reached this region. */
  countMisdirected(entry: Pick<RegionDirectoryEntry, "id" | "homeRegion">): void;
  /** The counts, the most recent first. */
  misdirected(): readonly MisdirectedRequests[];
  /**
   * Keeps `entries` as `region`'s whole directory: persisted first (a host restarted while that
   * region is unreachable still knows its organizations), then served. Ids in `localIds` — also
   * organizations of this region — are left out: this region's data is served, never a 421 for it;
   * so are ids a third region's copy holds, until that region's own feed drops them.
   */
  replacePeer(region: string, entries: readonly RegionDirectoryEntry[], localIds: ReadonlySet<string>): Promise<void>;
  /** Records that reading `region`'s directory failed; its replica is kept. */
  peerFailed(region: string, reason: string): void;
  /** What this host knows of each other region. */
  peers(): readonly RegionState[];
}

/** The other regions' directories as `store` kept them at the last start, loaded once. */
export async function loadRegionDirectory(options: {
  readonly self: string;
  readonly baseUrls: Readonly<Record<string, string>>;
  readonly store: RegionDirectoryStore;
  readonly now?: () => Date;
}): Promise<RegionDirectory> {
  const { self, baseUrls, store } = options;
  const now = options.now ?? (() => new Date());
  let byId = new Map<string, RegionDirectoryEntry>();
  for (const entry of await store.listRegionEntries()) if (entry.homeRegion !== self) byId.set(entry.id, entry);
  // By id, rebuilt once per read of a peer, so a page of the operator's list is a binary search.
  const byIdOrder = (): RegionDirectoryEntry[] => [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  let sorted = byIdOrder();
  const counts = new Map<string, { homeRegion: string; count: number; lastAt: string }>();
  const synced = new Map<string, string>();
  const failures = new Map<string, string>();
  const directory: RegionDirectory = {
    self,
    baseUrls,
    homeElsewhere: (orgId) => byId.get(orgId),
    scimBaseUrl: (region, orgId) => scimBaseUrl(baseUrls[region] ?? "", orgId),
    countMisdirected(entry) {
      // Only organizations of the directory are counted: the map is as bounded as the directory.
      const known = counts.get(entry.id);
      const lastAt = now().toISOString();
      counts.set(entry.id, { homeRegion: entry.homeRegion, count: (known?.count ?? 0) + 1, lastAt });
    },
    misdirected: () =>
      [...counts]
        .map(([orgId, value]) => ({ orgId, ...value }))
        .sort((a, b) => b.lastAt.localeCompare(a.lastAt) || a.orgId.localeCompare(b.orgId)),
    async replacePeer(region, entries, localIds) {
      // An id another peer's copy still holds (its feed read before a move, or a clash) stays that
      // peer's until its own feed drops it: one stale peer never fails another's whole read.
      const kept = entries.filter((entry) => !localIds.has(entry.id) && (byId.get(entry.id)?.homeRegion ?? region) === region);
      await store.replaceRegionEntries(region, kept);
      const next = new Map([...byId].filter(([, entry]) => entry.homeRegion !== region));
      for (const entry of kept) next.set(entry.id, entry);
      byId = next;
      sorted = byIdOrder();
      synced.set(region, now().toISOString());
      failures.delete(region);
    },
    peerFailed(region, reason) {
      failures.set(region, reason);
    },
    peers: () =>
      Object.keys(baseUrls)
        .filter((region) => region !== self)
        .sort()
        .map((region) => {
          const syncedAt = synced.get(region);
          const lastError = failures.get(region);
          return {
            region,
            baseUrl: baseUrls[region] ?? "",
            self: false,
            organizations: [...byId.values()].filter((entry) => entry.homeRegion === region).length,
            ...(syncedAt === undefined ? {} : { syncedAt }),
            ...(lastError === undefined ? {} : { lastError }),
          };
        }),
    listElsewhere({ limit, after }, region) {
      let low = 0;
      let high = sorted.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (after !== undefined && (sorted[middle] as RegionDirectoryEntry).id <= after) low = middle + 1;
        else high = middle;
      }
      const items: RegionDirectoryEntry[] = [];
      let index = low;
      for (; index < sorted.length && items.length < limit; index++) {
        const candidate = sorted[index] as RegionDirectoryEntry;
        if (region === undefined || candidate.homeRegion === region) items.push(candidate);
      }
      let more = false;
      for (let rest = index; rest < sorted.length && !more; rest++)
        more = region === undefined || (sorted[rest] as RegionDirectoryEntry).homeRegion === region;
      const last = items.at(-1);
      return { items, ...(more && last !== undefined ? { next: last.id } : {}) };
    },
    report: () => ({
      region: self,
      regions: [{ region: self, baseUrl: baseUrls[self] ?? "", self: true }, ...directory.peers()].sort((a, b) =>
        a.region.localeCompare(b.region),
      ),
      misdirected: directory.misdirected(),
    }),
  };
  return directory;
}
