/**
 * The options of `createAnalyticsRouter`: where the data is, how organizations get their SCIM
 * tokens and addresses, how invitations reach people, and the router's limits.
 */
import type { RegionsView } from "./regions-view.js";
import type { Request } from "express";
import type { TokenStore } from "scimkit";
import type { AuditSink } from "scimkit/audit";
import type { EventSigningKeys, SecurityEventDelivery } from "scimkit/events";
import type { RateLimiter } from "scimkit/rate-limit";
import type { ReadableRequestLog } from "scimkit/request-log";
import type { AdminUser, AnalyticsStore } from "./analytics-store.js";
import type { ReportOptions } from "./report-options.js";

/** A new invitation, for the host to deliver (by e-mail, say). */
export interface Invitation {
  /**
   * The invited admin user (status `invited`) — or, when the e-mail is an admin user's the inviter
   * may not see, the pending offer listed as one (issue 27): deliver both alike; accepting the
   * offer adds its organizations to that admin user.
   */
  readonly adminUser: AdminUser;
  /**
   * The single-use code the person sends to `POST /invitations/accept`. Only its digest is
   * stored: deliver it now, over a channel only that person reads; it cannot be shown again.
   */
  readonly code: string;
  /** ISO 8601 time after which the code no longer works. */
  readonly expiresAt: string;
}

/**
 * A SCIM token the host configured outside the token store (`SCIMKIT_ORGS`, checked by
 * `staticTokenVerifier`), as the operator interface lists it: never the token itself.
 */
export interface StaticTokenDescription {
  /** A name to show, e.g. `"SCIMKIT_ORGS"`. */
  readonly label?: string;
  /**
   * The first characters of the token, to tell which one a configuration holds; keep it short
   * (the store shows 12 of its 51 characters), or leave it out.
   */
  readonly prefix?: string;
}

/** Options of `createAnalyticsRouter`. */
export interface AnalyticsRouterOptions {
  /** The analytics data: `memoryAnalyticsStore` or `sqlAnalyticsStore` over the SCIM store's storage. */
  readonly store: AnalyticsStore;
  /**
   * The SCIM token store (`createTokenStore()`, or `sqlStore(…).tokens`): it issues the first
   * SCIM token of each organization created here, and loses the tokens of a deleted one.
   */
  readonly scimTokens: TokenStore;
  /**
   * The static SCIM tokens of organization `orgId` — those the host's `TokenVerifier` accepts
   * beside `scimTokens`, e.g. from `SCIMKIT_ORGS` — in the order the verifier numbers them
   * (`staticTokenVerifier` calls the n-th `static-<n>`). `GET /organizations/{id}/tokens` lists
   * them with `source: "static"`; rotating or revoking one is 409, since they change only where
   * they are configured. Default: none.
   *
   * @example (orgId) => (configured[orgId] ?? []).map((token) => ({ label: "SCIMKIT_ORGS", prefix: token.slice(0, 6) }))
   */
  readonly staticTokens?: (orgId: string) => readonly StaticTokenDescription[];
  /**
   * The SCIM base address of organization `orgId`, returned when it is created. Return
   * `undefined` (or leave the option out) for the default: the origin the request reached us
   * at, plus `/scim/Organizations/{orgId}/v2` (spec §2.1).
   *
   * @example (orgId) => `https://scim.example.com/scim/Organizations/${orgId}/v2`
   */
  readonly scimBaseUrl?: (orgId: string, request: Request) => string | undefined;
  /**
   * Delivers an invitation. Without it the service cannot invite (501): the code would reach
   * nobody. If it rejects, the invitation is withdrawn and the request fails with 500, so it can
   * simply be retried.
   */
  readonly onInvitation?: (invitation: Invitation) => void | Promise<void>;
  /** How long an invitation code works, in milliseconds. Default 7 days. */
  readonly invitationTtlMs?: number;
  /**
   * Key of the MAC that seals list cursors. The same in every process of a deployment. Default
   * empty: cursors still cannot be edited unnoticed, but could be forged by someone who knows
   * the format (which only ever moves a page within what the caller may see anyway).
   */
  readonly cursorSecret?: string;
  /** Largest request body, in bytes or as `"100kb"`. Default `"100kb"`. */
  readonly bodyLimit?: number | string;
  /**
   * Limits the requests of each API key (`tokenBucketLimiter(…)`, or a limiter shared by every
   * process). It is asked once per authenticated request with the key's id — not an organization,
   * since an admin user's key spans several and the operator's all; a refusal is a 429
   * `rate-limited` problem with `Retry-After`. Public operations (the OpenAPI document, accepting
   * an invitation) carry no key and are not limited. Default: no limit.
   */
  readonly rateLimit?: RateLimiter;
  /**
   * Receives every write — creating, changing and deleting organizations and admin users,
   * inviting, accepting an invitation, starting a report, issuing, rotating and revoking SCIM
   * tokens, rotating the operator key, adding and removing event receivers (never their
   * `Authorization` value) — with its outcome, as an `AuditEntry`
   * with `operation` `analytics.<operationId>`, `via: "analytics"`, the key's id as `tokenId`, and
   * the organization it concerns as `orgId` (`""` when it concerns none in particular). The same
   * `AuditSink` as the SCIM router's `onAudit`, so one trail (`memoryAuditTrail`,
   * `sqlAuditTrail`) can serve both. Failed invitation accepts are not recorded: that route is
   * public. Default: no audit.
   */
  readonly onAudit?: AuditSink;
  /**
   * The provisioning log that `GET /organizations/{id}/request-log` reads (issue 18): the same
   * `ReadableRequestLog` given to the SCIM router as its `requestLog`, so what an identity provider
   * sent is found here by its organization's operator and admins. `memoryRequestLog()` keeps it in
   * this process; a shared log (a database) shows every process's requests. Default: none, and the
   * operation answers 404 saying the host keeps no provisioning log.
   *
   * @example
   * const requestLog = memoryRequestLog({ capacity: 10_000 });
   * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth, requestLog }));
   * app.use("/analytics/v1", createAnalyticsRouter({ store: analytics, scimTokens, requestLog }));
   */
  readonly requestLog?: ReadableRequestLog;
  /**
   * The RFC 9967 delivery whose receivers `/organizations/{id}/event-receivers` manages (issue 20):
   * the host's `securityEventDelivery(…)`, the one whose loop it runs. The router only registers,
   * lists and removes receivers through it; it never starts the loop. Default: none, and those
   * operations answer 404 saying the host delivers no security events.
   *
   * @example
   * const delivery = securityEventDelivery({ outbox: store.events!, receivers, keys, issuer });
   * app.use("/analytics/v1", createAnalyticsRouter({ store: analytics, scimTokens, securityEvents: delivery }));
   */
  readonly securityEvents?: SecurityEventDelivery;
  /**
   * Where poll receiver `receiverId` of `orgId` polls (RFC 8936 §2.4), shown with the receiver: the
   * address the host mounted `securityEventPollEndpoint` at. Return `undefined` (or leave the option
   * out) for the default: the origin the request reached us at, plus
   * `/scim/Organizations/{orgId}/events/poll/{receiverId}` (docs/events.md).
   */
  readonly securityEventPollUrl?: (orgId: string, receiverId: string, request: Request) => string | undefined;
  /**
   * The organizations' SET signing keys (issue 20) — the same `EventSigningKeys` the delivery in
   * `securityEvents` signs with — which `/organizations/{id}/event-signing-key` shows (the signing
   * key's `kid` and the public JWKS) and rotates. Needs `securityEvents` too: without either, those
   * operations answer 404 saying security event delivery is not configured.
   *
   * @example
   * const keys = eventSigningKeys(sqlSigningKeyRepository(store.db));
   * const delivery = securityEventDelivery({ outbox: store.events!, receivers, keys, issuer });
   * createAnalyticsRouter({ store: analytics, scimTokens, securityEvents: delivery, securityEventKeys: keys });
   */
  readonly securityEventKeys?: EventSigningKeys;
  /**
   * Where receivers fetch the JWKS of `orgId` (RFC 7517 §5), shown with its signing key: the address
   * the host mounted `securityEventJwks` at. Return `undefined` (or leave the option out) for the
   * default: the origin the request reached us at, plus `/scim/Organizations/{orgId}/events/jwks.json`.
   */
  readonly securityEventJwksUrl?: (orgId: string, request: Request) => string | undefined;
  /**
   * Bulk reports' lifetime, dedupe, per-organization bounds and the lease of their jobs (see
   * `ReportOptions`; every member has a default). Default: 24 h lifetime, identical requests
   * answered by one operation for 5 minutes, 4 reports at once and 500,000 stored rows per
   * organization, a 30 s lease.
   */
  readonly reports?: ReportOptions;
  /**
   * Data residency (issue 30): what `GET /regions` shows — the regions and the requests that
   * reached the wrong one. Absent: one region, and `GET /regions` answers 404.
   */
  readonly regions?: RegionsView;
  /** The clock. Default `() => new Date()`. */
  readonly now?: () => Date;
  /**
   * Hears unexpected errors (the client got a 500 `internal` problem) and failures of background
   * report jobs. Default: `console.error`.
   */
  readonly onError?: (error: unknown) => void;
}
