/**
 * What the route handlers of the analytics router share: the router's options resolved to
 * their defaults, and the background runner of report jobs.
 */
import type { RegionsView } from "./regions-view.js";
import type { Request } from "express";
import type { TokenStore } from "scimkit";
import type { EventSigningKeys, SecurityEventDelivery } from "scimkit/events";
import type { AnalyticsStore, Operation } from "./analytics-store.js";
import type { Invitation, StaticTokenDescription } from "./analytics-router-options.js";
import type { ResolvedReportOptions } from "./report-options.js";

/**
 * The resolved options and services every handler may use. `Store` is the part of the analytics
 * store a group of handlers uses (`AnalyticsDependencies<OperationStore>`); the router passes it all.
 */
export interface AnalyticsDependencies<Store = AnalyticsStore> {
  /** The analytics store, or the areas of it the handlers use. */
  readonly store: Store;
  readonly scimTokens: TokenStore;
  /** The host's static tokens of an organization; none when it configured no hook. */
  staticTokens(orgId: string): readonly StaticTokenDescription[];
  /** The SCIM base address of an organization, as the client reached us. */
  scimBaseUrl(orgId: string, request: Request): string;
  /** The host's RFC 9967 delivery, whose receivers the event-receiver operations manage; absent when it has none. */
  readonly securityEvents: SecurityEventDelivery | undefined;
  /** Where poll receiver `receiverId` of `orgId` polls, as the client reaches us. */
  securityEventPollUrl(orgId: string, receiverId: string, request: Request): string;
  /** The organizations' SET signing keys, which the signing-key operations show and rotate; absent when the host gave none. */
  readonly securityEventKeys: EventSigningKeys | undefined;
  /** Where receivers fetch the JWKS of `orgId`, as the client reaches us. */
  securityEventJwksUrl(orgId: string, request: Request): string;
  /** The host's invitation hook; absent when it configured none. */
  readonly onInvitation: ((invitation: Invitation) => void | Promise<void>) | undefined;
  readonly invitationTtlMs: number;
  readonly now: () => Date;
  readonly onError: (error: unknown) => void;
  /** The host's regions (issue 30); undefined: one region. */
  readonly regions: RegionsView | undefined;
  /** Reports' lifetime, dedupe window and bounds, defaults applied. */
  readonly reports: ResolvedReportOptions;
  /** Runs a queued report operation in the background, after the response is sent. */
  startReport(operation: Operation): void;
}
