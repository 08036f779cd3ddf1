/**
 * The example host: an Express app that serves SCIM for a set of organizations on the
 * embedded default store, and the analytics interface over the same data — what `npm start`
 * runs. Build it with `createHostApp`/`startHostServer`, or run `scimkit serve` (`commands/serve-command.ts`) to configure it from
 * the environment.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type Express, type RequestHandler } from "express";
import { createAnalyticsRouter } from "@scimkit/server";
import type { AnalyticsRouterOptions } from "@scimkit/server";
import type { AnalyticsStore, RegionAggregates, RegionsView } from "@scimkit/server";
import { organizationRoots } from "./organization-roots.js";
import {
  type BulkOptions,
  createScimRouter,
  deferContinue,
  type FairShareOptions,
  type PagingOptions,
  PUBLIC_URL_SETTING,
  scimErrorHandler,
  type ScimRouterOptions,
  type TokenStore,
  type TokenVerifier,
  type WriteLimits,
} from "scimkit";
import type { AuditSink, AuditTrail } from "scimkit/audit";
import { boundUnreadBody } from "scimkit/body";
import { type FilterLimits, ScimError, specProfile } from "scimkit/core";
import { type ScimEvent, SECURITY_EVENT_URIS } from "scimkit/events";
import { expensiveWorkClassifier, fairShareGate } from "scimkit/fair-share";
import { createOAuthTokenRouter, oauthPathErrorHandler, type OAuthTokenRouterOptions } from "scimkit/oauth";
import { type RateLimiter, tokenBucketLimiter } from "scimkit/rate-limit";
import type { ReadableRequestLog } from "scimkit/request-log";
import type { ResourceStore } from "scimkit/store";
import { healthProbes, type HostHealth } from "./host-health.js";
import { consoleRoutes } from "./console-routes.js";
import { hostErrorHandler, hostNotFound } from "./host-fallback.js";
import { type HostSecurityEvents, runSecurityEvents, securityEventRoutes } from "./host-security-events.js";
import { misdirectedRequest } from "./regions/misdirected-request.js";
import { frozenDetail, moveGate } from "./regions/move-gate.js";
import type { OrganizationDatabase } from "./regions/organization-tables.js";
import type { RegionMoveBook } from "./regions/region-move-book.js";
import { regionMoveChannel } from "./regions/region-move-channel.js";
import type { RegionMoveDriver } from "./regions/region-move-driver.js";
import { pullRegionDirectories } from "./regions/pull-region-directories.js";
import type { RegionDirectory } from "./regions/region-directory.js";
import { regionDirectoryFeed } from "./regions/region-directory-feed.js";
import { regionAggregates } from "./regions/region-aggregates.js";
import { regionAggregatesFeed } from "./regions/region-aggregates-feed.js";
import { summarizeRegions } from "./regions/summarize-regions.js";
import { scimBaseUrl } from "./scim-base-url.js";

/** The analytics interface of the host (issue 6), mounted at `/analytics/v1`. */
export interface HostAnalytics {
  /** The analytics store over the same storage as `HostServerOptions.store`. */
  readonly store: AnalyticsStore;
  /** Issues the SCIM token of each organization the operator creates. */
  readonly scimTokens: TokenStore;
  /**
   * Delivers admin-user invitations. Default: none, and inviting answers 501 — this host sends no
   * mail — unless `logInvitationCodes` is set.
   */
  readonly onInvitation?: AnalyticsRouterOptions["onInvitation"];
  /**
   * Without `onInvitation`: write each invitation's code to the log, for demos. Off by default
   * (issue 19): whoever reads the log could accept an invitation before the person it was for.
   */
  readonly logInvitationCodes?: boolean;
  /** The tokens `SCIMKIT_ORGS` configures, listed by the token API as static (they change only there). */
  readonly staticTokens?: AnalyticsRouterOptions["staticTokens"];
  /** Bulk reports' lifetime, bounds and job lease (`AnalyticsRouterOptions.reports`); every member has a default. */
  readonly reports?: AnalyticsRouterOptions["reports"];
}

/**
 * What the host lets one request, or one organization, cost. Every member has the default
 * `defaultHostLimits` shows; each is passed to `createScimRouter` explicitly, so the host's
 * figures are visible here rather than inherited.
 */
export interface HostLimits {
  /** Largest SCIM request body but Bulk's (413 beyond it). Default `"1mb"`. */
  readonly bodyLimit?: number | string;
  /** Longest and deepest filter (400 `invalidFilter` beyond them). Default 4,096 characters, 16 levels. */
  readonly filterLimits?: Partial<FilterLimits>;
  /** Bulk operations per request and Bulk body size (413 beyond them). Default 1,000 and 1 MiB. */
  readonly bulk?: BulkOptions;
  /**
   * Operations per PATCH (413 beyond), values per multi-valued attribute (400 `invalidValue`
   * beyond), group members named per request (413 beyond). Default 10,000, 1,000 and 20,000: the
   * library's, which `WriteLimits` measures against Entra's and Okta's documented traffic.
   */
  readonly writeLimits?: Partial<WriteLimits>;
  /** Page size without `count`, and the most one page holds (a larger `count` is lowered). Default 100 and 1,000. */
  readonly paging?: PagingOptions;
  /**
   * Requests per organization (429 with `Retry-After` beyond it), or `false` for none. Default: a
   * token bucket of 100 requests per second sustained, bursts of 200, in this process. The
   * analytics interface gets a bucket of the same size per API key, or none with `false`.
   */
  readonly rateLimit?: RateLimiter | false;
  /**
   * The figures of the host's own token buckets (SCIM per organization, analytics per API key)
   * when `rateLimit` is not given. Default 100 requests per second, bursts of 200.
   */
  readonly rate?: { readonly requestsPerSecond: number; readonly burst: number };
  /**
   * Makes the host's limiters when `rateLimit` is not given: one with namespace `"scim"` (keyed
   * by organization), one with `"analytics"` (keyed by API key), each of `rate`'s figures. Default
   * `tokenBucketLimiter`, in this process; `scimkit serve` on PostgreSQL gives `sqlRateLimiter`,
   * so every host on the database holds one limit between them.
   */
  readonly rateLimiter?: (
    namespace: "scim" | "analytics",
    rate: { readonly requestsPerSecond: number; readonly burst: number },
  ) => RateLimiter;
  /**
   * Expensive requests (scans, sorts, deep or large pages, Bulk) per organization at once, and
   * how many more may wait (429 with `Retry-After` beyond them), or `false` for no bound. Default:
   * one at a time per organization and per tree of organizations (its root, read from the
   * analytics store and cached for a minute), three in all, 16 waiting, at most 10 s of waiting
   * (then 429), a rest three times as long as each was held (`share` 0.25), `startIndex` above
   * 1,000, `count` above 200 and bodies over 64 KiB counted as expensive, in this process.
   */
  readonly fairShare?: FairShareOptions | false;
}

/** The host's defaults: generous for an identity provider's traffic, bounded for anything else. */
export const defaultHostLimits = {
  bodyLimit: "1mb",
  filterLimits: { maxLength: 4096, maxDepth: 16 },
  bulk: { maxOperations: 1000, maxPayloadSize: 1_048_576 },
  writeLimits: { maxPatchOperations: 10_000, maxValues: 1_000, maxMembers: 20_000 },
  paging: { defaultPageSize: 100, maxPageSize: 1000 },
  requestsPerSecond: 100,
  burst: 200,
  // One lane per organization: with four SQLite readers (or ten PostgreSQL connections) on two
  // cores, an organization looping scans leaves the rest to the others' lookups. Bodies over
  // 64 KiB take the turn before they are parsed. A quarter of the time for one organization's
  // expensive loop while others are served, the library's default (docs/security.md).
  // One lane per tree of organizations too (its root, from the analytics store), and three
  // expensive requests in all, so one of SQLite's four readers is always left to lookups.
  fairShare: {
    concurrency: 1,
    groupConcurrency: 1,
    maxRunning: 3,
    maxQueued: 16,
    share: 0.25,
    maxWaitMs: 10_000,
    deepStartIndex: 1000,
    largeCount: 200,
    largeBody: 65_536,
  },
} as const;

/**
 * How long the host's HTTP server waits on a client (Node's `http.Server` settings). A client that
 * trickles its headers or body is cut off with 408 rather than holding a socket for minutes.
 */
export interface HostTimeouts {
  /** Time to receive a request's headers. Default 10,000 ms. */
  readonly headersTimeoutMs?: number;
  /** Time to receive a whole request, headers and body. Default 30,000 ms. */
  readonly requestTimeoutMs?: number;
  /**
   * Time an idle keep-alive connection stays open, as advertised in `Keep-Alive: timeout` (Node
   * closes the socket a second later). Default 5,000 ms; behind a proxy that reuses connections
   * longer (a load balancer's idle timeout), set it above the proxy's.
   */
  readonly keepAliveTimeoutMs?: number;
}

/** The server's defaults, in milliseconds. */
export const defaultHostTimeouts = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 } as const;

export interface HostServerOptions {
  readonly store: ResourceStore;
  /** SCIM authentication; wrap it in `activeOrganizationsOnly` so suspension takes effect. */
  readonly auth: TokenVerifier;
  /**
   * Each organization's compatibility profile (`ScimRouterOptions.compatibility`); `scimkit serve`
   * reads it from the organization's record (`organizationScimSettings`). Default `"generic"`.
   */
  readonly compatibility?: ScimRouterOptions["compatibility"];
  /** What `POST /Users` does with a user that exists (`ScimRouterOptions.existingUsers`). Default `"conflict"`. */
  readonly existingUsers?: ScimRouterOptions["existingUsers"];
  /** The analytics interface; absent: the host serves SCIM only. */
  readonly analytics?: HostAnalytics;
  /** Where log lines go. Default: stdout. */
  readonly log?: (line: string) => void;
  /** Receives lifecycle events; the default logs them. */
  readonly onEvent?: (event: ScimEvent) => void;
  /** Keeps the audit trail of every SCIM write (`scimkit serve` passes the store's own). Absent: none. */
  readonly audit?: AuditSink;
  /** Per-request and per-organization limits; see `HostLimits` for the defaults. */
  readonly limits?: HostLimits;
  /**
   * Express's `trust proxy` setting, for a host behind a TLS-terminating reverse proxy: which
   * peers' `X-Forwarded-*` headers to believe (client IP, `https` in `meta.location`). Default:
   * none, so a client cannot forge them. See docs/security.md.
   */
  readonly trustProxy?: boolean | number | string;
  /**
   * The address clients reach the host at (`SCIMKIT_PUBLIC_URL`), e.g. `https://scim.example.com`.
   * `Location`, `meta.location` and the analytics interface's links are built from it for every
   * organization, so a forged `Host` or `X-Forwarded-Host` header is never reflected. Default:
   * with `startHostServer`, `http://localhost:{port}`; an app from `createHostApp` alone, the
   * request's own.
   */
  readonly publicUrl?: string;
  /**
   * Key of the HMAC sealing list cursors of SCIM (`ScimRouterOptions.cursorSecret`) and of the
   * analytics interface. Default: none. `scimkit serve` passes the one the database keeps.
   */
  readonly cursorSecret?: string;
  /** `"json"`: request and event lines as JSON objects, one per line. Default `"text"`. */
  readonly logFormat?: "text" | "json";
  /** What `/readyz` asks; absent: `/readyz` answers as `/healthz` does. */
  readonly health?: HostHealth;
  /**
   * The built operator console (`console-routes.ts`) served at `/console` with the analytics
   * interface it is a client of: the directory Vite built it into, or `false` for none. Default:
   * the package's `dist/console`. Without `analytics` there is no console.
   */
  readonly consoleDir?: string | false;
  /**
   * The provisioning log (issue 18): the SCIM router writes one entry per request into it, and the
   * analytics interface reads it at `GET /organizations/{id}/request-log`. `scimkit serve` chooses
   * it from `SCIMKIT_REQUEST_LOG`. Absent: no log, and that operation answers 404 saying so.
   */
  readonly requestLog?: ReadableRequestLog;
  /**
   * The OAuth 2.0 token endpoint (client credentials), served at
   * `/oauth/Organizations/{orgId}/token` with its public keys at `…/jwks`; absent: none. `auth`
   * must then accept the access tokens it issues (`clientCredentialsVerifier`).
   */
  readonly oauth?: Omit<OAuthTokenRouterOptions, "onError">;
  /**
   * RFC 9967 security events (issue 20): every write records its events in the store's outbox
   * (`durableEvents`), `/ServiceProviderConfig` advertises them, receivers fetch the JWKS at
   * `/scim/Organizations/{orgId}/events/jwks.json` and poll at `…/events/poll/{receiverId}`, the
   * analytics interface manages receivers, and the push loop runs until `stopHostApp`. `scimkit
   * serve` builds it unless `SCIMKIT_EVENTS=off`. Absent: none of that.
   */
  readonly securityEvents?: HostSecurityEvents;
  /**
   * Data residency (issue 30): the region this host serves and what it knows of the others. A
   * SCIM or OAuth request for an organization homed elsewhere is answered 421 naming its base URL
   * (`misdirected-request.ts`), and with `key` the other regions' hosts read this region's
   * directory at `/regions/v1/directory` (and this host reads theirs until `stopHostApp`) and its
   * totals at `/regions/v1/aggregates` (as this host asks for theirs in the operator's
   * `GET /analytics/v1/regions/summary`). Absent: one region.
   */
  readonly regions?: HostRegions;
}

/** `HostServerOptions.regions`. */
export interface HostRegions {
  /** This host's view of the regions (`loadRegionDirectory`). */
  readonly directory: RegionDirectory;
  /** `SCIMKIT_REGION_KEY`: serves the directory feed and the totals to the other regions and reads theirs; absent: neither. */
  readonly key?: string;
  /** Milliseconds between two reads of the other regions' directories. */
  readonly syncMs: number;
  /**
   * Moving organizations to another region (issue 30, point 4), with `key`: the gate that
   * freezes a moving organization's writes (`move-gate.ts`), the target's channel at
   * `/regions/v1/moves`, and the operator API's moves; the driver is stopped by `stopHostApp`.
   */
  readonly moves?: HostRegionMoves;
}

/** `HostRegions.moves`. */
export interface HostRegionMoves {
  readonly book: RegionMoveBook;
  readonly driver: RegionMoveDriver;
  /** The store's SQL connection, where the channel writes arriving rows. */
  readonly database: OrganizationDatabase;
  /** The store's audit trail, where each side records the move. */
  readonly audit?: AuditTrail;
}

export interface RunningHost {
  readonly server: Server;
  readonly port: number;
  /** `http://localhost:{port}/scim/Organizations/{orgId}/v2`. */
  baseUrl(orgId: string): string;
  /** `http://localhost:{port}/analytics/v1`. */
  readonly analyticsUrl: string;
  /** Stops accepting connections and waits for open requests to finish, then stops the background work (`stopHostApp`). */
  close(): Promise<void>;
  /** Stops only the background work (`stopHostApp`), for a shutdown that closes the server itself. */
  stopBackground(): Promise<void>;
}

/** `/scim/Organizations/{orgId}/v2/…`: the organization a request was for, for the JSON log. */
const SCIM_PATH = /^\/scim\/Organizations\/([^/]+)\/v2(?:\/|$)/;

/** One log line per request: method, path, status and duration, once the response is sent. */
function requestLog(log: (line: string) => void, format: "text" | "json"): RequestHandler {
  return (request, response, next) => {
    const started = process.hrtime.bigint();
    response.on("finish", () => {
      const milliseconds = Number(process.hrtime.bigint() - started) / 1e6;
      // originalUrl, since a mounted router rewrites req.url; without the query, which can hold
      // filters with personal data.
      const path = request.originalUrl.split("?")[0] ?? "";
      if (format === "text") {
        log(`${request.method} ${path} ${response.statusCode} ${milliseconds.toFixed(1)}ms`);
        return;
      }
      const org = SCIM_PATH.exec(path)?.[1];
      let orgId: string | undefined;
      try {
        orgId = org === undefined ? undefined : decodeURIComponent(org);
      } catch {
        orgId = org;
      }
      const status = response.statusCode;
      const level = status >= 500 ? "error" : status >= 400 ? "warn" : "info";
      const ms = Math.round(milliseconds * 10) / 10;
      log(
        jsonLogLine(level, `${request.method} ${path} ${status}`, {
          method: request.method,
          path,
          status,
          ms,
          ...(orgId === undefined ? {} : { orgId }),
        }),
      );
    });
    next();
  };
}

/** One JSON log line: time, level and msg first, then `fields`. */
export function jsonLogLine(level: "info" | "warn" | "error", msg: string, fields: Readonly<Record<string, unknown>> = {}): string {
  return JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields });
}

/** The token bucket figures `limits` asks for, or the host's defaults. */
function rateOf(limits: HostLimits): { readonly requestsPerSecond: number; readonly burst: number } {
  return limits.rate ?? { requestsPerSecond: defaultHostLimits.requestsPerSecond, burst: defaultHostLimits.burst };
}

/** The limiter of `namespace` that `limits` asks for: its `rateLimiter`'s, else a token bucket in this process. */
function hostRateLimiter(limits: HostLimits, namespace: "scim" | "analytics"): RateLimiter {
  return (limits.rateLimiter ?? ((_namespace, rate) => tokenBucketLimiter(rate)))(namespace, rateOf(limits));
}

/** The router options that carry `limits`, each default filled in. */
function scimLimits(
  limits: HostLimits,
  group: ((orgId: string) => string | Promise<string>) | undefined,
): Pick<ScimRouterOptions, "bodyLimit" | "filterLimits" | "bulk" | "paging" | "rateLimit" | "fairShare" | "writeLimits"> {
  const { concurrency, groupConcurrency, maxRunning, maxQueued, deepStartIndex, largeCount } = defaultHostLimits.fairShare;
  const { share, maxWaitMs, largeBody } = defaultHostLimits.fairShare;
  const chosenGroup = limits.fairShare === false ? undefined : (limits.fairShare?.group ?? group);
  const rateLimit = limits.rateLimit === undefined ? hostRateLimiter(limits, "scim") : limits.rateLimit;
  return {
    bodyLimit: limits.bodyLimit ?? defaultHostLimits.bodyLimit,
    filterLimits: { ...defaultHostLimits.filterLimits, ...limits.filterLimits },
    bulk: { ...defaultHostLimits.bulk, ...limits.bulk },
    writeLimits: { ...defaultHostLimits.writeLimits, ...limits.writeLimits },
    paging: { ...defaultHostLimits.paging, ...limits.paging },
    ...(rateLimit === false ? {} : { rateLimit }),
    fairShare:
      limits.fairShare === false
        ? false
        : {
            gate: limits.fairShare?.gate ?? fairShareGate({ concurrency, groupConcurrency, maxRunning, maxQueued, share }),
            classifier: limits.fairShare?.classifier ?? expensiveWorkClassifier({ deepStartIndex, largeCount, largeBody }),
            maxWaitMs: limits.fairShare?.maxWaitMs ?? maxWaitMs,
            ...(chosenGroup === undefined ? {} : { group: chosenGroup }),
          },
  };
}

/**
 * The app: request log, the SCIM router at the spec's path (spec §2.1), the analytics interface
 * at `/analytics/v1` (spec §4.6: its own base address), and a health check.
 */
export function createHostApp(options: HostServerOptions): Express {
  const log = options.log ?? ((line: string) => console.log(line));
  const format = options.logFormat ?? "text";
  const logError = (error: unknown): void => {
    const cause = error instanceof Error && error.cause instanceof Error ? `; cause: ${error.cause.message}` : "";
    const text = `${error instanceof Error ? (error.stack ?? error.message) : String(error)}${cause}`;
    log(format === "json" ? jsonLogLine("error", text) : `error ${text}`);
  };
  const app = express();
  app.disable("x-powered-by");
  if (options.trustProxy !== undefined) app.set("trust proxy", options.trustProxy);
  // Every URL the routers build for a client starts with it: no `Host` header is reflected.
  if (options.publicUrl !== undefined) app.set(PUBLIC_URL_SETTING, options.publicUrl);
  // What every request passes, as one layer (Express matches each layer of an app on every request):
  // a body answered unread (401, 404) is read to its end by Node, so only up to a bound; no browser
  // reads a JSON body that echoes client input (an error's detail, a name) as HTML or script; health
  // probes are answered before the request log, since an orchestrator probes every few seconds and a
  // line per probe would drown the requests that matter (never rate-limited nor authenticated).
  const boundBody = boundUnreadBody();
  const probes = healthProbes(options.health, logError);
  const logRequest = requestLog(log, format);
  app.use((request, response, next) => {
    response.setHeader("X-Content-Type-Options", "nosniff");
    boundBody(request, response, () => probes(request, response, () => logRequest(request, response, next)));
  });
  const { publicUrl, securityEvents, regions } = options;
  const moves = regions?.moves;
  // Organizations of this database another region serves: arriving from a move, or left in one.
  const notHomed = (orgId: string): boolean => {
    const gate = moves?.book.gate(orgId);
    return gate?.kind === "arriving" || gate?.kind === "left";
  };
  const analyticsStore = options.analytics?.store;
  // This region's totals, for the other regions' hosts and the operator's summary (issue 30, point 5).
  const aggregates =
    regions && analyticsStore
      ? regionAggregates({
          self: regions.directory.self,
          store: analyticsStore,
          notHomed: () => (moves?.book.all() ?? []).map((record) => record.orgId).filter(notHomed),
        })
      : undefined;
  if (regions) {
    // Before every router of an organization's paths, and before authentication: the answer for an
    // organization homed elsewhere reads nothing and checks no token (issue 30, point 3).
    // An organization that moved in is served here, whatever the replica of its old region still says.
    const servedHere = (orgId: string): boolean => {
      const record = moves?.book.get(orgId);
      return record?.side === "target" && record.step === "home";
    };
    for (const surface of ["scim", "oauth"] as const) {
      const path = `/${surface}/Organizations/:orgId`;
      if (moves) app.use(path, moveGate(moves.book, regions.directory, surface), scimErrorHandler());
      app.use(path, misdirectedRequest(regions.directory, surface, servedHere), scimErrorHandler());
    }
    if (regions.key !== undefined && analyticsStore && aggregates) {
      app.use("/regions/v1", regionDirectoryFeed({ self: regions.directory.self, key: regions.key, store: analyticsStore, notHomed }));
      app.use("/regions/v1", regionAggregatesFeed({ key: regions.key, aggregates }));
      if (moves) {
        app.use(
          "/regions/v1/moves",
          regionMoveChannel({
            key: regions.key,
            book: moves.book,
            database: moves.database,
            baseUrls: regions.directory.baseUrls,
            holds: async (orgId) => (await analyticsStore.getOrganization({ all: true }, orgId)) !== undefined,
            ...(moves.audit ? { audit: moves.audit } : {}),
          }),
        );
        addBackgroundWork(app, () => moves.driver.stop());
      }
      addBackgroundWork(
        app,
        pullRegionDirectories({
          directory: regions.directory,
          key: regions.key,
          store: analyticsStore,
          intervalMs: regions.syncMs,
          log: (line) => log(format === "json" ? jsonLogLine("warn", line) : `regions ${line}`),
        }),
      );
    }
  }
  app.use(
    "/scim/Organizations/:orgId/v2",
    createScimRouter({
      store: options.store,
      auth: options.auth,
      profile: specProfile,
      ...(options.compatibility === undefined ? {} : { compatibility: options.compatibility }),
      ...(options.existingUsers === undefined ? {} : { existingUsers: options.existingUsers }),
      onEvent:
        options.onEvent ??
        ((event) =>
          log(
            format === "json"
              ? jsonLogLine("info", `event ${event.type}`, { event: event.type, orgId: event.orgId, id: event.id })
              : `event ${event.type} ${event.orgId} ${event.id}`,
          )),
      onError: logError,
      // With the analytics interface, the organizations of one tree share one fair share.
      ...scimLimits(options.limits ?? {}, options.analytics ? organizationRoots(options.analytics.store) : undefined),
      // A function, not a template: the organization is %-encoded into the path it names.
      ...(publicUrl === undefined ? {} : { baseUrl: (_request: unknown, orgId: string) => scimBaseUrl(publicUrl, orgId) }),
      ...(options.cursorSecret === undefined ? {} : { cursorSecret: options.cursorSecret }),
      ...(options.audit ? { onAudit: options.audit } : {}),
      ...(options.requestLog ? { requestLog: options.requestLog } : {}),
      ...(securityEvents ? { durableEvents: true, securityEvents: { eventUris: SECURITY_EVENT_URIS } } : {}),
    }),
  );
  if (securityEvents) {
    app.use("/scim/Organizations/:orgId/events", securityEventRoutes(securityEvents));
    const stop = runSecurityEvents(securityEvents, analyticsStore ? () => allOrganizationIds(analyticsStore) : async () => [], logError);
    addBackgroundWork(app, stop);
  }
  // Under /scim, a path no router serves is a SCIM 404.
  app.use("/scim", (request, _response, next) => {
    next(new ScimError(404, undefined, `There is no endpoint for ${request.method} ${request.path} on this service.`));
  });
  // A malformed %-escape in :orgId fails in this app's layer, before the router: answer it in SCIM.
  app.use("/scim", scimErrorHandler());
  if (options.oauth) {
    app.use("/oauth/Organizations/:orgId", createOAuthTokenRouter({ ...options.oauth, onError: logError }));
    // Likewise under /oauth, as RFC 6749 §5.2 errors.
    app.use("/oauth", oauthPathErrorHandler());
  }
  if (options.analytics) {
    const { store, scimTokens } = options.analytics;
    const analyticsRouter = createAnalyticsRouter({
      store,
      scimTokens,
      ...invitationDelivery(options.analytics, log),
      onError: logError,
      ...(options.analytics.staticTokens ? { staticTokens: options.analytics.staticTokens } : {}),
      ...(options.analytics.reports ? { reports: options.analytics.reports } : {}),
      // One secret for both interfaces: each cursor binds its own operation, so neither opens the other's.
      ...(options.cursorSecret === undefined ? {} : { cursorSecret: options.cursorSecret }),
      // The base address a created organization is told is the public one too, never the Host header.
      ...(publicUrl === undefined ? {} : { scimBaseUrl: (orgId: string) => scimBaseUrl(publicUrl, orgId) }),
      // Its own buckets: analytics limits by API key, SCIM by organization, and the two ids must not share a bucket.
      ...(options.limits?.rateLimit === false ? {} : { rateLimit: hostRateLimiter(options.limits ?? {}, "analytics") }),
      ...(options.audit ? { onAudit: options.audit } : {}),
      // The log the SCIM router above writes: what an identity provider sent is read here.
      ...(options.requestLog ? { requestLog: options.requestLog } : {}),
      // Receivers of the events the SCIM router above records, managed here.
      ...(securityEvents ? { securityEvents: securityEvents.delivery, securityEventKeys: securityEvents.keys } : {}),
      ...(securityEvents && publicUrl !== undefined
        ? { securityEventJwksUrl: (orgId: string) => `${publicUrl}/scim/Organizations/${encodeURIComponent(orgId)}/events/jwks.json` }
        : {}),
      ...(securityEvents?.pollUrl ? { securityEventPollUrl: securityEvents.pollUrl } : {}),
      ...(regions ? { regions: regionsView(regions, aggregates) } : {}),
    });
    app.use("/analytics/v1", analyticsRouter);
    // Its report worker polls, heartbeats and purges in the background: stopped by stopHostApp.
    addBackgroundWork(app, () => analyticsRouter.close());
    if (options.consoleDir !== false) app.use("/console", consoleRoutes(options.consoleDir));
  }
  // Whatever no surface answered: JSON, never Express's HTML page or a stack trace.
  app.use(hostNotFound());
  app.use(hostErrorHandler(logError));
  return app;
}

/**
 * The operator API's view of the regions: the directory, the regions' totals (this one's counted
 * by `aggregates`), and the moves where this host makes them.
 */
function regionsView(regions: HostRegions, aggregates: (() => Promise<RegionAggregates>) | undefined): RegionsView {
  const { moves, directory, key } = regions;
  const local = aggregates;
  const summary: Pick<RegionsView, "summary"> =
    local === undefined
      ? {}
      : {
          summary: () =>
            summarizeRegions({ self: directory.self, baseUrls: directory.baseUrls, ...(key === undefined ? {} : { key }), local }),
        };
  if (moves === undefined) return { ...directory, ...summary };
  return {
    ...directory,
    ...summary,
    moves: moves.driver,
    writesRefused(orgId) {
      const gate = moves.book.gate(orgId);
      if (gate?.kind === "frozen") return frozenDetail(orgId, gate.to);
      if (gate?.kind === "arriving")
        return `Organization ${orgId} is arriving from region ${gate.from}: it takes writes here once the move is over.`;
      return undefined;
    },
  };
}

/** What each app built by `createHostApp` runs in the background, to stop on shutdown. */
const backgroundWork = new WeakMap<Express, (() => Promise<void>)[]>();

function addBackgroundWork(app: Express, stop: () => Promise<void>): void {
  backgroundWork.set(app, [...(backgroundWork.get(app) ?? []), stop]);
}

/** Every organization's id, page by page. */
async function allOrganizationIds(store: AnalyticsStore): Promise<readonly string[]> {
  const ids: string[] = [];
  let after: string | undefined;
  do {
    const page = await store.listOrganizations({ all: true }, { limit: 1000, ...(after === undefined ? {} : { after }) });
    ids.push(...page.items.map((organization) => organization.id));
    after = page.next;
  } while (after !== undefined);
  return ids;
}

/**
 * Stops the background work of an app from `createHostApp` — the analytics report worker, whose
 * running jobs stop after their current page and are given up for another host to take over.
 * Call it once the server stopped taking requests, before closing the store. Idempotent.
 */
export async function stopHostApp(app: Express): Promise<void> {
  await Promise.all((backgroundWork.get(app) ?? []).map((stop) => stop()));
}

/** The analytics router's `onInvitation`: the host's own, the log when codes may go there, else none. */
function invitationDelivery(analytics: HostAnalytics, log: (line: string) => void): Pick<AnalyticsRouterOptions, "onInvitation"> {
  if (analytics.onInvitation !== undefined) return { onInvitation: analytics.onInvitation };
  if (analytics.logInvitationCodes !== true) return {};
  return {
    onInvitation: ({ adminUser, code, expiresAt }) =>
      log(`invitation for ${adminUser.email}: code ${code} (accept with POST /analytics/v1/invitations/accept before ${expiresAt})`),
  };
}

/**
 * Starts the host on `port` (0 picks a free one), with the server's timeouts set explicitly
 * rather than left to Node's defaults (a 300 s request timeout, checked every 30 s).
 */

export async function startHostServer(
  options: HostServerOptions & { readonly port: number; readonly timeouts?: HostTimeouts },
): Promise<RunningHost> {
  const app = createHostApp(options);
  const timeouts = { ...defaultHostTimeouts, ...options.timeouts };
  const server = createServer(
    {
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      // Node enforces the two timeouts above only when it checks its connections: often enough
      // that a limit is a limit, not a third of a minute later.
      connectionsCheckingInterval: Math.max(
        10,
        Math.min(1000, Math.floor(Math.min(timeouts.headersTimeoutMs, timeouts.requestTimeoutMs) / 4)),
      ),
    },
    app,
  );
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
  // `100 Continue` only for a body the app reads: a request refused on its headers (401, a
  // Content-Length over the limit) is answered before the client sends the body.
  server.on("checkContinue", deferContinue(app));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  // Without SCIMKIT_PUBLIC_URL the host's own address, as its banner prints it, rather than
  // whatever `Host` a client sends (issue 27): a deployment reached by another name sets it.
  if (options.publicUrl === undefined) app.set(PUBLIC_URL_SETTING, `http://localhost:${port}`);
  return {
    server,
    port,
    baseUrl: (orgId) => scimBaseUrl(options.publicUrl ?? `http://localhost:${port}`, orgId),
    analyticsUrl: `${options.publicUrl ?? `http://localhost:${port}`}/analytics/v1`,
    close: async () => {
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Idle keep-alive connections would otherwise hold close() open until they time out.
        server.closeIdleConnections();
      });
      await stopHostApp(app);
    },
    stopBackground: () => stopHostApp(app),
  };
}
