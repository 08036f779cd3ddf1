/**
 * `scimkit/oauth` (docs/security.md "OAuth 2.0"): OAuth 2.0 access tokens for the SCIM API, beside
 * or instead of bearer tokens. `jwtVerifier` is the router's `auth` for JWT access tokens (RFC 9068)
 * from an authorization server of your own. Or scimkit is the authorization server:
 * `createOAuthTokenRouter` serves the client credentials grant (RFC 6749 §4.4) per organization,
 * with `clientCredentialsVerifier` checking the client's secret against the token store,
 * `accessTokenIssuer` signing what it grants with a key from `generateSigningKey`, and
 * `oauthPathErrorHandler` answering a malformed path as RFC 6749 §5.2 says.
 */
export { DEFAULT_JWT_ALGORITHMS, jwtVerifier } from "../../auth/jwt-verifier.js";
export type { JwtVerifierOptions } from "../../auth/jwt-verifier.js";
export {
  ACCESS_TOKEN_TYPE,
  accessTokenIssuer,
  DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS,
  generateSigningKey,
  ORGANIZATION_CLAIM,
  SCIM_SCOPE,
} from "../../auth/access-token-issuer.js";
export type {
  AccessTokenGrant,
  AccessTokenIssuer,
  AccessTokenIssuerOptions,
  IssuedAccessToken,
  SigningAlgorithm,
  SigningKey,
} from "../../auth/access-token-issuer.js";
export { clientCredentialsVerifier } from "../../auth/client-credentials-verifier.js";
export type { ClientCredentialsVerifierOptions } from "../../auth/client-credentials-verifier.js";
export { createOAuthTokenRouter } from "./create-oauth-token-router.js";
export type { OAuthTokenRouterOptions } from "./create-oauth-token-router.js";
export { oauthPathErrorHandler } from "./oauth-error.js";
