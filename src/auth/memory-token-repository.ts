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
    // The previous digest finds the record too, for the grace period of a rotation.
    if (token.previousHash !== undefined) byHash.set(token.previousHash, token);
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
      const {
        lastUsedAt: _previousUse,
        expiresAt: _oldExpiry,
        previousHash: _older,
        previousSecretValidUntil: _olderEnd,
        ...kept
      } = current;
      const { previousSecretValidUntil, ...secret } = replacement;
      const next: StoredToken = Object.freeze({
        ...kept,
        ...secret,
        ...(previousSecretValidUntil === undefined ? {} : { previousHash: current.hash, previousSecretValidUntil }),
      });
      byHash.delete(current.hash);
      if (current.previousHash !== undefined) byHash.delete(current.previousHash);
      put(next);
      return next;
    },

    async dropPreviousHash(orgId, id) {
      const current = tokensOf(orgId)?.get(id);
      if (current === undefined || current.previousHash === undefined) return current;
      const { previousHash, previousSecretValidUntil: _end, ...kept } = current;
      byHash.delete(previousHash);
      const next: StoredToken = Object.freeze(kept);
      put(next);
      return next;
    },

    async markUsed(orgId, hash, lastUsedAt) {
      const current = byHash.get(hash);
      // Only the current secret's use is recorded, as the SQL repository's `WHERE hash = …` does.
      if (current === undefined || current.orgId !== orgId || current.hash !== hash) return;
      put(Object.freeze({ ...current, lastUsedAt }));
    },

    async delete(orgId, id) {
      const tokens = tokensOf(orgId);
      const current = tokens?.get(id);
      if (tokens === undefined || current === undefined) return false;
      tokens.delete(id);
      byHash.delete(current.hash);
      if (current.previousHash !== undefined) byHash.delete(current.previousHash);
      return true;
    },

    async deleteByOrg(orgId) {
      const tokens = tokensOf(orgId);
      if (tokens === undefined) return 0;
      for (const token of tokens.values()) {
        byHash.delete(token.hash);
        if (token.previousHash !== undefined) byHash.delete(token.previousHash);
      }
      byOrg.delete(orgId);
      return tokens.size;
    },
  };
}
