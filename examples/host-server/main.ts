/**
 * `npm start`: the host server configured from the environment.
 *
 * - `PORT` (default 8080).
 * - `SCIMKIT_ORGS="org1:token1,org2:token2"`: the organizations and their bearer tokens. When
 *   unset, a `demo` organization is created and its token printed once, on the start that issues it.
 * - `DATABASE_URL`: the store (see `open-host-store.ts`); default SQLite at `./data/scimkit.db`.
 */
import { parseOrganizationTokens } from "../../src/auth/parse-organization-tokens.js";
import type { TokenStore } from "../../src/auth/hashed-token-store.js";
import { staticTokenVerifier } from "../../src/auth/static-token-verifier.js";
import type { TokenVerifier } from "../../src/auth/token-verifier.js";
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

async function organizations(tokens: TokenStore): Promise<Organizations> {
  const configured = process.env["SCIMKIT_ORGS"];
  if (configured !== undefined && configured.trim() !== "") {
    const parsed = parseOrganizationTokens(configured);
    return { auth: staticTokenVerifier(parsed), orgIds: Object.keys(parsed) };
  }
  // The store keeps only the hash, so a token issued on an earlier start cannot be shown again.
  if ((await tokens.list("demo")).length > 0) return { auth: tokens, orgIds: ["demo"], demoIssuedEarlier: true };
  const issued = await tokens.issue("demo", { label: "demo" });
  return { auth: tokens, orgIds: ["demo"], demoToken: issued.token };
}

function port(): number {
  const text = process.env["PORT"] ?? "8080";
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > 65535) throw new Error(`PORT must be a port number; got ${JSON.stringify(text)}.`);
  return value;
}

async function main(): Promise<void> {
  const database = await openHostStore(process.env["DATABASE_URL"]);
  const { auth, orgIds, demoToken, demoIssuedEarlier } = await organizations(database.tokens);
  const host = await startHostServer({ store: database.store, auth, port: port() });
  console.log(`scimkit host server listening on port ${host.port}, store: ${database.description}`);
  for (const orgId of orgIds) console.log(`SCIM base URL for ${orgId}: ${host.baseUrl(orgId)}`);
  if (demoToken) console.log(`Bearer token for demo (shown once): ${demoToken}`);
  if (demoIssuedEarlier) {
    console.log("Bearer token for demo: issued on an earlier start (only its hash is kept); delete the database or set SCIMKIT_ORGS to choose tokens.");
  }
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received, shutting down`);
    host.close().then(
      () => database.close(),
    ).then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("shutdown failed", error);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
