/**
 * Everything `createScimRouter` can be told. Only `store` and `auth` are required; every other
 * member documents its default.
 */
import type { Request } from "express";
import type { AuditSink } from "../audit/audit-sink.js";
import type { RequestLog } from "../request-log/request-log.js";
import type { TokenVerifier } from "../auth/token-verifier.js";
import type { CompatibilityProfile } from "../scim/compatibility/compatibility-profile.js";
import type { CompatibilityProfileName } from "../scim/compatibility/compatibility-profile-name.js";
import type { FilterLimits } from "../scim/filter/parse-filter.js";
import type { ResourceProfile } from "../scim/schema/resource-profile.js";
import type { SchemaRegistry } from "../scim/schema/schema-registry.js";
import type { ResourceStore, UnknownMemberPolicy } from "../store/resource-store.js";
import type { ExpensiveWorkGate } from "./fair-share/expensive-work-gate.js";
import type { ExistingUsersOption } from "./resource-service/existing-user-policy.js";
import type { RateLimiter } from "../store/rate-limiter.js";
import type { ScimEventListener } from "./lifecycle-events/scim-event.js";
import type { EventRecoveryOptions } from "./lifecycle-events/event-recovery.js";
import type { WorkClassifier } from "./fair-share/work-classifier.js";
import type { WriteLimits } from "./resource-service/write-limits.js";

/** Bulk limits (RFC 7644 §3.7.4), enforced and advertised in `/ServiceProviderConfig`. */
export interface BulkOptions {
  /** Most operations in one request. Default 1,000. */
  readonly maxOperations?: number;
  /** Largest request body in bytes. Default 1,048,576. */
  readonly maxPayloadSize?: number;
}

/** List paging defaults and bounds (RFC 7644 §3.4.2.4, RFC 9865). */
export interface PagingOptions {
  /** Resources per page when the client sends no `count`. Default 100. */
  readonly defaultPageSize?: number;
  /** The most resources one page returns; a larger `count` is clamped to it. Default 1,000. */
  readonly maxPageSize?: number;
}

/**
 * The fair share between organizations (architecture §4b): expensive requests of one organization wait
 * for each other, never for another organization's, and cheap ones never wait at all.
 */
export interface FairShareOptions {
  /**
   * Admits each organization's expensive requests. Default `fairShareGate()`: one at a time per
   * organization, 16 more waiting in arrival order, beyond that 429 with `Retry-After`, and after
   * each a rest three times as long as it was held while other organizations are served
   * (`share` 0.25), one at a time per `group` too, and 3 at most in all; counted in this process.
   */
  readonly gate?: ExpensiveWorkGate;
  /**
   * Says which requests are expensive. Default `expensiveWorkClassifier()`: lists whose filter no
   * index answers, any `sortBy`, `startIndex` above 1,000, `count` above 200, group pages with
   * members, `/Bulk`, and writes whose body is over 64 KiB or chunked (judged on the headers,
   * before the body is read; the turn lasts until the response ends).
   */
  readonly classifier?: WorkClassifier;
  /**
   * The organization's fair-share group: organizations of one group share the gate's bound on
   * expensive work (`fairShareGate`'s `groupConcurrency` and its duty cycle) as well as each
   * having its own. A host whose organizations form trees (a company's divisions) answers the root
   * of the organization's tree, so eight divisions looping scans take what one organization
   * would, not eight times as much. Asked once per authenticated request, cheap ones included:
   * answer from a cache (a string, not a promise, when cached), and refresh it when the tree
   * changes; a throw or rejection is a 500 for `onError`, an empty string means the organization
   * alone. Default: every organization is its own group.
   *
   * @example
   * fairShare: { group: (orgId) => roots.get(orgId) ?? loadRoot(orgId) }
   */
  readonly group?: (orgId: string) => string | Promise<string>;
  /**
   * How long a request waits for its turn before it is answered 429 with `Retry-After`, in
   * milliseconds. Default 10,000. A write whose large body waits unread waits at most half the
   * HTTP server's `requestTimeout` too, so it gets the 429 rather than Node's bare 408.
   */
  readonly maxWaitMs?: number;
}

export interface ScimRouterOptions {
  /** Where resources live: `memoryStore()`, `sqlStore(…)` or your own `ResourceStore`. */
  readonly store: ResourceStore;
  /** Checks bearer tokens: a token store, `staticTokenVerifier(…)` or your own `TokenVerifier`. */
  readonly auth: TokenVerifier;
  /**
   * The organization every call is scoped to. Default: the `orgId` route parameter of the mount
   * path (`/scim/Organizations/:orgId/v2`). A string mounts the router for one fixed
   * organization; a function derives it from the request.
   */
  readonly organization?: string | ((request: Request) => string | undefined);
  /** Schemas and resource types. Default: `createSchemaRegistry()` (User with the enterprise extension, Group). */
  readonly registry?: SchemaRegistry;
  /** Which attributes are required and kept. Default `rfc7643Profile`; the example host uses `specProfile`. */
  readonly profile?: ResourceProfile;
  /**
   * The absolute base URL of the SCIM service for `meta.location` and `Location`, without a
   * trailing slash; a function receives the request and organization. Default: the request's
   * scheme and host (honouring `X-Forwarded-Proto` and `X-Forwarded-Host` when the app's
   * `trust proxy` setting trusts the peer) followed by the mount path.
   */
  readonly baseUrl?: string | ((request: Request, orgId: string) => string);
  /** Largest accepted request body (bytes, or a string such as `"1mb"`), answered with 413. Default `"1mb"`. */
  readonly bodyLimit?: number | string;
  /**
   * What `POST /Users` does when the user already exists in the organization, found by `userName`
   * (compared as uniqueness compares it: case-insensitively, in Unicode NFC) or by `externalId`
   * (exactly). A function `(orgId, request)` chooses per organization, e.g. from the organization's
   * record (it may be async): asked once per POST, after authentication.
   * - `"conflict"` (default): 409 `uniqueness`, as RFC 7644 §3.3 prescribes.
   * - `"link"`: the existing user is updated with the POSTed representation, replacing what it
   *   held as a PUT does (RFC 7644 §3.5.1: a POST carries the whole resource), and returned with
   *   200 (not 201), its own `id`, `ETag` and `Location`; the event is `user.linked` and the audit
   *   entry a `create` with status 200 and that user's id. An `If-Match` on the POST then guards
   *   the link (412 on a stale version). When `userName` and `externalId` match two different
   *   users, the answer is 409 `uniqueness` naming both. Concurrent POSTs of one new user give one
   *   201 and 200s, never two users. Applies to `/Bulk` POST operations alike.
   *
   * Only users link: a group's `displayName` is a label, not an identity, and two directories'
   * "Admins" may mean different people, so a POST of an existing group stays 409.
   */
  readonly existingUsers?: ExistingUsersOption;
  /** Member ids that name no resource of the organization: `"ignore"` (default) or `"reject"`. */
  readonly unknownMembers?: UnknownMemberPolicy;
  /**
   * The compatibility profile each organization's requests are served with
   * (docs/compatibility-profiles.md): which identity-provider shapes are accepted, and the
   * response choices (group PATCH 200 or 204, empty multi-valued attributes, the `pagination`
   * block). A built-in name, a `CompatibilityProfile`, or a function of the organization and the
   * request, asked once per request. Default `"generic"`: every tolerance. An unknown name throws a
   * TypeError when the router is built; from the function, it is a 500 reported to `onError`.
   */
  readonly compatibility?:
    | CompatibilityProfileName
    | CompatibilityProfile
    | ((
        orgId: string,
        request: Request,
      ) => CompatibilityProfileName | CompatibilityProfile | Promise<CompatibilityProfileName | CompatibilityProfile>);
  readonly paging?: PagingOptions;
  /**
   * Key of the HMAC that seals RFC 9865 cursors, so a client cannot edit the position inside one.
   * Default empty: edits and corruption are still detected, but a determined client could forge a
   * cursor (only ever into its own organization's list). Use the same value in every process.
   */
  readonly cursorSecret?: string;
  readonly bulk?: BulkOptions;
  /**
   * Bounds for filter expressions, in list and `.search` requests and in PATCH paths: `maxLength`
   * characters and `maxDepth` levels of parentheses, brackets and `not`. Beyond them is 400
   * `invalidFilter` naming the limit. Default 10,000 characters and 32 levels.
   */
  readonly filterLimits?: Partial<FilterLimits>;
  /**
   * Bounds on what one write may carry (architecture §4b): `maxPatchOperations` operations per PATCH
   * (default 10,000; over it 413), `maxValues` values per multi-valued attribute other than group
   * `members` (default 1,000; over it 400 `invalidValue`), `maxMembers` group members named by one
   * request (default 20,000; over it 413). Each refusal names the limit and the value, and writes
   * nothing. See `WriteLimits` for the identity providers' traffic the defaults are measured against.
   */
  readonly writeLimits?: Partial<WriteLimits>;
  /**
   * Limits the requests each organization may make: checked after authentication, so only the
   * organization's own clients spend its allowance; over it is 429 with `Retry-After`.
   * `tokenBucketLimiter({ requestsPerSecond })` is the in-process reference. Default: no limit.
   */
  readonly rateLimit?: RateLimiter;
  /**
   * Bounds the expensive work (scans, sorts, deep pages, `/Bulk`) each organization runs at once,
   * so one organization cannot occupy every SQLite reader, PostgreSQL connection or slice of the
   * event loop; beyond the bound its requests queue, then get 429 with `Retry-After`. Lookups by
   * `id`, `userName` or `externalId` never queue. Default: on, with the defaults of
   * `FairShareOptions`; `false` turns it off.
   */
  readonly fairShare?: FairShareOptions | false;
  /**
   * Receives the audit trail: every write an authenticated client attempts, through the
   * resource endpoints and each `/Bulk` operation, with its outcome, before the response is sent.
   * `memoryAuditTrail()` and `sqlAuditTrail(store.db)` are the references. Default: none.
   */
  readonly onAudit?: AuditSink;
  /**
   * Receives the provisioning log: one entry per SCIM request with a token verified for its
   * organization, after its response is sent, with bodies redacted and cut at
   * `requestLog.maxBodyBytes` (default 64 KiB); requests without one go to
   * `requestLog.recordUnauthenticated`, if the log has it, never to an organization's entries.
   * `memoryRequestLog({ capacity })` is the reference. A failing log goes to `onError` and never
   * reaches the client. Default: none.
   */
  readonly requestLog?: RequestLog;
  /**
   * Receives lifecycle events after each committed write. With a store that keeps an event outbox
   * (`ResourceStore.events`: the memory and SQL stores), the events are recorded in the write's
   * transaction and delivered from there; those a dead process never delivered reach a live one
   * (`eventRecovery`).
   */
  readonly onEvent?: ScimEventListener;
  /**
   * How this router delivers to `onEvent` the events a process recorded but never delivered (it
   * died, or could not mark them): its lease, and how often it looks. On whenever there is an
   * `onEvent` and the store has an outbox; `false` leaves them to another process (events written
   * here are still delivered here). See `EventRecoveryOptions` for the defaults.
   */
  readonly eventRecovery?: EventRecoveryOptions | false;
  /**
   * Whether each write records its lifecycle events in the store's outbox (`ResourceStore.events`)
   * in the write's own transaction (issue 20), so an event is neither lost nor invented when the
   * process dies, and RFC 9967 delivery (`securityEventDelivery`) has them to send. Default false:
   * events go to `onEvent` in process after the commit, as before. It costs each write one more
   * statement in its transaction: 10–19% of SQLite's write throughput and 35–45% of PostgreSQL's
   * in the benchmark (bench/explanations.md, "Event outbox cost"), over the 10% it may cost as the default.
   */
  readonly durableEvents?: boolean;
  /**
   * Advertises RFC 9967 delivery in `/ServiceProviderConfig` (`securityEvents`, RFC 9967 §4): the
   * event URIs receivers can get, usually `SECURITY_EVENT_URIS` when `securityEventDelivery` runs.
   * Default: no `securityEvents` block.
   */
  readonly securityEvents?: { readonly eventUris: readonly string[] };
  /**
   * Receives every unexpected error (the client gets a bare 500) and every failing event listener.
   * Default: `console.error`.
   */
  readonly onError?: (error: unknown, request: Request | undefined) => void;
  /** `documentationUri` of `/ServiceProviderConfig`. Optional. */
  readonly documentationUri?: string;
}
