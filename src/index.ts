/**
 * scimkit — SCIM 2.0 (RFC 7643, RFC 7644, RFC 9865) for Express.
 *
 * This entry point exports the router, its options and events, tokens and the audit trail, and —
 * for now, until the root is narrowed to the router — the protocol core, which `scimkit/core`
 * exports on its own without loading Express.
 */
export * from "./core/index.js";

export { createScimRouter } from "./http/create-scim-router.js";
export { scimErrorHandler } from "./http/error-handler.js";
export { deferContinue } from "./http/defer-continue.js";
export type { BulkOptions, PagingOptions, ScimRouterOptions } from "./http/scim-router-options.js";
export { DEFAULT_WRITE_LIMITS } from "./http/write-limits.js";
export type { WriteLimits } from "./http/write-limits.js";
export type { GroupEventType, ScimEvent, ScimEventListener, UserEventType } from "./http/scim-event.js";
export { RATE_ALLOWED } from "./http/rate-limiter.js";
export type { RateAllowed, RateDecision, RateLimiter, RateRefused } from "./http/rate-limiter.js";
export { tokenBucketLimiter } from "./http/token-bucket-limiter.js";
export type { TokenBucketOptions } from "./http/token-bucket-limiter.js";
export type { FairShareOptions } from "./http/scim-router-options.js";
export type { ExpensiveWorkGate, WorkPermit } from "./http/expensive-work-gate.js";
export { fairShareGate } from "./http/fair-share-gate.js";
export type { FairShareGateOptions } from "./http/fair-share-gate.js";
export type { BodyWork, BulkWork, ListWork, ScimWork, WorkClassifier } from "./http/work-classifier.js";
export { expensiveWorkClassifier } from "./http/expensive-work-classifier.js";
export type { ExpensiveWorkOptions } from "./http/expensive-work-classifier.js";
export type { AuditEntry, AuditOperation, AuditSink } from "./audit/audit-sink.js";
export type { AuditQuery, AuditRecord, AuditTrail } from "./audit/audit-trail.js";
export { memoryAuditTrail } from "./audit/memory-audit-trail.js";
export type { MemoryAuditTrailOptions } from "./audit/memory-audit-trail.js";

export type { Principal, TokenVerifier, VerifyContext } from "./auth/token-verifier.js";
export { createTokenStore } from "./auth/hashed-token-store.js";
export type { IssuedToken, IssueTokenOptions, TokenStore, TokenStoreOptions } from "./auth/hashed-token-store.js";
export type { TokenRecord } from "./auth/token-record.js";
export type { HashReplacement, StoredToken, TokenRepository } from "./auth/token-repository.js";
export { memoryTokenRepository } from "./auth/memory-token-repository.js";
export { hashToken, sameTokenHash } from "./auth/hash-token.js";
export { staticTokenVerifier } from "./auth/static-token-verifier.js";
export { parseOrganizationTokens } from "./auth/parse-organization-tokens.js";

export type {
  CreateRequest,
  CursorPage,
  DeleteRequest,
  GetRequest,
  IndexPage,
  ListRequest,
  ListResult,
  MembershipChange,
  ResourceStore,
  SortPosition,
  SortSpec,
  StoreCapabilities,
  StoreScope,
  StoredMember,
  StoredResource,
  UniqueKey,
  UnknownMemberPolicy,
  UpdateRequest,
  WriteResult,
} from "./store/resource-store.js";
export { entityTag, resourceView } from "./store/resource-view.js";
export { isUniqueAttribute, uniqueKeysOf } from "./store/unique-keys.js";
export { uniqueValue } from "./scim/schema/unique-value.js";
export type { StoreOptions } from "./store/store-options.js";
export { candidateIds, indexKeyOf, indexKeysOf } from "./store/index-candidates.js";
export type { IndexKey } from "./store/index-candidates.js";
export { isMembersPath, mentionsMembers } from "./store/filter-mentions.js";
export { compareListEntries, compareSortKeys, sortKeyOf } from "./scim/list/sort-key.js";
export type { ListEntry, SortKey } from "./scim/list/sort-key.js";
