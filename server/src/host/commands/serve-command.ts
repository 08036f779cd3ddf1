/**
 * `scimkit serve` (and `npm start`): the host server in this process, configured from the
 * environment (host-settings.ts; the table in docs/configuration.md). This process is the one a
 * supervisor signals: on SIGTERM or SIGINT it stops accepting connections, gives the requests in
 * flight `SCIMKIT_SHUTDOWN_GRACE_MS` to finish, closes the store and exits 0.
 *
 * With no `SCIMKIT_ORGS` a `demo` organization is created and its token printed once, on the start
 * that issues it; with no `SCIMKIT_OPERATOR_KEY` and none in the store, an operator key likewise.
 */
import cluster from "node:cluster";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { organizationScimSettings } from "@scimkit/server";
import type { AnalyticsDatabase, AnalyticsStore } from "@scimkit/server";
import type { Kysely } from "kysely";
import { ensureOperatorKey, issueApiKey } from "@scimkit/server";
import { staticTokenVerifier, type TokenStore, type TokenVerifier } from "scimkit";
import { accessTokenIssuer, clientCredentialsVerifier, type OAuthTokenRouterOptions } from "scimkit/oauth";
import { memoryRequestLog, type ReadableRequestLog } from "scimkit/request-log";
import { demoSeed } from "../demo-seed.js";
import { gracefulShutdown } from "../graceful-shutdown.js";
import { hostHealth } from "../host-health.js";
import { inFlightCalls } from "../in-flight-calls.js";
import { defaultConsoleDir } from "../console-routes.js";
import { hostEventBounds, hostEventDelivery } from "../host-event-delivery.js";
import { type HostRegionMoves, jsonLogLine, startHostServer } from "../host-server.js";
import type { HostSettings } from "../host-settings.js";
import { openHostStore, type HostStore } from "../open-host-store.js";
import { staticTokens } from "../static-tokens.js";
import { loadRegionDirectory } from "../regions/region-directory.js";
import { loadRegionMoveBook } from "../regions/region-move-book.js";
import { regionMoveDriver } from "../regions/region-move-driver.js";
import { readSettingsOrExit } from "./read-settings-or-exit.js";
import { EXIT_CODES } from "./command-error.js";
import type { HostCommand } from "./host-command.js";

interface Organizations {
  readonly auth: TokenVerifier;
  readonly orgIds: string[];
  /** The demo token, when this start issued it. */
  readonly demoToken?: string;
  /** True when the demo organization's token was issued by an earlier start. */
  readonly demoIssuedEarlier?: boolean;
}

/**
 * Accepts a token either verifier accepts. Both are always asked, so the time to answer does
 * not tell a configured token from an issued one.
 */
function eitherVerifier(first: TokenVerifier, second: TokenVerifier): TokenVerifier {
  return {
    async verify(token, orgId, request) {
      const [a, b] = await Promise.all([first.verify(token, orgId, request), second.verify(token, orgId, request)]);
      return a ?? b;
    },
  };
}

/**
 * The configured tokens, and those the analytics interface issues to the organizations the
 * operator creates there; only the issued ones without `SCIMKIT_ORGS`.
 */
function authOf(configured: HostSettings["organizations"], tokens: TokenStore): TokenVerifier {
  return configured === undefined ? tokens : eitherVerifier(staticTokenVerifier(configured), tokens);
}

async function organizations(configured: HostSettings["organizations"], tokens: TokenStore): Promise<Organizations> {
  if (configured !== undefined) return { auth: authOf(configured, tokens), orgIds: Object.keys(configured) };
  // The store keeps only the hash, so a token issued on an earlier start cannot be shown again.
  if ((await tokens.list("demo")).length > 0) return { auth: tokens, orgIds: ["demo"], demoIssuedEarlier: true };
  const issued = await tokens.issue("demo", { label: "demo" });
  return { auth: tokens, orgIds: ["demo"], demoToken: issued.token };
}

/**
 * Makes each organization the host serves an organization of the analytics interface, so the
 * operator sees it there (and can suspend it). Says which ones this start registered.
 */
async function registerOrganizations(analytics: AnalyticsStore, orgIds: readonly string[]): Promise<string[]> {
  const registered: string[] = [];
  for (const id of orgIds) {
    if (await analytics.getOrganization({ all: true }, id)) continue;
    const now = new Date().toISOString();
    try {
      await analytics.createOrganization({
        id,
        name: id === "demo" ? "Demo organization" : id,
        status: "active",
        createdAt: now,
        updatedAt: now,
      });
    } catch (error) {
      // Two hosts starting on one PostgreSQL database race to register: the loser finds it there.
      if (await analytics.getOrganization({ all: true }, id)) continue;
      throw error;
    }
    registered.push(id);
  }
  return registered;
}

/**
 * The provisioning log `SCIMKIT_REQUEST_LOG` asks for, written by the SCIM router and read by the
 * analytics interface; undefined when it is off. The one place the host chooses its log: in the
 * store's database (`sqlRequestLog`, which the store closes after a last flush), or in memory.
 */
function requestLogOf(
  settings: HostSettings["requestLog"],
  database: HostStore,
  onError: (error: unknown) => void,
): ReadableRequestLog | undefined {
  if (settings.kind === "off") return undefined;
  if (settings.kind === "database") {
    if (database.openRequestLog === undefined) throw new Error("SCIMKIT_REQUEST_LOG=database needs a SQL store");
    return database.openRequestLog({
      maxBodyBytes: settings.maxBodyBytes,
      maxAgeMs: settings.maxAgeDays * 86_400_000,
      maxEntriesPerOrg: settings.maxEntriesPerOrg,
      onError,
    });
  }
  return memoryRequestLog({ capacity: settings.capacity, maxBodyBytes: settings.maxBodyBytes });
}

/** The banner's line on the provisioning log: where it is kept and where to read it. */
function provisioningLogLine(settings: HostSettings["requestLog"], analyticsUrl: string): string {
  const read = `${analyticsUrl}/organizations/<id>/request-log`;
  if (settings.kind === "off") return "Provisioning log: off (SCIMKIT_REQUEST_LOG=off)";
  if (settings.kind === "memory") return `Provisioning log: the newest ${settings.capacity} requests, in memory (${read})`;
  return `Provisioning log: in the database, ${settings.maxAgeDays} days and at most ${settings.maxEntriesPerOrg} requests per organization (${read})`;
}

/** The banner's line on RFC 9967 events: where receivers are registered, and whose address SETs name. */
function securityEventsLine(settings: HostSettings, analyticsUrl: string): string {
  if (!settings.events.enabled) return "Security events (RFC 9967): off (SCIMKIT_EVENTS=off)";
  const issuer =
    settings.publicUrl === undefined
      ? "; SETs name this process's own address as issuer: set SCIMKIT_PUBLIC_URL to the one receivers know"
      : "";
  return `Security events (RFC 9967): on; register receivers at ${analyticsUrl}/organizations/<id>/event-receivers or with scimkit receivers add${issuer}`;
}

/** Without a configured key: a new operator key shown once, or word that one exists. */
async function generatedOperatorKey(analytics: AnalyticsStore): Promise<string> {
  // As for the demo token, only the digest is stored, so a key from an earlier start cannot be shown.
  if (await analytics.hasOperatorKey()) {
    return "Operator key for the analytics interface: issued on an earlier start (only its hash is kept); set SCIMKIT_OPERATOR_KEY to choose one.";
  }
  const { key } = await issueApiKey(analytics, { kind: "operator" });
  return `Operator key for the analytics interface (shown once): ${key}`;
}

/** Where the operator console is, or that it is not built yet (it then answers 503). */
function consoleLine(url: string): string {
  const built = existsSync(join(defaultConsoleDir(), "index.html"));
  return built ? `Operator console: ${url} (sign in with the operator key)` : `Operator console: ${url} is not built; run npm run build`;
}

/** What the start-up did before the port opened, for the banner. */
interface Prepared {
  readonly auth: TokenVerifier;
  readonly orgIds: readonly string[];
  readonly demoToken?: string;
  readonly demoIssuedEarlier?: boolean;
  readonly seeded?: Awaited<ReturnType<typeof demoSeed>>;
}

/** Registers the organizations, the configured operator key and the demo data: once per start, before any worker listens. */
async function prepare(settings: HostSettings, database: HostStore): Promise<Prepared> {
  const { auth, orgIds, demoToken, demoIssuedEarlier } = await organizations(settings.organizations, database.tokens);
  const registered = await registerOrganizations(database.analytics, orgIds);
  // Registered before the port opens, so the configured key works from the first request.
  if (settings.operatorKey !== undefined) await ensureOperatorKey(database.analytics, settings.operatorKey);
  // Seeded on the start that creates the demo organization, before the first request can arrive.
  const seedDemo = registered.includes("demo") && settings.demoData;
  const seeded = seedDemo ? await demoSeed({ resources: database.store, analytics: database.analytics, orgId: "demo" }) : undefined;
  return {
    auth,
    orgIds,
    ...(demoToken === undefined ? {} : { demoToken }),
    ...(demoIssuedEarlier === undefined ? {} : { demoIssuedEarlier }),
    ...(seeded === undefined ? {} : { seeded }),
  };
}

/**
 * With `SCIMKIT_OAUTH_SIGNING_KEY`: the OAuth 2.0 token endpoint, its clients the store's tokens
 * (client id = token id), and `auth` accepting its access tokens beside every bearer token it
 * accepted before. Every host signs with the one configured key under one issuer (the public URL),
 * so each accepts what another issued.
 */
async function withOAuth(
  settings: HostSettings,
  database: HostStore,
  auth: TokenVerifier,
): Promise<{ readonly auth: TokenVerifier; readonly oauth?: Omit<OAuthTokenRouterOptions, "onError"> }> {
  if (settings.oauthSigningKey === undefined) return { auth };
  const issuer = await accessTokenIssuer({ signingKey: settings.oauthSigningKey, issuer: settings.publicUrl ?? "scimkit" });
  const clients = { verify: auth.verify.bind(auth), list: (orgId: string) => database.tokens.list(orgId) };
  // On PostgreSQL every host counts failed client authentications in one place, at the token
  // endpoint's default bound (10 a minute per client and per address); elsewhere each its own.
  const failureLimiter = database.sharedRateLimiter?.("oauth-failures", { requestsPerSecond: 10 / 60, burst: 10 });
  return {
    auth: clientCredentialsVerifier({ clients, issuer }),
    oauth: { clients: database.tokens, issuer, ...(failureLimiter === undefined ? {} : { failureLimiter }) },
  };
}

/** The token endpoint's clients, a suspended organization's refused: its clients get no access tokens either. */
function activeClients(clients: OAuthTokenRouterOptions["clients"], settings: ReturnType<typeof organizationScimSettings>) {
  const active = settings.activeOnly(clients);
  return { verify: active.verify.bind(active), list: (orgId: string) => clients.list(orgId) };
}

/**
 * Moving organizations to another region (issue 30, point 4), where this host can: with peers
 * and their key, on a SQL store, in one process (the gate that freezes a moving organization's
 * writes is the process's own; several workers would each need it). Its unfinished moves resume
 * once the host listens.
 */
async function regionMoves(
  settings: HostSettings,
  database: HostStore,
  requestLog: ReadableRequestLog | undefined,
): Promise<{ readonly moves?: HostRegionMoves }> {
  const regions = settings.regions;
  if (regions?.key === undefined || database.sql === undefined || settings.workers > 1) return {};
  const book = await loadRegionMoveBook(database.sql.db as unknown as Kysely<AnalyticsDatabase>, regions.self);
  const driver = regionMoveDriver({
    book,
    database: database.sql,
    baseUrls: regions.baseUrls,
    key: regions.key,
    audit: database.audit,
    stepMs: regions.moveStepMs,
    log: (line) => console.log(settings.logFormat === "json" ? jsonLogLine("info", line) : `regions ${line}`),
    // Reading the log writes what this process buffered first.
    ...(requestLog === undefined ? {} : { flushLog: async (orgId: string) => void (await requestLog.list(orgId, { limit: 1 })) }),
  });
  return { moves: { book, driver, database: database.sql, audit: database.audit } };
}

/** Opens the port: the app over `database`, its requests tracked for a graceful shutdown. */
async function listen(settings: HostSettings, database: HostStore, auth: TokenVerifier) {
  const health = hostHealth(() => database.ping());
  // Suspension, the compatibility profile and the existing-user choice come from the organization's
  // record, which the operator API and `scimkit orgs` change: from the next request on, on every host.
  const organizationSettings = organizationScimSettings(database.analytics);
  const requestLog = requestLogOf(settings.requestLog, database, (error) =>
    console.error(`provisioning log: ${error instanceof Error ? error.message : String(error)}`),
  );
  // What requests do with the database, counted, so a shutdown closes it only once that is done.
  const calls = inFlightCalls();
  const oauth = await withOAuth(settings, database, calls.track(auth));
  let port = settings.port;
  // Built on the store itself, not the tracked one: the loop is stopped (stopBackground) before the store closes.
  const events = settings.events.enabled
    ? hostEventDelivery(database.store, {
        // Without SCIMKIT_PUBLIC_URL, the address this process listens at, known once the port is open.
        publicUrl: settings.publicUrl ?? (() => `http://localhost:${port}`),
        leaseMs: settings.events.leaseMs,
        backoff: { maxMs: settings.events.retryMaxMs },
        ...hostEventBounds(settings.events),
        receiverAllowHosts: settings.events.receiverAllowHosts,
        onError: (error) => console.error(`security events: ${error instanceof Error ? error.message : String(error)}`),
      })
    : undefined;
  const regions = settings.regions
    ? {
        directory: await loadRegionDirectory({
          self: settings.regions.self,
          baseUrls: settings.regions.baseUrls,
          store: database.analytics,
        }),
        ...(settings.regions.key === undefined ? {} : { key: settings.regions.key }),
        syncMs: settings.regions.syncMs,
        ...(await regionMoves(settings, database, requestLog)),
      }
    : undefined;
  const host = await startHostServer({
    ...(regions === undefined ? {} : { regions }),
    store: calls.track(database.store),
    auth: organizationSettings.activeOnly(oauth.auth),
    ...(oauth.oauth === undefined ? {} : { oauth: { ...oauth.oauth, clients: activeClients(oauth.oauth.clients, organizationSettings) } }),
    compatibility: organizationSettings.compatibility,
    existingUsers: organizationSettings.existingUsers,
    analytics: {
      store: calls.track(database.analytics),
      scimTokens: calls.track(database.tokens),
      // Listed as static by the token API, in the verifier's order; never the token itself.
      staticTokens: (orgId) => staticTokens(settings.organizations, orgId),
      logInvitationCodes: settings.logInvitationCodes,
      reports: { leaseMs: settings.reportLeaseMs },
    },
    // Every SCIM write, with its outcome, in the store's own database (scimkit_audit).
    audit: calls.track(database.audit),
    port: settings.port,
    limits: {
      bodyLimit: settings.bodyLimit,
      bulk: settings.bulk,
      filterLimits: settings.filterLimits,
      paging: settings.paging,
      ...(settings.rateLimit === false ? { rateLimit: false } : { rate: settings.rateLimit }),
      // On PostgreSQL, one limit for every host on the database rather than one per process.
      ...(database.sharedRateLimiter === undefined ? {} : { rateLimiter: database.sharedRateLimiter }),
    },
    logFormat: settings.logFormat,
    health,
    ...(settings.trustProxy === undefined ? {} : { trustProxy: settings.trustProxy }),
    ...(settings.publicUrl === undefined ? {} : { publicUrl: settings.publicUrl }),
    // The configured secret wins; otherwise the one the database keeps for every host on it.
    cursorSecret: settings.cursorSecret ?? (await database.cursorSecret()),
    ...(requestLog === undefined ? {} : { requestLog }),
    ...(events === undefined
      ? {}
      : {
          securityEvents: {
            delivery: events.delivery,
            keys: events.keys,
            pollUrl: (orgId, receiverId) => events.pollUrl(orgId, receiverId),
          },
        }),
  });
  port = host.port;
  // Once the gate and the channel answer: a resumed step may need the target, or be watched.
  regions?.moves?.driver.resume();
  // Armed before the first request can arrive, so a shutdown knows every request in flight.
  return { host, health, calls, shutdown: gracefulShutdown(host.server) };
}

/** The lines an operator needs once the service answers: where, with which credentials, what was seeded. */
async function banner(
  say: (line: string) => void,
  settings: HostSettings,
  database: HostStore,
  prepared: Prepared,
  at: { readonly port: number; readonly baseUrl: (orgId: string) => string; readonly analyticsUrl: string; readonly workers: number },
): Promise<void> {
  // Issued once the port is ours: a start that fails to listen must not consume the only showing.
  const operatorKeyLine =
    settings.operatorKey === undefined
      ? await generatedOperatorKey(database.analytics)
      : "Operator key for the analytics interface: SCIMKIT_OPERATOR_KEY";
  const workers = at.workers > 1 ? `, ${at.workers} workers` : "";
  say(`scimkit host server listening on port ${at.port}, store: ${database.description}${workers}`);
  if (settings.regions) {
    const { self, baseUrls } = settings.regions;
    const others = Object.entries(baseUrls).filter(([name]) => name !== self);
    say(
      `Region: ${self} (SCIMKIT_REGION): this database holds the organizations homed here${others.length === 0 ? "" : `; other regions: ${others.map(([name, url]) => `${name} ${url}`).join(", ")}`}`,
    );
  }
  const inRegion = settings.regions === undefined ? "" : ` (region ${settings.regions.self})`;
  for (const orgId of prepared.orgIds) say(`SCIM base URL for ${orgId}${inRegion}: ${at.baseUrl(orgId)}`);
  if (prepared.demoToken) say(`Bearer token for demo (shown once): ${prepared.demoToken}`);
  if (prepared.demoIssuedEarlier) {
    say(
      "Bearer token for demo: issued on an earlier start (only its hash is kept); delete the database or set SCIMKIT_ORGS to choose tokens.",
    );
  }
  say(`Analytics interface: ${at.analyticsUrl} (OpenAPI document at ${at.analyticsUrl}/openapi.json)`);
  say(consoleLine(at.analyticsUrl.replace(/\/analytics\/v1$/, "/console")));
  say(operatorKeyLine);
  say(provisioningLogLine(settings.requestLog, at.analyticsUrl));
  say(securityEventsLine(settings, at.analyticsUrl));
  const { seeded } = prepared;
  if (seeded) {
    say(
      `Demo data for demo: ${seeded.learners} learners, ${seeded.campaigns.length} campaigns, 1 attack simulation, ${seeded.feedbackComments} feedback comments (SCIMKIT_DEMO_DATA=0 skips it)`,
    );
    say(`Demo attack simulation: ${at.analyticsUrl}/attack-simulations/${seeded.simulation.id}/summary`);
    say(
      `Demo divisions under demo: ${seeded.divisions.map((division) => `${division.id} (${division.learners} learners)`).join(", ")}; issue their SCIM tokens with scimkit tokens issue <id>`,
    );
  }
}

/** On SIGTERM or SIGINT: stop accepting, let the requests in flight finish within the grace, close the store, exit 0. */
function stopOnSignals(
  say: (line: string) => void,
  settings: HostSettings,
  database: HostStore,
  serving: Awaited<ReturnType<typeof listen>>,
): void {
  const graceMs = settings.shutdownGraceMs;
  const { health, shutdown, calls, host } = serving;
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    const startedAt = Date.now();
    // First, so a probe on a connection still open hears that this host is going away.
    health.drain();
    say(`${signal} received, shutting down`);
    say(`No longer accepting connections; waiting up to ${graceMs} ms for ${shutdown.inFlight()} request(s) in flight`);
    shutdown
      .shutdown(graceMs)
      .then(async ({ finished, cut }) => {
        say(`Requests finished during shutdown: ${finished}; cut at the end of the grace period: ${cut}`);
        // Report jobs stop after their current page and are given up, so another host takes them at once.
        await host.stopBackground();
        // A request whose client left counts as finished, yet its handler may still write (its
        // audit entry): close once the database work has stopped, within what is left of the grace.
        if (!(await calls.idle(Math.max(0, startedAt + graceMs - Date.now())))) {
          say(`Database work still running at the end of the grace period: ${calls.count()} call(s), cut`);
        }
        // After the last request: one still running would otherwise lose its connection mid-transaction.
        await database.close();
        say("Store closed");
        process.exit(EXIT_CODES.done);
      })
      .catch((error: unknown) => {
        console.error("shutdown failed", error);
        process.exit(EXIT_CODES.failure);
      });
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

/** The banner and lifecycle lines in the log's format; requests and events are logged by the app. */
function sayer(settings: HostSettings, prefix = ""): (line: string) => void {
  const json = settings.logFormat === "json";
  return (msg) => console.log(json ? jsonLogLine("info", `${prefix}${msg}`) : `${prefix}${msg}`);
}

/**
 * Starts the host with `settings`; resolves once it listens, and exits the process when it is
 * stopped. With `workers` above 1, this process becomes the primary of a cluster (`serveCluster`).
 */
export async function serveHost(settings: HostSettings): Promise<void> {
  if (settings.workers > 1 || cluster.isWorker) return serveCluster(settings);
  const say = sayer(settings);
  const database = await openHostStore(settings.databaseUrl);
  const prepared = await prepare(settings, database);
  const serving = await listen(settings, database, prepared.auth);
  const { host } = serving;
  await banner(say, settings, database, prepared, { ...host, workers: 1 });
  stopOnSignals(say, settings, database, serving);
}

/** What a worker tells the primary once its server listens. */
interface ListeningMessage {
  readonly scimkit: "listening";
  readonly port: number;
}

function isListening(message: unknown): message is ListeningMessage {
  return typeof message === "object" && message !== null && (message as { scimkit?: unknown }).scimkit === "listening";
}

/** Worker deaths within `RESTART_WINDOW_MS` after which the primary gives up rather than fork in a loop. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 10_000;

/**
 * `SCIMKIT_WORKERS` > 1 (issue 19): the primary prepares the database once (migrations, the
 * organizations, the operator key, the demo data), forks the workers, which share its port through
 * Node's cluster module (round-robin), prints the banner when all listen, passes SIGTERM and SIGINT
 * on to each — each drains and closes as a single host does — and exits 0 when all have. A worker
 * that dies otherwise is replaced.
 */
async function serveCluster(settings: HostSettings): Promise<void> {
  if (cluster.isWorker) {
    const say = sayer(settings, `[worker ${cluster.worker?.id ?? "?"}] `);
    // The primary migrated and prepared; a worker only opens and serves.
    const database = await openHostStore(settings.databaseUrl, { migrate: false });
    const serving = await listen(settings, database, authOf(settings.organizations, database.tokens));
    process.send?.({ scimkit: "listening", port: serving.host.port } satisfies ListeningMessage);
    stopOnSignals(say, settings, database, serving);
    return;
  }
  const say = sayer(settings);
  const database = await openHostStore(settings.databaseUrl);
  const prepared = await prepare(settings, database);
  let stopping = false;
  const deaths: number[] = [];
  const fork = (): Promise<number> =>
    new Promise((resolve, reject) => {
      const worker = cluster.fork();
      worker.on("message", (message: unknown) => {
        if (isListening(message)) resolve(message.port);
      });
      worker.once("exit", (code, signal) => {
        reject(new Error(`worker ${worker.id} exited (${signal ?? code}) before it listened`));
        if (stopping) return;
        const now = Date.now();
        deaths.push(now);
        while (deaths.length > 0 && (deaths[0] ?? now) < now - RESTART_WINDOW_MS) deaths.shift();
        if (deaths.length > MAX_RESTARTS) {
          say(`worker ${worker.id} exited (${signal ?? code}); ${deaths.length} deaths in ${RESTART_WINDOW_MS / 1000} s, giving up`);
          stopAll("worker failures", EXIT_CODES.failure);
          return;
        }
        say(`worker ${worker.id} exited (${signal ?? code}); starting another`);
        fork().then(
          () => say("replacement worker listening"),
          (error: unknown) => {
            if (!stopping) say(`a replacement worker failed to start: ${String(error)}`);
          },
        );
      });
    });
  const stopAll = (reason: string, code: number): void => {
    if (stopping) return;
    stopping = true;
    say(`${reason}: stopping ${Object.keys(cluster.workers ?? {}).length} worker(s)`);
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGTERM");
    const left = (): number => Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined).length;
    const check = (): void => {
      if (left() > 0) return;
      database
        .close()
        .then(() => {
          say("All workers stopped; store closed");
          process.exit(code);
        })
        .catch((error: unknown) => {
          console.error("shutdown failed", error);
          process.exit(EXIT_CODES.failure);
        });
    };
    cluster.on("exit", check);
    check();
  };
  process.on("SIGTERM", () => stopAll("SIGTERM received", EXIT_CODES.done));
  process.on("SIGINT", () => stopAll("SIGINT received", EXIT_CODES.done));
  const ports = await Promise.all(Array.from({ length: settings.workers }, fork));
  const port = ports[0] ?? settings.port;
  const origin = settings.publicUrl ?? `http://localhost:${port}`;
  await banner(say, settings, database, prepared, {
    port,
    baseUrl: (orgId) => `${origin}/scim/Organizations/${encodeURIComponent(orgId)}/v2`,
    analyticsUrl: `${origin}/analytics/v1`,
    workers: settings.workers,
  });
}

export const serveCommand: HostCommand = {
  name: "serve",
  summary: "Run the host server in this process (it receives the signals: SIGTERM stops it gracefully)",
  async run() {
    await serveHost(readSettingsOrExit(process.env));
  },
};
