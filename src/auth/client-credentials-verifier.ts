/**
 * The router's `auth` when scimkit is its own OAuth 2.0 authorization server (issue 20 item 3):
 * it accepts the access tokens the token endpoint issued and, as before, the organization's
 * long-lived bearer tokens — the client secrets themselves, which are tokens of the token store.
 */
import { decodeJwt } from "jose";
import { ACCESS_TOKEN_TYPE, type AccessTokenIssuer, ORGANIZATION_CLAIM, SCIM_SCOPE, SECRET_ID_CLAIM } from "./access-token-issuer.js";
import type { TokenStore } from "./hashed-token-store.js";
import { jwtVerifier } from "./jwt-verifier.js";
import type { TokenRecord } from "./token-record.js";
import { TokenRefusedError } from "./token-refused-error.js";
import type { Principal, TokenVerifier, VerifyContext } from "./token-verifier.js";

/** A JWS in compact serialization: three base64url parts. Store tokens never contain a dot. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Options of `clientCredentialsVerifier`. */
export interface ClientCredentialsVerifierOptions {
  /**
   * The clients: a client is a token of this store, its id the token's record id and its secret
   * the token. Consulted on every request carrying an access token, so revoking the client, or
   * rotating its secret, ends the access tokens that secret obtained at once (after the rotation's
   * grace period, if it gave one), and so does the secret's own expiry.
   */
  readonly clients: Pick<TokenStore, "verify" | "list">;
  /** The issuer the token endpoint signs with. */
  readonly issuer: AccessTokenIssuer;
  /** Seconds of clock difference allowed between the hosts that issue and accept tokens. Default 30. */
  readonly clockToleranceSeconds?: number;
  /** The clock. Default `() => new Date()`. */
  readonly now?: () => Date;
}

/** Whether ISO time `iso` is absent (no end) or after `at`. */
function openAt(iso: string | undefined, at: Date): boolean {
  return iso === undefined || Date.parse(iso) > at.getTime();
}

/**
 * Why the secret named `secretId` no longer vouches for an access token of `client`, or
 * undefined while it does: it is the current secret and has not expired, or the secret a
 * rotation replaced, within that rotation's grace period.
 */
function refusalFor(client: TokenRecord | undefined, secretId: unknown, at: Date): string | undefined {
  if (client === undefined || typeof secretId !== "string") return "The access token was revoked.";
  if (secretId === client.secretId)
    return openAt(client.expiresAt, at) ? undefined : "The client secret that obtained the access token has expired.";
  const inGrace = client.previousSecretValidUntil !== undefined && openAt(client.previousSecretValidUntil, at);
  return secretId === client.previousSecretId && inGrace ? undefined : "The access token was revoked.";
}

/**
 * A `TokenVerifier` accepting, on organization `orgId`, the access tokens `issuer` signed for a
 * client of `orgId` while the client secret that obtained each is still valid, and every token
 * `clients.verify` accepts (the long-lived bearer tokens, which are also the client secrets).
 * Refusals of access tokens carry their RFC 6750 reason (`TokenRefusedError`); other tokens are
 * answered as `clients` answers them.
 *
 * Each access token names the secret that obtained it (`client_secret_id`, the record's
 * `secretId`), so revocation does not depend on clocks: once a rotation replaced that secret
 * (and its grace period, if it gave one, is over) or the secret expired, the token is refused,
 * however close to the rotation it was issued. Tokens without that claim are refused.
 *
 * @example
 * const issuer = await accessTokenIssuer({ signingKey, issuer: "https://scim.example.com" });
 * app.use("/oauth/Organizations/:orgId", createOAuthTokenRouter({ clients: store.tokens, issuer }));
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth: clientCredentialsVerifier({ clients: store.tokens, issuer }) }));
 */
export function clientCredentialsVerifier(options: ClientCredentialsVerifierOptions): TokenVerifier {
  const { clients, issuer } = options;
  const now = options.now ?? (() => new Date());
  const accessTokens = jwtVerifier({
    jwks: issuer.jwks,
    issuer: issuer.issuer,
    audience: issuer.audience,
    organizationClaim: ORGANIZATION_CLAIM,
    algorithms: [issuer.algorithm],
    type: ACCESS_TOKEN_TYPE,
    requiredScope: SCIM_SCOPE,
    clockToleranceSeconds: options.clockToleranceSeconds ?? 30,
    now,
  });

  return {
    async verify(token: string, orgId: string, request: VerifyContext): Promise<Principal | null> {
      if (!COMPACT_JWS.test(token)) return clients.verify(token, orgId, request);
      const principal = await accessTokens.verify(token, orgId, request);
      // Decoding only: the signature has just been verified.
      const secretId = decodeJwt(token)[SECRET_ID_CLAIM];
      const client = principal === null ? undefined : (await clients.list(orgId)).find((record) => record.id === principal.tokenId);
      // The token's org_id matched orgId above, so telling "revoked" reveals nothing of another organization.
      const refusal = refusalFor(client, secretId, now());
      if (refusal !== undefined || client === undefined)
        throw new TokenRefusedError("invalid_token", refusal ?? "The access token was revoked.");
      return client.label === undefined ? { orgId, tokenId: client.id } : { orgId, tokenId: client.id, label: client.label };
    },
  };
}
