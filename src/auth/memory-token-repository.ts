import type { HashReplacement, StoredToken, TokenRepository } from "./token-repository.js";

/**
 * A `TokenRepository` in process memory: for tests, development and single-process hosts whose
 * tokens may vanish on restart. Records are returned as frozen copies, so callers cannot change
 * what is stored.
 *
 * @example
 * const tokens = createTokenStore({ repository: memoryTokenRepository() });
 */
export function memoryTokenRepository(): TokenRepository {
  const byHash = new Map<string, StoredToken>();
  // orgId → id → record; Map iteration order is insertion order, which is createdAt order here.
  const byOrg = new Map<string, Map<string, StoredToken>>();

  const tokensOf = (orgId: string): Map<string, StoredToken> | undefined => byOrg.get(orgId);

  function put(token: StoredToken): void {
    byHash.set(token.hash, token);
    let tokens = tokensOf(token.orgId);
    if (tokens === undefined) {
      tokens = new Map();
      byOrg.set(token.orgId, tokens);
    }
    tokens.set(token.id, token);
  }

  return {
    async findByHash(orgId, hash) {
      const token = byHash.get(hash);
      return token !== undefined && token.orgId === orgId ? token : undefined;
    },

    async listByOrg(orgId) {
      return [...(tokensOf(orgId)?.values() ?? [])];
    },

    async insert(token) {
      if (byHash.has(token.hash)) throw new Error("memoryTokenRepository: a token with this hash already exists");
      if (tokensOf(token.orgId)?.has(token.id) === true) {
        throw new Error(`memoryTokenRepository: token id "${token.id}" already exists in organization "${token.orgId}"`);
      }
      put(Object.freeze({ ...token }));
    },

    async replaceHash(orgId, id, replacement: HashReplacement) {
      const current = tokensOf(orgId)?.get(id);
      if (current === undefined) return undefined;
      if (byHash.has(replacement.hash)) throw new Error("memoryTokenRepository: a token with this hash already exists");
      const { lastUsedAt: _previousUse, ...kept } = current;
      const next: StoredToken = Object.freeze({ ...kept, ...replacement });
      byHash.delete(current.hash);
      put(next);
      return next;
    },

    async markUsed(orgId, hash, lastUsedAt) {
      const current = byHash.get(hash);
      if (current === undefined || current.orgId !== orgId) return;
      put(Object.freeze({ ...current, lastUsedAt }));
    },

    async delete(orgId, id) {
      const tokens = tokensOf(orgId);
      const current = tokens?.get(id);
      if (tokens === undefined || current === undefined) return false;
      tokens.delete(id);
      byHash.delete(current.hash);
      return true;
    },

    async deleteByOrg(orgId) {
      const tokens = tokensOf(orgId);
      if (tokens === undefined) return 0;
      for (const token of tokens.values()) byHash.delete(token.hash);
      byOrg.delete(orgId);
      return tokens.size;
    },
  };
}
