/**
 * `npm start` as a newcomer meets it: the real process, configured from the environment,
 * provisioned over HTTP, logging each request, and stopped with SIGTERM.
 */
import Database from "better-sqlite3";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { killHosts, startHost } from "./host-process.fixture.js";

const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";

// Each test's SQLite file lives here, never in the project's ./data.
const scratch = mkdtempSync(join(tmpdir(), "scimkit-host-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let databases = 0;
const freshDatabase = (): string => `sqlite:${join(scratch, `host-${(databases += 1)}.db`)}`;

afterEach(killHosts);

/** A GET on the analytics interface with `key`, answering the status and the JSON body. */
async function analyticsGet(
  url: string,
  key?: string,
): Promise<{ readonly status: number; readonly type: string; readonly body: unknown }> {
  const response = await fetch(url, key === undefined ? {} : { headers: { Authorization: `Bearer ${key}` } });
  return { status: response.status, type: response.headers.get("content-type") ?? "", body: await response.json() };
}

interface Listed<T> {
  readonly data: readonly T[];
  readonly nextCursor?: string;
}

/** The figures the demo seed's first campaign shows (see demo-seed.ts). */
const ESSENTIALS = { enrolled: 50, notStarted: 8, inProgress: 12, completed: 30, overdue: 20, completionRate: 0.6 };
/** The same for the second, not yet due. */
const SPOTTING_PHISHING = { enrolled: 40, notStarted: 15, inProgress: 15, completed: 10, overdue: 0, completionRate: 0.25 };

/** The demo campaigns' summaries, found by name through the campaign list. */
async function demoSummaries(analyticsUrl: string, key: string): Promise<Record<string, unknown>> {
  const campaigns = await analyticsGet(`${analyticsUrl}/campaigns`, key);
  expect(campaigns.status).toBe(200);
  const summaries: Record<string, unknown> = {};
  for (const campaign of (campaigns.body as Listed<{ id: string; name: string }>).data) {
    const summary = await analyticsGet(`${analyticsUrl}/campaigns/${campaign.id}/summary`, key);
    expect(summary.status).toBe(200);
    summaries[campaign.name] = summary.body;
  }
  return summaries;
}

describe("the host server (npm start)", () => {
  it("creates a demo organization, prints its base URL and token once, provisions a user, logs each request and stops on SIGTERM", async () => {
    const host = startHost({ SCIMKIT_ORGS: "", DATABASE_URL: freshDatabase() });
    const [, baseUrl] = await host.waitFor(/^SCIM base URL for demo: (\S+)$/);
    const [, token] = await host.waitFor(/^Bearer token for demo \(shown once\): (scimkit_\S+)$/);
    expect(baseUrl).toMatch(/^http:\/\/localhost:\d+\/scim\/Organizations\/demo\/v2$/);

    const created = await fetch(`${baseUrl}/Users`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json" },
      body: JSON.stringify({
        schemas: [USER_SCHEMA],
        userName: "ada@example.com",
        name: { givenName: "Ada", familyName: "Lovelace" },
        emails: [{ value: "ada@example.com", type: "work" }],
      }),
    });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { id: string; userName: string };
    expect(body.userName).toBe("ada@example.com");

    const unauthorized = await fetch(`${baseUrl}/Users`);
    expect(unauthorized.status).toBe(401);

    await host.waitFor(/^POST \/scim\/Organizations\/demo\/v2\/Users 201 \d+\.\dms$/);
    await host.waitFor(/^GET \/scim\/Organizations\/demo\/v2\/Users 401 \d+\.\dms$/);
    expect(host.lines.filter((line) => line.includes(token as string))).toHaveLength(1);

    host.child.kill("SIGTERM");
    const [code] = await once(host.child, "exit");
    expect(code).toBe(0);
    expect(host.lines).toContain("SIGTERM received, shutting down");
  }, 30_000);

  it("serves the organizations and tokens of SCIMKIT_ORGS, each token only for its own organization", async () => {
    const host = startHost({
      SCIMKIT_ORGS: "north:token-north-0123456789abcdef0123456789,south:token-south-0123456789abcdef0123456789",
      DATABASE_URL: "memory:",
    });
    const [, north] = await host.waitFor(/^SCIM base URL for north: (\S+)$/);
    const [, south] = await host.waitFor(/^SCIM base URL for south: (\S+)$/);
    expect(host.lines.some((line) => line.startsWith("Bearer token for"))).toBe(false);

    const own = await fetch(`${north}/Users`, { headers: { Authorization: "Bearer token-north-0123456789abcdef0123456789" } });
    expect(own.status).toBe(200);
    const crossed = await fetch(`${south}/Users`, { headers: { Authorization: "Bearer token-north-0123456789abcdef0123456789" } });
    expect(crossed.status).toBe(401);
    const config = await fetch(`${south}/ServiceProviderConfig`);
    expect(config.status).toBe(200);

    host.child.kill("SIGTERM");
    const [code] = await once(host.child, "exit");
    expect(code).toBe(0);
  }, 30_000);

  it("takes its limits and public URL from the environment", async () => {
    const token = "token-east-0123456789abcdef0123456789";
    const host = startHost({
      SCIMKIT_ORGS: `east:${token}`,
      DATABASE_URL: "memory:",
      SCIMKIT_PUBLIC_URL: "https://scim.example.com/",
      SCIMKIT_PAGE_SIZE_DEFAULT: "2",
      SCIMKIT_PAGE_SIZE_MAX: "3",
      SCIMKIT_BULK_MAX_OPERATIONS: "7",
      SCIMKIT_BULK_MAX_PAYLOAD: "64kb",
      SCIMKIT_RATE_LIMIT: "0.1",
      SCIMKIT_RATE_BURST: "4",
    });
    const [, printed] = await host.waitFor(/^SCIM base URL for east: (\S+)$/);
    expect(printed).toBe("https://scim.example.com/scim/Organizations/east/v2");
    const [, port] = await host.waitFor(/^scimkit host server listening on port (\d+)/);
    const base = `http://127.0.0.1:${port}/scim/Organizations/east/v2`;
    const headers = { Authorization: `Bearer ${token}` };
    const config = (await (await fetch(`${base}/ServiceProviderConfig`, { headers })).json()) as {
      filter: { maxResults: number };
      bulk: { maxOperations: number; maxPayloadSize: number };
      meta: { location: string };
    };
    expect(config.filter.maxResults).toBe(3);
    expect(config.bulk).toMatchObject({ maxOperations: 7, maxPayloadSize: 65_536 });
    expect(config.meta.location).toBe("https://scim.example.com/scim/Organizations/east/v2/ServiceProviderConfig");
    // A burst of 4 at 0.1/s: the fifth request in a row is refused.
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await fetch(`${base}/Users`, { headers })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    host.child.kill("SIGTERM");
    expect((await once(host.child, "exit"))[0]).toBe(0);
  }, 30_000);

  it("refuses a malformed SCIMKIT_ORGS with a message and exit code 2", async () => {
    const host = startHost({ SCIMKIT_ORGS: "north", DATABASE_URL: "memory:" });
    let stderr = "";
    host.child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = await once(host.child, "exit");
    expect(code).toBe(2);
    expect(stderr).toMatch(/SCIMKIT_ORGS: .*entry 1/i);
  }, 30_000);

  it("keeps its data, its demo token and the cursors it handed out across a restart on the same SQLite file", async () => {
    const database = freshDatabase();
    const first = startHost({ SCIMKIT_ORGS: "", DATABASE_URL: database });
    const [, baseUrl] = await first.waitFor(/^SCIM base URL for demo: (\S+)$/);
    const [, token] = await first.waitFor(/^Bearer token for demo \(shown once\): (scimkit_\S+)$/);
    const created = await fetch(`${baseUrl}/Users`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json" },
      body: JSON.stringify({
        schemas: [USER_SCHEMA],
        userName: "grace",
        name: { givenName: "Grace", familyName: "Hopper" },
        emails: [{ value: "grace@example.com", type: "work" }],
      }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    // Sealed with the secret the database keeps (no SCIMKIT_CURSOR_SECRET here), so the next start opens it.
    const firstPage = await fetch(`${baseUrl}/Users?cursor=&count=1`, { headers: { Authorization: `Bearer ${token}` } });
    expect(firstPage.status).toBe(200);
    const { nextCursor } = (await firstPage.json()) as { nextCursor?: string };
    expect(nextCursor).toEqual(expect.any(String));
    first.child.kill("SIGTERM");
    expect((await once(first.child, "exit"))[0]).toBe(0);

    const second = startHost({ SCIMKIT_ORGS: "", DATABASE_URL: database });
    const [, againUrl] = await second.waitFor(/^SCIM base URL for demo: (\S+)$/);
    await second.waitFor(/^Bearer token for demo: issued on an earlier start/);
    expect(second.lines.some((line) => line.includes("shown once"))).toBe(false);
    const read = await fetch(`${againUrl}/Users/${id}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { userName: string }).userName).toBe("grace");
    const secondPage = await fetch(`${againUrl}/Users?cursor=${encodeURIComponent(nextCursor ?? "")}&count=1`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(secondPage.status).toBe(200);
    expect(((await secondPage.json()) as { Resources: unknown[] }).Resources).toHaveLength(1);
    second.child.kill("SIGTERM");
    expect((await once(second.child, "exit"))[0]).toBe(0);
    // The key is a generated one kept in the file, not the empty default a client could forge cursors with.
    const file = new Database(database.slice("sqlite:".length), { readonly: true });
    const kept = file.prepare("select value from scimkit_settings where name = 'cursor'").get() as { value: string } | undefined;
    file.close();
    expect(Buffer.from(kept?.value ?? "", "base64url")).toHaveLength(32);
  }, 30_000);

  it("prints an operator key once, serves the analytics interface with the demo data, and keeps both across a restart", async () => {
    const database = freshDatabase();
    const first = startHost({ SCIMKIT_ORGS: "", SCIMKIT_OPERATOR_KEY: "", SCIMKIT_DEMO_DATA: "", DATABASE_URL: database });
    const [, analyticsUrl] = await first.waitFor(/^Analytics interface: (\S+) \(OpenAPI document at \S+\/openapi\.json\)$/);
    const [, key] = await first.waitFor(/^Operator key for the analytics interface \(shown once\): (scimkit_ak_[A-Za-z0-9_-]{43})$/);
    const [, token] = await first.waitFor(/^Bearer token for demo \(shown once\): (scimkit_\S+)$/);
    await first.waitFor(/^Demo data for demo: 50 learners, 2 campaigns, 1 attack simulation, 6 feedback comments/);
    const [, simulationSummaryUrl] = await first.waitFor(/^Demo attack simulation: (\S+\/attack-simulations\/[0-9a-f-]{36}\/summary)$/);
    expect(analyticsUrl).toMatch(/^http:\/\/localhost:\d+\/analytics\/v1$/);
    expect(first.lines.filter((line) => line.includes(key as string))).toHaveLength(1);

    const organizations = await analyticsGet(`${analyticsUrl}/organizations`, key);
    expect(organizations.status).toBe(200);
    // The demo organization and its two divisions (issue 17).
    expect((organizations.body as Listed<{ id: string; status: string }>).data).toEqual([
      expect.objectContaining({ id: "demo", status: "active" }),
      expect.objectContaining({ id: "demo-americas", parentId: "demo" }),
      expect.objectContaining({ id: "demo-emea", parentId: "demo" }),
    ]);
    const withoutKey = await analyticsGet(`${analyticsUrl}/organizations`);
    expect(withoutKey.status).toBe(401);
    expect(withoutKey.type).toMatch(/^application\/problem\+json/);
    // The SCIM token and the analytics key each work on their own interface only.
    expect((await analyticsGet(`${analyticsUrl}/organizations`, token)).status).toBe(401);
    const scimWithKey = await fetch(`${(analyticsUrl as string).replace("/analytics/v1", "/scim/Organizations/demo/v2")}/Users`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(scimWithKey.status).toBe(401);

    expect(await demoSummaries(analyticsUrl as string, key as string)).toEqual({
      "Security awareness essentials": expect.objectContaining(ESSENTIALS),
      "Spotting phishing": expect.objectContaining(SPOTTING_PHISHING),
    });
    const funnel = await analyticsGet(simulationSummaryUrl as string, key);
    expect(funnel.body).toMatchObject({ sent: 50, delivered: 48, opened: 31, clicked: 12, submittedData: 5, reported: 14 });
    const learners = await analyticsGet(`${analyticsUrl}/users?active=false&organizationId=demo&limit=100`, key);
    expect((learners.body as Listed<{ userName: string }>).data).toHaveLength(3);
    first.child.kill("SIGTERM");
    expect((await once(first.child, "exit"))[0]).toBe(0);

    const second = startHost({ SCIMKIT_ORGS: "", SCIMKIT_OPERATOR_KEY: "", SCIMKIT_DEMO_DATA: "", DATABASE_URL: database });
    const [, againUrl] = await second.waitFor(/^Analytics interface: (\S+) /);
    await second.waitFor(/^Operator key for the analytics interface: issued on an earlier start/);
    expect(second.lines.some((line) => line.includes("scimkit_ak_") || line.startsWith("Demo data"))).toBe(false);
    expect(await demoSummaries(againUrl as string, key as string)).toEqual({
      "Security awareness essentials": expect.objectContaining(ESSENTIALS),
      "Spotting phishing": expect.objectContaining(SPOTTING_PHISHING),
    });
    const everyone = await analyticsGet(`${againUrl}/users?limit=100`, key);
    // Fifty in demo, ten in each of its divisions.
    expect((everyone.body as Listed<unknown>).data).toHaveLength(70);
    second.child.kill("SIGTERM");
    expect((await once(second.child, "exit"))[0]).toBe(0);
  }, 60_000);

  it("takes the operator key from SCIMKIT_OPERATOR_KEY, skips the demo data with SCIMKIT_DEMO_DATA=0, and suspends an organization the operator creates", async () => {
    const operatorKey = "operator-key-for-the-host-server-test-0123456789";
    const host = startHost({
      SCIMKIT_ORGS: "north:token-north-0123456789abcdef0123456789",
      SCIMKIT_OPERATOR_KEY: operatorKey,
      SCIMKIT_DEMO_DATA: "0",
      DATABASE_URL: "memory:",
    });
    const [, analyticsUrl] = await host.waitFor(/^Analytics interface: (\S+) /);
    await host.waitFor(/^Operator key for the analytics interface: SCIMKIT_OPERATOR_KEY$/);
    expect(host.lines.some((line) => line.includes("scimkit_ak_") || line.includes(operatorKey) || line.startsWith("Demo data"))).toBe(
      false,
    );
    const auth = { Authorization: `Bearer ${operatorKey}`, "Content-Type": "application/json" };

    const listed = await analyticsGet(`${analyticsUrl}/organizations`, operatorKey);
    expect((listed.body as Listed<{ id: string }>).data.map((organization) => organization.id)).toEqual(["north"]);
    expect(((await analyticsGet(`${analyticsUrl}/campaigns`, operatorKey)).body as Listed<unknown>).data).toEqual([]);

    const created = await fetch(`${analyticsUrl}/organizations`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "Globex" }),
    });
    expect(created.status).toBe(201);
    const globex = (await created.json()) as { organization: { id: string }; scim: { baseUrl: string; token: string } };
    const users = (token: string, base: string): Promise<Response> =>
      fetch(`${base}/Users`, { headers: { Authorization: `Bearer ${token}` } });
    expect((await users(globex.scim.token, globex.scim.baseUrl)).status).toBe(200);

    // The token API lists SCIMKIT_ORGS' token as static and refuses to rotate it (issue 14, item 1)…
    const northTokens = await analyticsGet(`${analyticsUrl}/organizations/north/tokens`, operatorKey);
    expect((northTokens.body as Listed<unknown>).data).toEqual([{ id: "static-1", source: "static", label: "SCIMKIT_ORGS" }]);
    const rotateStatic = await fetch(`${analyticsUrl}/organizations/north/tokens/static-1/rotate`, {
      method: "POST",
      headers: auth,
      body: "{}",
    });
    expect(rotateStatic.status).toBe(409);
    // …and rotates an issued one: the old secret is 401 on the next request, the new one 200, no restart.
    const globexTokens = (await analyticsGet(`${analyticsUrl}/organizations/${globex.organization.id}/tokens`, operatorKey))
      .body as Listed<{ id: string; source: string }>;
    expect(globexTokens.data.map((token) => token.source)).toEqual(["issued"]);
    const rotated = await fetch(`${analyticsUrl}/organizations/${globex.organization.id}/tokens/${globexTokens.data[0]?.id}/rotate`, {
      method: "POST",
      headers: auth,
      body: "{}",
    });
    expect(rotated.status).toBe(200);
    const { secret } = (await rotated.json()) as { secret: string };
    expect((await users(globex.scim.token, globex.scim.baseUrl)).status).toBe(401);
    expect((await users(secret, globex.scim.baseUrl)).status).toBe(200);

    const suspend = await fetch(`${analyticsUrl}/organizations/${globex.organization.id}`, {
      method: "PATCH",
      headers: auth,
      body: JSON.stringify({ status: "suspended" }),
    });
    expect(suspend.status).toBe(200);
    expect((await users(secret, globex.scim.baseUrl)).status).toBe(401);
    const north = (analyticsUrl as string).replace("/analytics/v1", "/scim/Organizations/north/v2");
    expect((await users("token-north-0123456789abcdef0123456789", north)).status).toBe(200);

    host.child.kill("SIGTERM");
    expect((await once(host.child, "exit"))[0]).toBe(0);
  }, 30_000);

  it("lets the operator suspend the demo organization, whose SCIM token then fails until it is reactivated", async () => {
    const operatorKey = "operator-key-for-the-host-server-test-0123456789";
    const host = startHost({ SCIMKIT_ORGS: "", SCIMKIT_OPERATOR_KEY: operatorKey, SCIMKIT_DEMO_DATA: "0", DATABASE_URL: "memory:" });
    const [, analyticsUrl] = await host.waitFor(/^Analytics interface: (\S+) /);
    const [, baseUrl] = await host.waitFor(/^SCIM base URL for demo: (\S+)$/);
    const [, token] = await host.waitFor(/^Bearer token for demo \(shown once\): (scimkit_\S+)$/);
    const setStatus = (status: string): Promise<Response> =>
      fetch(`${analyticsUrl}/organizations/demo`, {
        method: "PATCH",
        headers: { Authorization: `Bearer ${operatorKey}`, "Content-Type": "application/json" },
        body: JSON.stringify({ status }),
      });
    const users = (): Promise<Response> => fetch(`${baseUrl}/Users`, { headers: { Authorization: `Bearer ${token}` } });

    expect((await setStatus("suspended")).status).toBe(200);
    expect((await users()).status).toBe(401);
    expect((await setStatus("active")).status).toBe(200);
    expect((await users()).status).toBe(200);
    const filtered = await analyticsGet(`${analyticsUrl}/users?organizationId=demo`, operatorKey);
    expect(filtered.status).toBe(200);

    host.child.kill("SIGTERM");
    expect((await once(host.child, "exit"))[0]).toBe(0);
  }, 30_000);

  it("refuses a DATABASE_URL it does not understand", async () => {
    const host = startHost({ SCIMKIT_ORGS: "", DATABASE_URL: "mysql://localhost/x" });
    let stderr = "";
    host.child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = await once(host.child, "exit");
    expect(code).toBe(2);
    expect(stderr).toMatch(/DATABASE_URL="mysql:…": expected postgres:\/\/…/);
    // A configuration mistake, not a crash: no stack trace.
    expect(stderr).not.toMatch(/\n\s+at /);
  }, 30_000);
});
