/**
 * scimkit — SCIM 2.0 (RFC 7643, RFC 7644, RFC 9865) for Express.
 *
 * This entry point exports the protocol core: schemas and the registry, profiles and validation,
 * filters, PATCH, projection and the one error class. It does no I/O.
 */
export { ERROR_SCHEMA, ScimError, ScimType, badRequest, invalidValueError, isScimError } from "./errors.js";
export type { ScimErrorBody, ScimErrorOptions, ValidationIssue } from "./errors.js";
export { fail, ok, unwrap } from "./result.js";
export type { Result } from "./result.js";

export { attribute } from "./scim/schema/attribute-definition.js";
export type {
  AttributeDefinition,
  AttributeType,
  Mutability,
  ResourceTypeDefinition,
  Returned,
  SchemaDefinition,
  SchemaExtensionReference,
  Uniqueness,
} from "./scim/schema/attribute-definition.js";
export { commonAttributes } from "./scim/schema/common-attributes.js";
export { coreUserSchema } from "./scim/schema/core-user-schema.js";
export { coreGroupSchema } from "./scim/schema/core-group-schema.js";
export { enterpriseUserSchema } from "./scim/schema/enterprise-user-schema.js";
export { groupResourceType, userResourceType } from "./scim/schema/core-resource-types.js";
export { createSchemaRegistry, defaultPathAliases } from "./scim/schema/schema-registry.js";
export type {
  ExtensionRegistration,
  PathResolution,
  ResourceSchema,
  SchemaRegistry,
  SchemaRegistryOptions,
} from "./scim/schema/schema-registry.js";
export { formatPath, leafOf } from "./scim/schema/resolved-path.js";
export type { ResolvedPath } from "./scim/schema/resolved-path.js";

export { normalizeAttributeValue, normalizeElement, parseDateTime } from "./scim/schema/normalize-value.js";
export type { NormalizeValueOptions, ScimObject } from "./scim/schema/normalize-value.js";
export { flattenInput, normalizeResource, schemasFor } from "./scim/schema/normalize-resource.js";
export type { FlattenedInput, InputEntry } from "./scim/schema/normalize-resource.js";
export { rfc7643Profile, specProfile } from "./scim/schema/resource-profile.js";
export type { ResourceProfile } from "./scim/schema/resource-profile.js";
export { createResourceValidator } from "./scim/schema/create-resource-validator.js";
export type { ResourceValidator } from "./scim/schema/create-resource-validator.js";
export { createProjection } from "./scim/schema/create-projection.js";
export type { Projection, ProjectionRequest } from "./scim/schema/create-projection.js";

export { defaultFilterLimits, parseFilter } from "./scim/filter/parse-filter.js";
export type { FilterLimits } from "./scim/filter/parse-filter.js";
export type {
  AndFilter,
  CompareFilter,
  CompareOperator,
  Filter,
  FilterKind,
  FilterValue,
  NotFilter,
  OrFilter,
  ParsedFilter,
  PresentFilter,
  ValuePathFilter,
} from "./scim/filter/filter-ast.js";
export { compileFilter, resolveFilter } from "./scim/filter/resolve-filter.js";
export { matchesFilter } from "./scim/filter/matches-filter.js";

export { parsePatchPath } from "./scim/path/parse-patch-path.js";
export type { PatchPath } from "./scim/path/patch-path.js";
export { applyPatch, applyPatchStepwise } from "./scim/patch/apply-patch.js";
export type { ApplyPatchOptions, PatchResult } from "./scim/patch/apply-patch.js";
export { PATCH_OP_SCHEMA, parsePatchRequest } from "./scim/patch/patch-request.js";
export type { PatchOpName, PatchOperation } from "./scim/patch/patch-request.js";
export {
  addMembers,
  applyMembershipDelta,
  composeMembershipDeltas,
  isEmptyMembershipDelta,
  noMembershipChange,
  removeMembers,
  replaceMembers,
} from "./scim/patch/membership-delta.js";
export type { MembershipDelta } from "./scim/patch/membership-delta.js";
export { hasValue } from "./scim/schema/has-value.js";

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
