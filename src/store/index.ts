/**
 * `scimkit/store`: what an adapter author needs to write a `ResourceStore` of their own — the
 * contract and its request types, and the helpers every store uses the same way (views and
 * entity tags, unique keys, index candidates, sort keys, membership plans, the shared refusals,
 * and time slices so a long scan never holds the event loop; architecture §3, §4b), the event
 * outbox a store keeps for durable events, and the token repository a token store writes through.
 * Check a store against the contract with `describeStoreConformance` from `scimkit/testkit`. The
 * contracts of the other features' storage live with the feature: the audit trail in
 * `scimkit/audit`, the request log in `scimkit/request-log`, event receivers and signing keys in
 * `scimkit/events`, the rate limiter in `scimkit/rate-limit`.
 */
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
} from "./resource-store.js";
export type { StoreOptions } from "./store-options.js";
export { entityTag, resourceView } from "./resource-view.js";
export { isUniqueAttribute, uniqueKeysOf } from "./unique-keys.js";
export { uniqueValue } from "../scim/schema/unique-value.js";
export { candidateIds, indexKeyOf, indexKeysOf } from "./index-candidates.js";
export type { IndexKey } from "./index-candidates.js";
export { isMembersPath, mentionsMembers } from "./filter-mentions.js";
export { compareListEntries, compareSortKeys, sortKeyOf } from "../scim/list/sort-key.js";
export type { ListEntry, SortKey } from "../scim/list/sort-key.js";
export { changesMembers, planMembership } from "./membership-plan.js";
export type { MembershipPlan } from "./membership-plan.js";
export { preconditionFailedError, uniquenessError, unknownMembersError } from "./store-errors.js";
export { sortedPrefix } from "./sorted-prefix.js";
export { driveInSlices, eventLoopSlice, mapInSlices, pauseIfDue } from "../event-loop-slice.js";
export type { EventLoopSlice } from "../event-loop-slice.js";
export type { HashReplacement, StoredToken, TokenRepository } from "../auth/token-repository.js";
export type {
  AppendEventsOptions,
  ClaimPendingRequest,
  EventOutbox,
  EventRecording,
  OutboxEvent,
  OutboxEventInput,
  OutboxEventKey,
  ReadEventsRequest,
} from "./event-outbox.js";
