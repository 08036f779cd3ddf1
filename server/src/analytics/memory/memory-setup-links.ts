/**
 * Setup links in the memory analytics store (issue 31): one map by id; a code or a session is
 * found by its digest, compared as the SQL store compares it (equal text). Each method runs in one
 * synchronous step, so of two exchanges of one code one wins.
 */
import type { SetupLink, SetupLinkStore } from "../setup-link-store.js";
import type { MemoryAnalyticsState, MemorySetupLink } from "./memory-analytics-state.js";

/** A copy the caller may keep: the store's own object never leaves it. */
const copy = (link: SetupLink): SetupLink => ({ ...link });

/** The `SetupLinkStore` of the memory analytics store over `state`. */
export function memorySetupLinks(state: MemoryAnalyticsState): SetupLinkStore {
  const { setupLinks } = state;
  const byDigest = (find: (entry: MemorySetupLink) => boolean): MemorySetupLink | undefined => {
    for (const entry of setupLinks.values()) if (find(entry)) return entry;
    return undefined;
  };
  // Organization deletes remove their links (spec §4.6: everything of it goes).
  const live = (entry: MemorySetupLink): boolean => state.organizations.has(entry.link.orgId);
  return {
    async createSetupLink(link, codeHash) {
      if (setupLinks.has(link.id) || byDigest((entry) => entry.codeHash === codeHash))
        throw new Error("setup link: the id or the code is taken");
      setupLinks.set(link.id, { link: copy(link), codeHash });
    },
    async listSetupLinks(orgId) {
      return [...setupLinks.values()]
        .filter((entry) => entry.link.orgId === orgId && live(entry))
        .map((entry) => copy(entry.link))
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0));
    },
    async getSetupLink(orgId, id) {
      const entry = setupLinks.get(id);
      return entry && entry.link.orgId === orgId && live(entry) ? copy(entry.link) : undefined;
    },
    async revokeSetupLink(orgId, id, at) {
      const entry = setupLinks.get(id);
      if (!entry || entry.link.orgId !== orgId || !live(entry)) return undefined;
      if (entry.link.revokedAt === undefined) entry.link = { ...entry.link, revokedAt: at };
      return copy(entry.link);
    },
    async useSetupLink(codeHash, at, sessionHash) {
      const entry = byDigest((candidate) => candidate.codeHash === codeHash && live(candidate));
      if (entry === undefined) return undefined;
      if (entry.link.revokedAt !== undefined) return "revoked";
      if (entry.link.usedAt !== undefined) return "used";
      if (!(entry.link.expiresAt > at)) return "expired";
      entry.link = { ...entry.link, usedAt: at };
      entry.sessionHash = sessionHash;
      return copy(entry.link);
    },
    async findSetupSession(sessionHash, at) {
      const entry = byDigest((candidate) => candidate.sessionHash === sessionHash && live(candidate));
      if (entry === undefined || entry.link.revokedAt !== undefined || !(entry.link.expiresAt > at)) return undefined;
      return copy(entry.link);
    },
    async setSetupIdentityProvider(id, provider) {
      const entry = setupLinks.get(id);
      if (entry) entry.link = { ...entry.link, identityProvider: provider };
    },
    async recordSetupToken(id, tokenId) {
      const entry = setupLinks.get(id);
      if (entry === undefined || entry.link.tokenId !== undefined) return false;
      entry.link = { ...entry.link, tokenId };
      return true;
    },
  };
}
