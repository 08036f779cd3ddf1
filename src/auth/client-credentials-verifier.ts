/**
 * The router's `auth` when scimkit is its own OAuth 2.0 authorization server (issue 20 item 3):
 * it accepts the access tokens the token endpoint issued and, as before, the organization's
 * long-lived bearer tokens — the client secrets themselves, which are tokens of the token store.
 */
import { decodeJwt } from "jose";
import { ACCESS_TOKEN_TYPE, type AccessTokenIssuer, ORGANIZATION_CLAIM, SCIM_SCOPE } from "./access-token-issuer.js";
import type { TokenStore } from "./hashed-token-store.js";
import { jwtVerifier } from "./jwt-verifier.js";
import { TokenRefusedError } from "./token-refused-error.js";
import type { Principal, TokenVerifier, VerifyContext } from "./token-verifier.js";

/** A JWS in compact serialization: three base64url parts. Store tokens never contain a dot. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Options of `clientCredentialsVerifier`. */
export interface ClientCredentialsVerifierOptions {
  /**
   * The clients: a client is a token of this store, its id the token's record id and its secret
   * the token. Consulted on every request carrying an access token, so revoking the client ends
   * its access tokens at once, and rotating its secret ends those issued before the rotation (once
   * the rotation's grace period, if it gave one, is over).
   */
  readonly clients: Pick<TokenStore, "verify" | "list">;
  /** The issuer the token endpoint signs with. */
  readonly issuer: AccessTokenIssuer;
  /** Seconds of clock difference allowed between the hosts that issue and accept tokens. Default 30. */
  readonly clockToleranceSeconds?: number;
}

/**
 * A `TokenVerifier` accepting, on organization `orgId`, the access tokens `issuer` signed for a
 * client of `orgId` that still exists (and whose secret has not been rotated since the token was
 * issued), and every token `clients.verify` accepts (the long-lived bearer tokens, which are also
 * the client secrets). Refusals of access tokens carry their RFC 6750 reason (`TokenRefusedError`);
 * other tokens are answered as `clients` answers them.
 *
 * During the grace period of a rotation (`graceSeconds`) the tokens issued before it stay valid,
 * as the replaced secret does. Rotation is compared at the second (`iat` has no finer grain): a token issued in the same
 * second as the rotation, before it, stays valid until it expires.
 *
 * @example
 * const issuer = await accessTokenIssuer({ signingKey, issuer: "https://scim.example.com" });
 * app.use("/oauth/Organizations/:orgId", createOAuthTokenRouter({ clients: store.tokens, issuer }));
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth: clientCredentialsVerifier({ clients: store.tokens, issuer }) }));
 */
export function clientCredentialsVerifier(options: ClientCredentialsVerifierOptions): TokenVerifier {
  const { clients, issuer } = options;
  const accessTokens = jwtVerifier({
    jwks: issuer.jwks,
    issuer: issuer.issuer,
    audience: issuer.audience,
    organizationClaim: ORGANIZATION_CLAIM,
    algorithms: [issuer.algorithm],
    type: ACCESS_TOKEN_TYPE,
    requiredScope: SCIM_SCOPE,
    clockToleranceSeconds: options.clockToleranceSeconds ?? 30,
  });

  return {
    async verify(token: string, orgId: string, request: VerifyContext): Promise<Principal | null> {
      if (!COMPACT_JWS.test(token)) return clients.verify(token, orgId, request);
      const principal = await accessTokens.verify(token, orgId, request);
      // Decoding only: the signature has just been verified.
      const issuedAt = decodeJwt(token).iat ?? 0;
      const client = (await clients.list(orgId)).find((record) => record.id === principal?.tokenId);
      // A rotation with a grace period keeps the replaced secret — and so what it was used for — valid
      // until the grace ends (`list` shows previousSecretValidUntil only until then).
      const inGrace = client?.previousSecretValidUntil !== undefined;
      const rotatedAt = client?.rotatedAt === undefined || inGrace ? undefined : Math.floor(Date.parse(client.rotatedAt) / 1000);
      // The token's org_id matched orgId above, so telling "revoked" reveals nothing of another organization.
      if (principal === null || client === undefined || (rotatedAt !== undefined && issuedAt < rotatedAt)) {
        throw new TokenRefusedError("invalid_token", "The access token was revoked.");
      }
      return client.label === undefined ? { orgId, tokenId: client.id } : { orgId, tokenId: client.id, label: client.label };
    },
  };
}
