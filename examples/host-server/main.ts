/**
 * `npm start`: the host server configured from the environment.
 *
 * - `PORT` (default 8080).
 * - `SCIMKIT_ORGS="org1:token1,org2:token2"`: the organizations and their bearer tokens. When
 *   unset, a `demo` organization is created and its token printed once.
 */
import { parseOrganizationTokens } from "../../src/auth/parse-organization-tokens.js";
import { createTokenStore } from "../../src/auth/hashed-token-store.js";
import { staticTokenVerifier } from "../../src/auth/static-token-verifier.js";
import type { TokenVerifier } from "../../src/auth/token-verifier.js";
import { memoryStore } from "../../src/store/memory/memory-store.js";
import { startHostServer } from "./host-server.js";

async function organizations(): Promise<{ auth: TokenVerifier; orgIds: string[]; demoToken?: string }> {
  const configured = process.env["SCIMKIT_ORGS"];
  if (configured !== undefined && configured.trim() !== "") {
    const tokens = parseOrganizationTokens(configured);
    return { auth: staticTokenVerifier(tokens), orgIds: Object.keys(tokens) };
  }
  const tokens = createTokenStore();
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
  const { auth, orgIds, demoToken } = await organizations();
  const host = await startHostServer({ store: memoryStore(), auth, port: port() });
  console.log(`scimkit host server listening on port ${host.port}`);
  for (const orgId of orgIds) console.log(`SCIM base URL for ${orgId}: ${host.baseUrl(orgId)}`);
  if (demoToken) console.log(`Bearer token for demo (shown once): ${demoToken}`);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received, shutting down`);
    host.close().then(
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
