/**
 * `scimkit serve` (and `npm start`): the host server in this process, configured from the
 * environment (host-settings.ts; the table in docs/configuration.md). This process is the one a
 * supervisor signals: on SIGTERM or SIGINT it stops accepting connections, gives the requests in
 * flight `SCIMKIT_SHUTDOWN_GRACE_MS` to finish, closes the store and exits 0.
 *
 * With no `SCIMKIT_ORGS` a `demo` organization is created and its token printed once, on the start
 * that issues it; with no `SCIMKIT_OPERATOR_KEY` and none in the store, an operator key likewise.
 */
import { organizationScimSettings } from "scimkit/analytics";
import type { AnalyticsStore } from "scimkit/analytics";
import { ensureOperatorKey, issueApiKey } from "scimkit/analytics";
import type { TokenStore } from "scimkit";
import { staticTokenVerifier } from "scimkit";
import type { TokenVerifier } from "scimkit";
import { demoSeed } from "../demo-seed.js";
import { gracefulShutdown } from "../graceful-shutdown.js";
import { hostHealth } from "../host-health.js";
import { jsonLogLine, startHostServer } from "../host-server.js";
import type { HostSettings } from "../host-settings.js";
import { openHostStore } from "../open-host-store.js";
import { staticTokens } from "../static-tokens.js";
import { readSettingsOrExit } from "./read-settings-or-exit.js";
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

async function organizations(configured: HostSettings["organizations"], tokens: TokenStore): Promise<Organizations> {
  if (configured !== undefined) {
    const parsed = configured;
    // The configured tokens, and those the analytics interface issues to the organizations the
    // operator creates there.
    return { auth: eitherVerifier(staticTokenVerifier(parsed), tokens), orgIds: Object.keys(parsed) };
  }
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

/** Without a configured key: a new operator key shown once, or word that one exists. */
async function generatedOperatorKey(analytics: AnalyticsStore): Promise<string> {
  // As for the demo token, only the digest is stored, so a key from an earlier start cannot be shown.
  if (await analytics.hasOperatorKey()) {
    return "Operator key for the analytics interface: issued on an earlier start (only its hash is kept); set SCIMKIT_OPERATOR_KEY to choose one.";
  }
  const { key } = await issueApiKey(analytics, { kind: "operator" });
  return `Operator key for the analytics interface (shown once): ${key}`;
}

/** Starts the host with `settings`; resolves once it listens, and exits the process when it is stopped. */
export async function serveHost(settings: HostSettings): Promise<void> {
  const json = settings.logFormat === "json";
  // The banner and lifecycle lines in the log's format; requests and events are logged by the app.
  const say = (msg: string): void => console.log(json ? jsonLogLine("info", msg) : msg);
  const database = await openHostStore(settings.databaseUrl);
  const { auth, orgIds, demoToken, demoIssuedEarlier } = await organizations(settings.organizations, database.tokens);
  const registered = await registerOrganizations(database.analytics, orgIds);
  const configuredKey = settings.operatorKey;
  // Registered before the port opens, so the configured key works from the first request.
  if (configuredKey !== undefined) await ensureOperatorKey(database.analytics, configuredKey);
  // Seeded on the start that creates the demo organization, before the first request can arrive.
  const seedDemo = registered.includes("demo") && settings.demoData;
  const seeded = seedDemo ? await demoSeed({ resources: database.store, analytics: database.analytics, orgId: "demo" }) : undefined;
  const health = hostHealth(() => database.ping());
  // Suspension, the compatibility profile and the existing-user choice come from the organization's
  // record, which the operator API and `scimkit orgs` change: from the next request on, on every host.
  const organizationSettings = organizationScimSettings(database.analytics);
  const host = await startHostServer({
    store: database.store,
    auth: organizationSettings.activeOnly(auth),
    compatibility: organizationSettings.compatibility,
    existingUsers: organizationSettings.existingUsers,
    analytics: {
      store: database.analytics,
      scimTokens: database.tokens,
      // Listed as static by the token API, in the verifier's order; never the token itself.
      staticTokens: (orgId) => staticTokens(settings.organizations, orgId),
      logInvitationCodes: settings.logInvitationCodes,
    },
    // Every SCIM write, with its outcome, in the store's own database (scimkit_audit).
    audit: database.audit,
    port: settings.port,
    limits: {
      bodyLimit: settings.bodyLimit,
      bulk: settings.bulk,
      filterLimits: settings.filterLimits,
      paging: settings.paging,
      ...(settings.rateLimit === false ? { rateLimit: false } : { rate: settings.rateLimit }),
    },
    logFormat: settings.logFormat,
    health,
    ...(settings.trustProxy === undefined ? {} : { trustProxy: settings.trustProxy }),
    ...(settings.publicUrl === undefined ? {} : { publicUrl: settings.publicUrl }),
    // The configured secret wins; otherwise the one the database keeps for every host on it.
    cursorSecret: settings.cursorSecret ?? (await database.cursorSecret()),
  });
  // Armed before the first request can arrive, so a shutdown knows every request in flight.
  const shutdown = gracefulShutdown(host.server);
  // Issued once the port is ours: a start that fails to listen must not consume the only showing.
  const operatorKeyLine =
    configuredKey === undefined
      ? await generatedOperatorKey(database.analytics)
      : "Operator key for the analytics interface: SCIMKIT_OPERATOR_KEY";
  say(`scimkit host server listening on port ${host.port}, store: ${database.description}`);
  for (const orgId of orgIds) say(`SCIM base URL for ${orgId}: ${host.baseUrl(orgId)}`);
  if (demoToken) say(`Bearer token for demo (shown once): ${demoToken}`);
  if (demoIssuedEarlier) {
    say(
      "Bearer token for demo: issued on an earlier start (only its hash is kept); delete the database or set SCIMKIT_ORGS to choose tokens.",
    );
  }
  say(`Analytics interface: ${host.analyticsUrl} (OpenAPI document at ${host.analyticsUrl}/openapi.json)`);
  say(operatorKeyLine);
  if (seeded) {
    say(
      `Demo data for demo: ${seeded.learners} learners, ${seeded.campaigns.length} campaigns, 1 attack simulation, ${seeded.feedbackComments} feedback comments (SCIMKIT_DEMO_DATA=0 skips it)`,
    );
    say(`Demo attack simulation: ${host.analyticsUrl}/attack-simulations/${seeded.simulation.id}/summary`);
    say(
      `Demo divisions under demo: ${seeded.divisions.map((division) => `${division.id} (${division.learners} learners)`).join(", ")}; issue their SCIM tokens with scimkit tokens issue <id>`,
    );
  }
  const graceMs = settings.shutdownGraceMs;
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
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
        // After the last request: one still running would otherwise lose its connection mid-transaction.
        await database.close();
        say("Store closed");
        process.exit(0);
      })
      .catch((error: unknown) => {
        console.error("shutdown failed", error);
        process.exit(1);
      });
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

export const serveCommand: HostCommand = {
  name: "serve",
  summary: "Run the host server in this process (it receives the signals: SIGTERM stops it gracefully)",
  async run() {
    await serveHost(readSettingsOrExit(process.env));
  },
};
