/**
 * Every route the host mounts, walked with path parameters no client should send — a lone `%`,
 * a malformed escape, NUL, a control character, a truncated or surrogate UTF-8 sequence — on a
 * real host process per store (memory, SQLite, PostgreSQL), with and without a credential (issue
 * 27, point 10). Each answer is the surface's own JSON error (SCIM, RFC 9457 problem, RFC 6749
 * §5.2 OAuth, RFC 8936 poll), never Express's HTML page, a stack trace or a 500, and the host
 * reports no error to its log. The analytics routes are the host's own OpenAPI document's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateSigningKey } from "scimkit/oauth";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestSchema, describePostgres, type TestSchema } from "../../../src/store/sql/postgres-test-database.fixture.js";
import { killHosts, startHost, type Host } from "./host-process.fixture.js";

const OPERATOR_KEY = "operator-key-for-route-walk-0123456789abcdef";
const TOKEN = "token-walk-0123456789abcdef0123456789abcdef";

/** What goes where a path parameter is: each must be answered in the route's own error format. */
const HOSTILE = ["%", "%zz", "a%", "%00", "a%00b", "%01", "%1F", "%7F", "%E0%A4%A", "%ED%A0%80", "%C0%AF"];

/** One request of the walk: method, path with `{}` where the hostile value goes, and its credential. */
interface Probe {
  readonly method: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /**
   * The console serves files: its page (HTML by design) for a client route, a plain-text 404 for
   * a missing asset, a 503 when it is not built. Every other surface answers JSON.
   */
  readonly files?: boolean;
}

const scim = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/scim+json" };
const operator = { Authorization: `Bearer ${OPERATOR_KEY}`, "Content-Type": "application/json" };
const basic = {
  Authorization: `Basic ${Buffer.from("client:secret").toString("base64")}`,
  "Content-Type": "application/x-www-form-urlencoded",
};
const pollHeaders = { Authorization: "Bearer poll-secret", "Content-Type": "application/json" };

/** The SCIM, events, OAuth, console and catch-all probes; `{}` is the hostile value. */
function fixedProbes(): Probe[] {
  const scimPaths = ["/Users", "/Groups", "/ServiceProviderConfig", "/Schemas", "/ResourceTypes", "/Bulk", "/.search"];
  const probes: Probe[] = [];
  for (const headers of [scim, {}]) {
    for (const path of scimPaths) probes.push({ method: "GET", path: `/scim/Organizations/{}/v2${path}`, headers });
    probes.push({ method: "POST", path: "/scim/Organizations/{}/v2/Users", headers, body: "{}" });
    for (const path of ["/Users/{}", "/Groups/{}", "/Schemas/{}", "/ResourceTypes/{}", "/{}"]) {
      probes.push({ method: "GET", path: `/scim/Organizations/demo/v2${path}`, headers });
    }
    probes.push({ method: "PATCH", path: "/scim/Organizations/demo/v2/Users/{}", headers, body: "{}" });
    probes.push({ method: "DELETE", path: "/scim/Organizations/demo/v2/Groups/{}", headers });
  }
  probes.push(
    { method: "GET", path: "/scim/Organizations/{}/events/jwks.json" },
    { method: "POST", path: "/scim/Organizations/{}/events/poll/receiver", headers: pollHeaders, body: "{}" },
    { method: "POST", path: "/scim/Organizations/demo/events/poll/{}", headers: pollHeaders, body: "{}" },
    { method: "GET", path: "/scim/Organizations/{}/events/{}" },
    { method: "POST", path: "/oauth/Organizations/{}/token", headers: basic, body: "grant_type=client_credentials" },
    { method: "POST", path: "/oauth/Organizations/{}/token", body: "grant_type=client_credentials" },
    { method: "GET", path: "/oauth/Organizations/{}/jwks" },
    { method: "GET", path: "/oauth/Organizations/{}/{}" },
    { method: "GET", path: "/console/{}", files: true },
    { method: "GET", path: "/console/assets/{}", files: true },
    { method: "GET", path: "/{}" },
    { method: "POST", path: "/{}/{}", body: "{}" },
  );
  return probes;
}

interface OpenApi {
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** Every operation of the analytics interface with a path parameter, as the host's OpenAPI document lists them. */
async function analyticsProbes(origin: string): Promise<Probe[]> {
  const response = await fetch(`${origin}/analytics/v1/openapi.json`);
  expect(response.status).toBe(200);
  const document = (await response.json()) as OpenApi;
  const probes: Probe[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    if (!path.includes("{")) continue;
    for (const method of Object.keys(operations)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const hostile = path.replace(/\{[A-Za-z]+\}/g, "{}");
      const body = method === "get" || method === "delete" ? {} : { body: "{}" };
      probes.push({ method: method.toUpperCase(), path: `/analytics/v1${hostile}`, headers: operator, ...body });
      probes.push({ method: method.toUpperCase(), path: `/analytics/v1${hostile}`, ...body });
    }
  }
  // The walk covers the interface: its organizations, tokens, receivers, directory, campaigns and operations.
  expect(probes.length).toBeGreaterThan(40);
  return probes;
}

/** What is wrong with one answer, or undefined when it is a proper error of its surface. */
function fault(probe: Probe, status: number, type: string, text: string): string | undefined {
  if (status === 500 || (status > 500 && probe.files !== true)) return `${status}: ${text.slice(0, 200)}`;
  if (/<pre>|Cannot (GET|POST)|at [^\n]*\.[jt]s:\d+|URIError|TypeError/.test(text))
    return `Express's page or a stack: ${text.slice(0, 200)}`;
  if (probe.files === true) return undefined;
  if (!/^application\/([a-z+-]+\+)?json/.test(type)) return `not JSON (${type}): ${text.slice(0, 200)}`;
  try {
    JSON.parse(text);
  } catch {
    return `malformed JSON: ${text.slice(0, 200)}`;
  }
  return undefined;
}

/** Walks every probe with every hostile value; the faults found, as `METHOD path → what`. */
async function walk(origin: string, probes: readonly Probe[]): Promise<string[]> {
  const faults: string[] = [];
  for (const probe of probes) {
    for (const value of HOSTILE) {
      const path = probe.path.replaceAll("{}", value);
      const response = await fetch(`${origin}${path}`, {
        method: probe.method,
        headers: probe.headers ?? {},
        ...(probe.body === undefined ? {} : { body: probe.body }),
      });
      const text = await response.text();
      const found = fault(probe, response.status, response.headers.get("content-type") ?? "", text);
      if (found !== undefined) faults.push(`${probe.method} ${path}${probe.headers?.Authorization ? " (with credential)" : ""} → ${found}`);
    }
  }
  return faults;
}

/** Starts a host on `databaseUrl` with every surface on, and walks its routes. */
async function walkHost(databaseUrl: string): Promise<{ faults: string[]; host: Host }> {
  const host = startHost({
    DATABASE_URL: databaseUrl,
    SCIMKIT_ORGS: `demo:${TOKEN}`,
    SCIMKIT_OPERATOR_KEY: OPERATOR_KEY,
    SCIMKIT_DEMO_DATA: "0",
    SCIMKIT_OAUTH_SIGNING_KEY: JSON.stringify(await generateSigningKey("EdDSA")),
  });
  const [, port] = await host.waitFor(/listening on port (\d+)/);
  const origin = `http://127.0.0.1:${port}`;
  const probes = [...fixedProbes(), ...(await analyticsProbes(origin))];
  const faults = await walk(origin, probes);
  return { faults, host };
}

/** The host reported nothing: a 500 would have been written to its log as an `error` line. */
function reportedErrors(host: Host): string[] {
  return host.lines.filter((line) => /^error |"level":"error"/.test(line));
}

afterEach(killHosts);

describe("every route of the host, walked with malformed escapes and control characters", () => {
  it("on memory: each answer its surface's JSON error, none a 500 or Express's page", { timeout: 300_000 }, async () => {
    const { faults, host } = await walkHost("memory:");
    expect(faults).toEqual([]);
    expect(reportedErrors(host)).toEqual([]);
  });

  describe("on SQLite", () => {
    const scratch = mkdtempSync(join(tmpdir(), "scimkit-walk-"));
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));
    it("each answer its surface's JSON error, none a 500 or Express's page", { timeout: 300_000 }, async () => {
      const { faults, host } = await walkHost(`sqlite:${join(scratch, "walk.db")}`);
      expect(faults).toEqual([]);
      expect(reportedErrors(host)).toEqual([]);
    });
  });
});

describePostgres("every route of the host on PostgreSQL, walked with malformed escapes and control characters", (url) => {
  let schema: TestSchema;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(async () => schema.drop());

  it("each answer its surface's JSON error, none a 500 or Express's page", { timeout: 300_000 }, async () => {
    const database = new URL(url);
    database.searchParams.set("schema", schema.name);
    const { faults, host } = await walkHost(database.toString());
    expect(faults).toEqual([]);
    expect(reportedErrors(host)).toEqual([]);
  });
});
