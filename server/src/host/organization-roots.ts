/**
 * `organizationRoots`: the root of each organization's tree, for the SCIM router's fair share
 * (`fairShare.group`, architecture §4b): a company's divisions are organizations of one tree, and
 * together take the expensive work one organization may. Asked on every SCIM request, so answered
 * from a cache; a tree that changes is seen within `ttlMs`.
 */
import type { AnalyticsStore } from "@scimkit/server";
import { MAX_ORGANIZATION_DEPTH } from "@scimkit/server";

/** Options of `organizationRoots`. */
export interface OrganizationRootsOptions {
  /** How long a root is trusted after it was read. Default 60,000 ms: a move is felt within a minute. */
  readonly ttlMs?: number;
  /** Organizations remembered at most; the oldest are forgotten first. Default 10,000. */
  readonly maxEntries?: number;
  /** A monotonic clock in milliseconds. Default `performance.now`. */
  readonly now?: () => number;
}

interface Entry {
  readonly root: string;
  readonly readAt: number;
}

/**
 * `(orgId) => root`: the organization at the top of `orgId`'s tree, `orgId` itself for a root or
 * an organization the store does not know. A cached root is answered synchronously; a lookup
 * walks up `parentId` (at most `MAX_ORGANIZATION_DEPTH` reads), once for every request asking at
 * the same time.
 */
export function organizationRoots(
  store: AnalyticsStore,
  options: OrganizationRootsOptions = {},
): (orgId: string) => string | Promise<string> {
  const ttlMs = options.ttlMs ?? 60_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? (() => performance.now());
  const cache = new Map<string, Entry>();
  const reading = new Map<string, Promise<string>>();

  const lookUp = async (orgId: string): Promise<string> => {
    let current = orgId;
    for (let depth = 0; depth < MAX_ORGANIZATION_DEPTH; depth++) {
      const organization = await store.getOrganization({ all: true }, current);
      if (organization?.parentId === undefined) return current;
      current = organization.parentId;
    }
    return current;
  };

  return (orgId) => {
    const entry = cache.get(orgId);
    if (entry !== undefined && now() - entry.readAt < ttlMs) return entry.root;
    const pending = reading.get(orgId);
    if (pending !== undefined) return pending;
    const read = lookUp(orgId)
      .then((root) => {
        cache.delete(orgId);
        if (cache.size >= maxEntries) {
          const oldest = cache.keys().next().value;
          if (oldest !== undefined) cache.delete(oldest);
        }
        cache.set(orgId, { root, readAt: now() });
        return root;
      })
      .finally(() => reading.delete(orgId));
    reading.set(orgId, read);
    return read;
  };
}
