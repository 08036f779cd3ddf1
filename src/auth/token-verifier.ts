/**
 * The authentication extension point (architecture §3, spec §5): given the bearer token of a request
 * and the organization in its URL, say who is calling — or that nobody is. The HTTP layer turns
 * `null` into 401; nothing in this directory knows about Express.
 */

/** Who a verified token speaks for. The HTTP layer attaches it to the request for handlers and logs. */
export interface Principal {
  /**
   * The organization the token belongs to. Always the `orgId` that `verify` was asked about: a
   * verifier never answers for another organization.
   */
  readonly orgId: string;
  /**
   * A stable, non-secret id of the credential that matched, for audit logs and for telling the
   * operator which token an identity provider still uses. Absent when the verifier has no such
   * notion. Never the token itself nor its hash.
   *
   * @example "0b6f1c1e-3f1e-4a53-9a53-3c0d8f4a6f2e" (hashed token store), "static-1" (static tokens)
   */
  readonly tokenId?: string;
  /** The operator's free-text name for the credential, when it has one, e.g. `"Entra production"`. */
  readonly label?: string;
}

/**
 * A framework-neutral view of the request being authenticated, so verifiers can apply policies
 * (an IP allow-list, read-only tokens) without depending on Express. The HTTP layer fills it in.
 */
export interface VerifyContext {
  /** The HTTP method, upper-case, e.g. `"PATCH"`. */
  readonly method: string;
  /**
   * The path of the request below the mount point, without the query string,
   * e.g. `"/Users/2819c223"`.
   */
  readonly path: string;
  /** The client address as the host's Express `trust proxy` setting resolves it. Absent when unknown. */
  readonly ip?: string;
}

/**
 * Decides whether a bearer token may act on one organization. Implement it to plug in your own
 * credentials (an API-key service, JWTs); scimkit ships `createTokenStore()` (hashed, issued and
 * rotated at run time), `staticTokenVerifier()` (fixed configuration), `jwtVerifier()` (JWTs of an
 * authorization server, checked against its JWKS) and `clientCredentialsVerifier()` (the OAuth 2.0
 * access tokens scimkit issues itself).
 *
 * @example
 * const auth: TokenVerifier = {
 *   async verify(token, orgId) {
 *     const key = await apiKeys.lookup(token);
 *     return key !== undefined && key.tenant === orgId ? { orgId, tokenId: key.id } : null;
 *   },
 * };
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth }));
 */
export interface TokenVerifier {
  /**
   * Resolves the principal `token` speaks for on organization `orgId`, or `null` when it may not
   * act there; `null` becomes 401.
   *
   * Contract:
   * - `token` is the credential after `Bearer `, exactly as sent; the HTTP layer answers a missing
   *   or malformed `Authorization` header itself and does not call `verify`.
   * - A token of organization A presented on organization B's path resolves to `null`, through the
   *   same code path and with the same work as a token nobody issued, so the answer reveals
   *   nothing about B — not even whether B exists.
   * - A revoked or rotated-out token resolves to `null` on the very next call: do not cache
   *   positive answers beyond what revocation can invalidate.
   * - Compare secrets in constant time (`crypto.timingSafeEqual` on digests), never with `===`.
   * - Reject (throw) only for infrastructure failures, e.g. the database is down; the HTTP layer
   *   renders a 500 and reports it through `onError`. A wrong token is `null`, not an error.
   * - The one exception: to tell the client why (RFC 6750 §3.1), reject with a `TokenRefusedError`
   *   instead of answering `null` — 401 `invalid_token` or 403 `insufficient_scope`. Its reason
   *   must depend on the token alone, never on `orgId`: a token of organization A on B's path is
   *   refused with exactly what a token nobody issued gets.
   * - When the token cannot be checked for now — the keys it must be checked against cannot be
   *   fetched — reject with a `TokenVerificationUnavailableError` (503 with `Retry-After`), not a
   *   refusal (it is not the token's fault) nor a bare error (a 500 on every request of an outage).
   *
   * @param token The presented bearer token.
   * @param orgId The organization id from the URL.
   * @param request The request being authenticated, for verifiers with per-request policies.
   * @returns The principal, whose `orgId` equals `orgId`, or `null`.
   * @throws TokenRefusedError to refuse with an RFC 6750 reason; TokenVerificationUnavailableError
   *   for a 503; anything else is a 500.
   */
  verify(token: string, orgId: string, request: VerifyContext): Promise<Principal | null>;
}
