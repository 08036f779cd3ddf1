/**
 * A `TokenVerifier` over a fixed map of organization → token(s), for hosts configured from the
 * environment (`SCIMKIT_ORGS="acme:…,globex:…"`, see `parseOrganizationTokens`). Tokens are
 * hashed at construction; the plain values are not kept.
 */
import { hashToken, sameTokenHash, unmatchableTokenHash } from "./hash-token.js";
import type { Principal, TokenVerifier, VerifyContext } from "./token-verifier.js";

// An unknown organization is compared against this, so it costs the same as a known one.
const NO_ORGANIZATION: readonly string[] = [unmatchableTokenHash];

/**
 * A verifier that accepts, on organization `orgId`, exactly the tokens `tokens[orgId]` (one, or
 * several to let a customer move from an old token to a new one). It compares the presented
 * token's digest with the digests of that organization only, in constant time, all of them every
 * time; a foreign token or an unknown organization answers `null` after the same work.
 * `Principal.tokenId` is `"static-<n>"`, the 1-based position of the matching token in the list.
 *
 * Throws at construction when a token is empty or blank, when an organization has no token, or
 * when one token is configured for two organizations (spec §5.2: a token belongs to one).
 *
 * @example
 * const auth = staticTokenVerifier(parseOrganizationTokens(process.env.SCIMKIT_ORGS ?? ""));
 * const auth = staticTokenVerifier({ acme: process.env.ACME_TOKEN!, globex: [oldToken, newToken] });
 */
export function staticTokenVerifier(tokens: Readonly<Record<string, string | readonly string[]>>): TokenVerifier {
  // A Map, not the object: an organization named "__proto__" or "constructor" must be just a name.
  const hashesByOrg = new Map<string, readonly string[]>();
  const ownerOfHash = new Map<string, string>();
  for (const [orgId, configured] of Object.entries(tokens)) {
    const list: readonly string[] = typeof configured === "string" ? [configured] : configured;
    if (list.length === 0) throw new Error(`staticTokenVerifier: organization "${orgId}" has no token`);
    const hashes = list.map((token, index) => {
      if (typeof token !== "string" || token.trim() === "") {
        throw new Error(`staticTokenVerifier: token ${index + 1} of organization "${orgId}" is empty`);
      }
      const hash = hashToken(token);
      const owner = ownerOfHash.get(hash);
      if (owner !== undefined && owner !== orgId) {
        throw new Error(`staticTokenVerifier: organizations "${owner}" and "${orgId}" share a token; each organization needs its own`);
      }
      ownerOfHash.set(hash, orgId);
      return hash;
    });
    hashesByOrg.set(orgId, hashes);
  }

  return {
    async verify(token: string, orgId: string, _request: VerifyContext): Promise<Principal | null> {
      const presented = hashToken(token);
      const candidates = hashesByOrg.get(orgId) ?? NO_ORGANIZATION;
      let matched = -1;
      // No early exit: every candidate is compared, whichever matches.
      candidates.forEach((candidate, index) => {
        if (sameTokenHash(candidate, presented)) matched = index;
      });
      if (matched < 0 || candidates === NO_ORGANIZATION) return null;
      return { orgId, tokenId: `static-${matched + 1}` };
    },
  };
}
