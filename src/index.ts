/**
 * scimkit — SCIM 2.0 (RFC 7643, RFC 7644, RFC 9865) for Express.
 *
 * This entry point is what mounting the router needs: `createScimRouter` and its options, the
 * error handler, the app around the router (`deferContinue`, the public URL), and token
 * verification (the token store, static tokens, the `TokenVerifier` contract and the hashing a
 * verifier of your own shares). Every other feature has a subpath of its own (architecture §9):
 * the protocol core — `ScimError` and the profiles among it — is `scimkit/core`, the events
 * `scimkit/events`, OAuth 2.0 `scimkit/oauth`, the audit trail `scimkit/audit`, the provisioning
 * log `scimkit/request-log`, rate limits `scimkit/rate-limit`, the fair share `scimkit/fair-share`,
 * JSON bodies for routes of your own `scimkit/body`, sealed cursors `scimkit/cursor`, the store
 * contract `scimkit/store`, the stores `scimkit/memory` and `scimkit/sql`, the conformance kits
 * `scimkit/testkit`. No name is exported by two entries.
 */
export { createScimRouter } from "./http/create-scim-router.js";
export type { BulkOptions, FairShareOptions, PagingOptions, ScimRouterOptions } from "./http/scim-router-options.js";
export type { ExistingUserPolicy, ExistingUsersOption } from "./http/resource-service/existing-user-policy.js";
export { DEFAULT_WRITE_LIMITS } from "./http/resource-service/write-limits.js";
export type { WriteLimits } from "./http/resource-service/write-limits.js";
export { scimErrorHandler } from "./http/error-rendering/error-handler.js";

// The app around the router (docs/configuration.md, "The app around the router").
export { deferContinue } from "./http/body-parsing/defer-continue.js";
export { PUBLIC_URL_SETTING, requestOrigin } from "./http/request-context/request-origin.js";

// Token verification: the router's `auth`.
export type { Principal, TokenVerifier, VerifyContext } from "./auth/token-verifier.js";
export { TokenRefusedError, isTokenRefusedError } from "./auth/token-refused-error.js";
export type { TokenRefusalCode, TokenRefusalOptions } from "./auth/token-refused-error.js";
export { createTokenStore, MAX_ROTATION_GRACE_SECONDS } from "./auth/hashed-token-store.js";
export type { IssuedToken, IssueTokenOptions, RotateTokenOptions, TokenStore, TokenStoreOptions } from "./auth/hashed-token-store.js";
export type { TokenRecord } from "./auth/token-record.js";
export { staticTokenVerifier } from "./auth/static-token-verifier.js";
export { parseOrganizationTokens } from "./auth/parse-organization-tokens.js";
// For a `TokenVerifier` of your own over secrets you keep: hash and compare them as scimkit does.
export { hashToken, sameTokenHash, unmatchableTokenHash } from "./auth/hash-token.js";
export { readBoundedText } from "./read-bounded-text.js";
