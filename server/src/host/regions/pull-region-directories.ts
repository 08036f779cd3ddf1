/**
 * Keeps this host's replica of the other regions' directories (issue 30, point 2): every
 * `SCIMKIT_REGION_SYNC_SECONDS` it reads each peer's feed whole (`region-directory-feed.ts`) and
 * replaces that peer's rows. A peer that cannot be reached keeps its last replica — this region's
 * own organizations never depend on it: they are served from this region's database alone.
 *
 * The peers' addresses are the operator's (`SCIMKIT_REGIONS`), never a tenant's, so a peer on a
 * private network is allowed; still, no redirect is followed (a peer is asked at its configured
 * address or not at all), and what a peer can make this host hold is bounded: `MAX_PAGE_BYTES`
 * per page, `MAX_PEER_ORGANIZATIONS` per peer, `PAGE_TIMEOUT_MS` per page, and every field checked.
 */
import type { AnalyticsStore, RegionDirectoryEntry } from "@scimkit/server";
import { readBoundedText } from "scimkit";
import { fetchPeer } from "./fetch-peer.js";
import { MAX_DIRECTORY_PAGE } from "./region-directory-feed.js";
import type { RegionDirectory } from "./region-directory.js";

/** The most bytes of one feed page read: a full page of the longest names is ~0.5 MB. */
export const MAX_PAGE_BYTES = 2 * 1024 * 1024;
/** The most organizations kept of one peer. */
export const MAX_PEER_ORGANIZATIONS = 1_000_000;
/** How long one page may take. */
export const PAGE_TIMEOUT_MS = 10_000;

const STATUSES = new Set(["active", "suspended"]);
// Printable, no controls: what a log line or the console shows cannot be split or spoofed.
const TEXT = /^\P{Cc}{1,200}$/u;

/** The entries of one page from `region`, each checked; throws on anything else. */
function entriesOf(region: string, body: unknown): { readonly entries: RegionDirectoryEntry[]; readonly next?: string } {
  const page = body as { region?: unknown; organizations?: unknown; next?: unknown } | null;
  if (typeof page !== "object" || page === null || page.region !== region || !Array.isArray(page.organizations)) {
    throw new Error(`not a directory page of region ${region}`);
  }
  if (page.organizations.length > MAX_DIRECTORY_PAGE) throw new Error(`a page of more than ${MAX_DIRECTORY_PAGE} organizations`);
  const entries = page.organizations.map((item: unknown): RegionDirectoryEntry => {
    const { id, name, parentId, status, updatedAt } = (item ?? {}) as Record<string, unknown>;
    if (
      typeof id !== "string" ||
      !TEXT.test(id) ||
      typeof name !== "string" ||
      !TEXT.test(name) ||
      (parentId !== undefined && (typeof parentId !== "string" || !TEXT.test(parentId))) ||
      typeof status !== "string" ||
      !STATUSES.has(status) ||
      typeof updatedAt !== "string" ||
      !TEXT.test(updatedAt)
    ) {
      throw new Error("an organization entry without a valid id, name, status or updatedAt");
    }
    return {
      id,
      name,
      ...(parentId === undefined ? {} : { parentId }),
      homeRegion: region,
      status: status as RegionDirectoryEntry["status"],
      updatedAt,
    };
  });
  if (page.next !== undefined && (typeof page.next !== "string" || !TEXT.test(page.next))) throw new Error("a bad next");
  return { entries, ...(page.next === undefined ? {} : { next: page.next as string }) };
}

/** Reads `region`'s whole directory from `baseUrl`. */
export async function readPeerDirectory(region: string, baseUrl: string, key: string): Promise<readonly RegionDirectoryEntry[]> {
  const all: RegionDirectoryEntry[] = [];
  let after: string | undefined;
  for (;;) {
    const url = `${baseUrl}/regions/v1/directory?limit=${MAX_DIRECTORY_PAGE}${after === undefined ? "" : `&after=${encodeURIComponent(after)}`}`;
    const response = await fetchPeer(region, url, {
      headers: { authorization: `Bearer ${key}`, accept: "application/json" },
      signal: AbortSignal.timeout(PAGE_TIMEOUT_MS),
    });
    const text = await readBoundedText(response, MAX_PAGE_BYTES, "a directory page");
    if (response.status !== 200) throw new Error(`${url.split("?")[0]} answered ${response.status}`);
    const page = entriesOf(region, JSON.parse(text) as unknown);
    all.push(...page.entries);
    if (all.length > MAX_PEER_ORGANIZATIONS) throw new Error(`more than ${MAX_PEER_ORGANIZATIONS} organizations`);
    // A next that does not move forward would loop for ever.
    if (page.next === undefined || (after !== undefined && page.next <= after)) return all;
    after = page.next;
  }
}

/** The ids of every organization of this region. */
async function localIds(store: Pick<AnalyticsStore, "listOrganizations">): Promise<ReadonlySet<string>> {
  const ids = new Set<string>();
  let after: string | undefined;
  do {
    const page = await store.listOrganizations({ all: true }, { limit: 1000, ...(after === undefined ? {} : { after }) });
    for (const organization of page.items) ids.add(organization.id);
    after = page.next;
  } while (after !== undefined);
  return ids;
}

/**
 * Reads every peer's directory once, each on its own: one unreachable peer does not stop the
 * others. `told` keeps, per peer, the clash last logged, so a clash is said when it changes.
 */
export async function syncRegionDirectories(
  directory: RegionDirectory,
  key: string,
  store: Pick<AnalyticsStore, "listOrganizations">,
  log: (line: string) => void,
  told: Map<string, string> = new Map(),
): Promise<void> {
  await Promise.all(
    directory.peers().map(async (peer) => {
      try {
        const entries = await readPeerDirectory(peer.region, peer.baseUrl, key);
        const local = await localIds(store);
        const clashes = entries.filter((entry) => local.has(entry.id)).map((entry) => entry.id);
        // Both regions created the id before either's directory reached the other: this region
        // keeps serving its own, and the operator is told when the clash first shows (or changes).
        const clash = clashes.slice(0, 10).join(", ");
        if (clashes.length > 0 && told.get(peer.region) !== clash) {
          log(`region ${peer.region} also homes organization(s) ${clash}: each region serves its own; rename one`);
        }
        told.set(peer.region, clash);
        await directory.replacePeer(peer.region, entries, local);
        if (peer.lastError !== undefined) log(`region ${peer.region}: directory read again (${entries.length} organizations)`);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        if (peer.lastError !== reason)
          log(`region ${peer.region}: cannot read its directory (${reason}); keeping the copy of ${peer.organizations} organizations`);
        directory.peerFailed(peer.region, reason);
      }
    }),
  );
}

/** Syncs now and every `intervalMs` until the returned stop is called (which waits for a sync in flight). */
export function pullRegionDirectories(options: {
  readonly directory: RegionDirectory;
  readonly key: string;
  readonly store: Pick<AnalyticsStore, "listOrganizations">;
  readonly intervalMs: number;
  readonly log: (line: string) => void;
}): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const told = new Map<string, string>();
  const round = (): void => {
    running = syncRegionDirectories(options.directory, options.key, options.store, options.log, told).finally(() => {
      if (!stopped) timer = setTimeout(round, options.intervalMs).unref();
    });
  };
  round();
  return async () => {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
    await running;
  };
}
