/**
 * scimkit — SCIM 2.0 (RFC 7643, RFC 7644, RFC 9865) for Express.
 *
 * This entry point serves SCIM: the router and what configures it (options, profiles, limits,
 * fair share), its events, tokens, the audit trail, the one error class, and the plumbing the
 * router shares with any API a host serves beside it (body parsing, rate limits, sealed cursors,
 * audit hand-off; `scimkit/analytics` is built on these). The protocol core
 * is `scimkit/core` (it loads no Express), what a store author needs is `scimkit/store`, and the
 * stores are `scimkit/memory` and `scimkit/sql` (architecture §9).
 */
export { ScimError, ScimType, isScimError } from "./errors.js";
export type { BearerError, ScimErrorBody } from "./errors.js";
export { rfc7643Profile, specProfile } from "./scim/schema/resource-profile.js";
export type { ResourceProfile } from "./scim/schema/resource-profile.js";
export { COMPATIBILITY_PROFILE_NAMES, isCompatibilityProfileName } from "./scim/compatibility/compatibility-profile-name.js";
export type { CompatibilityProfileName } from "./scim/compatibility/compatibility-profile-name.js";
export { COMPATIBILITY_PROFILES, compatibilityProfileNamed } from "./scim/compatibility/compatibility-profiles.js";
export type { CompatibilityProfile, ResponseChoices, Tolerances } from "./scim/compatibility/compatibility-profile.js";

export { createScimRouter } from "./http/create-scim-router.js";
export { scimErrorHandler } from "./http/error-rendering/error-handler.js";
export { deferContinue } from "./http/body-parsing/defer-continue.js";
export { boundUnreadBody } from "./http/body-parsing/discard-request-body.js";
// Plumbing of the SCIM router, shared with any API a host serves beside it (scimkit/analytics is one).
export { asyncHandler } from "./http/express-helpers/async-handler.js";
export { queryOf } from "./http/express-helpers/query-of.js";
export { PUBLIC_URL_SETTING, requestOrigin } from "./http/request-context/request-origin.js";
export { jsonBodyParser } from "./http/body-parsing/json-body-parser.js";
export type { BodyRefusal, JsonBodyParserOptions } from "./http/body-parsing/json-body-parser.js";
export { requestErrorOf } from "./http/error-rendering/request-error.js";
export { isPossibleId } from "./is-possible-id.js";
export type { RequestError } from "./http/error-rendering/request-error.js";
export { openCursor, sealCursor } from "./http/search/sealed-cursor.js";
export type { CursorField } from "./http/search/sealed-cursor.js";
export { drainedOrClosed } from "./http/sending/drained-or-closed.js";
export type { DrainableSink } from "./http/sending/drained-or-closed.js";
export type { BulkOptions, PagingOptions, ScimRouterOptions } from "./http/scim-router-options.js";
export type { ExistingUserPolicy, ExistingUsersOption } from "./http/resource-service/existing-user-policy.js";
export { DEFAULT_WRITE_LIMITS } from "./http/resource-service/write-limits.js";
export type { WriteLimits } from "./http/resource-service/write-limits.js";
export type {
  ActivationEventAction,
  GroupEventType,
  LinkEventAction,
  MembershipEventAction,
  ResourceEventAction,
  ResourceEventType,
  ScimEvent,
  ScimEventAction,
  ScimEventListener,
  ScimWriteMethod,
  UserEventType,
} from "./http/lifecycle-events/scim-event.js";
export { RATE_ALLOWED } from "./store/rate-limiter.js";
export type { RateAllowed, RateDecision, RateLimiter, RateRefused } from "./store/rate-limiter.js";
export { rateLimitStep } from "./http/rate-limits/limit-rate.js";
export type { RateLimitStepOptions } from "./http/rate-limits/limit-rate.js";
export { tokenBucketLimiter } from "./http/rate-limits/token-bucket-limiter.js";
export type { TokenBucketOptions } from "./http/rate-limits/token-bucket-limiter.js";
export type { FairShareOptions } from "./http/scim-router-options.js";
export type { ExpensiveWorkGate, WorkPermit } from "./http/fair-share/expensive-work-gate.js";
export { fairShareGate } from "./http/fair-share/fair-share-gate.js";
export type { FairShareGateOptions } from "./http/fair-share/fair-share-gate.js";
export type { BodyWork, BulkWork, ListWork, ScimWork, WorkClassifier } from "./http/fair-share/work-classifier.js";
export { expensiveWorkClassifier } from "./http/fair-share/expensive-work-classifier.js";
export type { ExpensiveWorkOptions } from "./http/fair-share/expensive-work-classifier.js";
export type { AuditEntry, AuditOperation, AuditSink } from "./audit/audit-sink.js";
export type { AuditQuery, AuditRecord, AuditTrail } from "./audit/audit-trail.js";
export { auditedId, auditedTarget, handToSink, MAX_AUDITED_ID_LENGTH, MAX_AUDITED_TARGET_LENGTH } from "./audit/hand-to-sink.js";
export { memoryAuditTrail } from "./audit/memory-audit-trail.js";
export type { MemoryAuditTrailOptions } from "./audit/memory-audit-trail.js";
export type { RequestBodyRefusal, RequestLog, RequestLogEntry, UnauthenticatedRequestLogEntry } from "./request-log/request-log.js";
export type {
  ReadableRequestLog,
  RequestLogPage,
  RequestLogQuery,
  StatusClass,
  UnauthenticatedRequestLogPage,
  UnauthenticatedRequestLogQuery,
} from "./request-log/readable-request-log.js";
export { memoryRequestLog } from "./request-log/memory-request-log.js";
export type { MemoryRequestLogOptions } from "./request-log/memory-request-log.js";
export { IDENTITY_PROVIDERS, identityProviderOf } from "./request-log/identity-provider-of.js";
export type { IdentityProvider } from "./request-log/identity-provider-of.js";
export { REDACTED, redactBody, secretAttributeNames } from "./request-log/redact-body.js";
export { isSaneRequestId, MAX_REQUEST_ID_LENGTH, REQUEST_ID_HEADER } from "./http/request-log/request-id.js";
export { DEFAULT_MAX_LOGGED_BODY_BYTES } from "./http/request-log/log-request.js";

export type { Principal, TokenVerifier, VerifyContext } from "./auth/token-verifier.js";
export { createTokenStore, MAX_ROTATION_GRACE_SECONDS } from "./auth/hashed-token-store.js";
export type { IssuedToken, IssueTokenOptions, RotateTokenOptions, TokenStore, TokenStoreOptions } from "./auth/hashed-token-store.js";
export type { TokenRecord } from "./auth/token-record.js";
export type { HashReplacement, StoredToken, TokenRepository } from "./auth/token-repository.js";
export { memoryTokenRepository } from "./auth/memory-token-repository.js";
export { hashToken, sameTokenHash, unmatchableTokenHash } from "./auth/hash-token.js";
export { staticTokenVerifier } from "./auth/static-token-verifier.js";
export { parseOrganizationTokens } from "./auth/parse-organization-tokens.js";
export { TokenRefusedError, isTokenRefusedError } from "./auth/token-refused-error.js";
export type { TokenRefusalCode, TokenRefusalOptions } from "./auth/token-refused-error.js";
export { DEFAULT_JWT_ALGORITHMS, jwtVerifier } from "./auth/jwt-verifier.js";
export type { JwtVerifierOptions } from "./auth/jwt-verifier.js";
export {
  ACCESS_TOKEN_TYPE,
  accessTokenIssuer,
  DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS,
  generateSigningKey,
  ORGANIZATION_CLAIM,
  SCIM_SCOPE,
} from "./auth/access-token-issuer.js";
export type {
  AccessTokenGrant,
  AccessTokenIssuer,
  AccessTokenIssuerOptions,
  IssuedAccessToken,
  SigningAlgorithm,
  SigningKey,
} from "./auth/access-token-issuer.js";
export { clientCredentialsVerifier } from "./auth/client-credentials-verifier.js";
export type { ClientCredentialsVerifierOptions } from "./auth/client-credentials-verifier.js";
export { createOAuthTokenRouter } from "./http/oauth/create-oauth-token-router.js";
export type { OAuthTokenRouterOptions } from "./http/oauth/create-oauth-token-router.js";
export { oauthPathErrorHandler } from "./http/oauth/oauth-error.js";
export { recoverPendingEvents } from "./http/lifecycle-events/event-recovery.js";
export type { EventRecoveryOptions, RecoverPendingEventsOptions } from "./http/lifecycle-events/event-recovery.js";
export type {
  AppendEventsOptions,
  ClaimPendingRequest,
  EventOutbox,
  EventRecording,
  OutboxEvent,
  OutboxEventInput,
  OutboxEventKey,
  ReadEventsRequest,
} from "./store/event-outbox.js";
export {
  DEFAULT_BACKLOG_MAX_AGE_MS,
  DEFAULT_BACKLOG_MAX_EVENTS,
  DEFAULT_MAX_RECEIVERS_PER_ORGANIZATION,
  InvalidEventReceiverError,
  securityEventDelivery,
} from "./events/security-event-delivery.js";
export type {
  BackoffOptions,
  BacklogOptions,
  PollBoundOptions,
  PollRequest,
  PollResponse,
  ReceiverStart,
  SecurityEventDelivery,
  SecurityEventDeliveryOptions,
} from "./events/security-event-delivery.js";
export type {
  ClaimReceiversRequest,
  EventReceiverKey,
  DeliveryFailure,
  DeliveryProgress,
  EventDeliveryMethod,
  EventReceiver,
  EventReceiverInput,
  EventReceiverStore,
  RetiredSigningKey,
  SigningKeyRepository,
  SkippedEvents,
  StoredSigningKey,
} from "./events/event-receiver-store.js";
export { MAX_FAILURE_DESCRIPTION_LENGTH, boundedDeliveryFailure } from "./events/bounded-delivery-failure.js";
export { memoryEventReceiverStore, memorySigningKeyRepository } from "./events/memory-event-receiver-store.js";
export type { MemoryEventReceiverStoreOptions } from "./events/memory-event-receiver-store.js";
export {
  DEFAULT_KEY_RETENTION_MS,
  DEFAULT_MAX_RETIRED_KEYS,
  SECURITY_EVENT_ALGORITHM,
  eventSigningKeys,
} from "./events/event-signing-keys.js";
export type {
  EventSigningKeys,
  EventSigningKeysOptions,
  PrivateSigningKey,
  SigningKey as EventSigningKey,
} from "./events/event-signing-keys.js";
export { SECURITY_EVENT_TOKEN_TYPE, securityEventClaims, signSecurityEvent } from "./events/security-event-token.js";
export type { SecurityEventClaimsInput } from "./events/security-event-token.js";
export { SECURITY_EVENT_URIS, isSecurityEventUri, securityEventUriOf } from "./events/security-event-uris.js";
export type { SecurityEventForm, SecurityEventUri } from "./events/security-event-uris.js";
export { securityEventJwks } from "./http/security-events/security-event-jwks.js";
export { securityEventPollEndpoint } from "./http/security-events/security-event-poll-endpoint.js";
export { OutboundAddressRefusedError, outboundAddressPolicy } from "./outbound/outbound-address-policy.js";
export type { OutboundAddressPolicy, OutboundAddressPolicyOptions } from "./outbound/outbound-address-policy.js";
