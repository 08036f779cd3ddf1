/**
 * `npm start`: the host server configured from the environment.
 *
 * - `PORT` (default 8080).
 * - `SCIMKIT_ORGS="org1:token1,org2:token2"`: the organizations and their bearer tokens. When
 *   unset, a `demo` organization is created and its token printed once, on the start that issues it.
 * - `DATABASE_URL`: the store (see `open-host-store.ts`); default SQLite at `./data/scimkit.db`.
 * - `SCIMKIT_OPERATOR_KEY`: the analytics interface's operator key. When unset and the store has
 *   none, one is created and printed once, on the start that issues it.
 * - `SCIMKIT_DEMO_DATA=0`: do not fill the demo organization with demo learners, campaigns and a
 *   simulation on the start that creates it.
 * - `SCIMKIT_SHUTDOWN_GRACE_MS` (default 10000): on SIGTERM or SIGINT the host stops accepting
 *   connections and gives the requests in flight this long to finish before it cuts them; then it
 *   closes the store and exits 0.
 */
import { activeOrganizationsOnly } from "scimkit/analytics";
import type { AnalyticsStore } from "scimkit/analytics";
import { ensureOperatorKey, issueApiKey } from "scimkit/analytics";
import { parseOrganizationTokens } from "scimkit";
import type { TokenStore } from "scimkit";
import { staticTokenVerifier } from "scimkit";
import type { TokenVerifier } from "scimkit";
import { demoSeed } from "./demo-seed.js";
import { gracefulShutdown } from "./graceful-shutdown.js";
import { startHostServer } from "./host-server.js";
import { openHostStore } from "./open-host-store.js";

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

async function organizations(tokens: TokenStore): Promise<Organizations> {
  const configured = process.env["SCIMKIT_ORGS"];
  if (configured !== undefined && configured.trim() !== "") {
    const parsed = parseOrganizationTokens(configured);
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
      await analytics.createOrganization({ id, name: id === "demo" ? "Demo organization" : id, status: "active", createdAt: now, updatedAt: now });
    } catch (error) {
      // Two hosts starting on one PostgreSQL database race to register: the loser finds it there.
      if (await analytics.getOrganization({ all: true }, id)) continue;
      throw error;
    }
    registered.push(id);
  }
  return registered;
}

/** `SCIMKIT_OPERATOR_KEY`, when set. */
function configuredOperatorKey(): string | undefined {
  const configured = process.env["SCIMKIT_OPERATOR_KEY"]?.trim();
  return configured === undefined || configured === "" ? undefined : configured;
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

/** Within the 30 s most orchestrators wait after SIGTERM before SIGKILL, with room to close the store. */
const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

function shutdownGraceMs(): number {
  const text = process.env["SCIMKIT_SHUTDOWN_GRACE_MS"]?.trim() || String(DEFAULT_SHUTDOWN_GRACE_MS);
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`SCIMKIT_SHUTDOWN_GRACE_MS must be a whole number of milliseconds; got ${JSON.stringify(text)}.`);
  return value;
}

function port(): number {
  const text = process.env["PORT"] ?? "8080";
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > 65535) throw new Error(`PORT must be a port number; got ${JSON.stringify(text)}.`);
  return value;
}

async function main(): Promise<void> {
  // Read first: a mistake in it should stop the start, not the stop.
  const graceMs = shutdownGraceMs();
  const database = await openHostStore(process.env["DATABASE_URL"]);
  const { auth, orgIds, demoToken, demoIssuedEarlier } = await organizations(database.tokens);
  const registered = await registerOrganizations(database.analytics, orgIds);
  const configuredKey = configuredOperatorKey();
  // Registered before the port opens, so the configured key works from the first request.
  if (configuredKey !== undefined) await ensureOperatorKey(database.analytics, configuredKey);
  // Seeded on the start that creates the demo organization, before the first request can arrive.
  const seedDemo = registered.includes("demo") && !["0", "false"].includes((process.env["SCIMKIT_DEMO_DATA"] ?? "").trim().toLowerCase());
  const seeded = seedDemo ? await demoSeed({ resources: database.store, analytics: database.analytics, orgId: "demo" }) : undefined;
  const host = await startHostServer({
    store: database.store,
    auth: activeOrganizationsOnly(auth, database.analytics),
    analytics: { store: database.analytics, scimTokens: database.tokens },
    // Every SCIM write, with its outcome, in the store's own database (scimkit_audit).
    audit: database.audit,
    port: port(),
  });
  // Armed before the first request can arrive, so a shutdown knows every request in flight.
  const shutdown = gracefulShutdown(host.server);
  // Issued once the port is ours: a start that fails to listen must not consume the only showing.
  const operatorKeyLine =
    configuredKey === undefined ? await generatedOperatorKey(database.analytics) : "Operator key for the analytics interface: SCIMKIT_OPERATOR_KEY";
  console.log(`scimkit host server listening on port ${host.port}, store: ${database.description}`);
  for (const orgId of orgIds) console.log(`SCIM base URL for ${orgId}: ${host.baseUrl(orgId)}`);
  if (demoToken) console.log(`Bearer token for demo (shown once): ${demoToken}`);
  if (demoIssuedEarlier) {
    console.log("Bearer token for demo: issued on an earlier start (only its hash is kept); delete the database or set SCIMKIT_ORGS to choose tokens.");
  }
  console.log(`Analytics interface: ${host.analyticsUrl} (OpenAPI document at ${host.analyticsUrl}/openapi.json)`);
  console.log(operatorKeyLine);
  if (seeded) {
    console.log(
      `Demo data for demo: ${seeded.learners} learners, ${seeded.campaigns.length} campaigns, 1 attack simulation, ${seeded.feedbackComments} feedback comments (SCIMKIT_DEMO_DATA=0 skips it)`,
    );
    console.log(`Demo attack simulation: ${host.analyticsUrl}/attack-simulations/${seeded.simulation.id}/summary`);
  }
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received, shutting down`);
    console.log(`No longer accepting connections; waiting up to ${graceMs} ms for ${shutdown.inFlight()} request(s) in flight`);
    shutdown
      .shutdown(graceMs)
      .then(async ({ finished, cut }) => {
        console.log(`Requests finished during shutdown: ${finished}; cut at the end of the grace period: ${cut}`);
        // After the last request: one still running would otherwise lose its connection mid-transaction.
        await database.close();
        console.log("Store closed");
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

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  // A 503 from an unreachable database says what the client should do; the operator needs the cause.
  if (error instanceof Error && error.cause !== undefined) console.error("cause:", error.cause instanceof Error ? error.cause.message : error.cause);
  process.exit(1);
});
