/**
 * The host's provisioning log (issue 18), as `npm start` runs it: one log written by the SCIM
 * router and read through the analytics interface, so a request an identity provider made with
 * its organization's token is found by the `X-Request-Id` it was answered with.
 */
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { killHosts, startHost } from "./host-process.fixture.js";

const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
const OPERATOR_KEY = "operator-key-for-the-request-log-test-0123456789";

afterEach(killHosts);
const scratch = mkdtempSync(join(tmpdir(), "scimkit-host-request-log-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Entry {
  readonly requestId: string;
  readonly orgId: string;
  readonly method: string;
  readonly status: number;
  readonly tokenId?: string;
  readonly identityProvider: string;
  readonly resourceId?: string;
  readonly requestBody?: string;
}

async function analytics(url: string, init: RequestInit = {}): Promise<{ readonly status: number; readonly body: unknown }> {
  const response = await fetch(url, {
    ...init,
    headers: { Authorization: `Bearer ${OPERATOR_KEY}`, "Content-Type": "application/json", ...init.headers },
  });
  return { status: response.status, body: await response.json() };
}

/** The entries with `requestId`, once the host has recorded them (after each response has gone). */
async function entriesOf(analyticsUrl: string | undefined, orgId: string, requestId: string): Promise<readonly Entry[]> {
  if (analyticsUrl === undefined) throw new Error("the host printed no analytics address");
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const listed = await analytics(`${analyticsUrl}/organizations/${orgId}/request-log?requestId=${encodeURIComponent(requestId)}`);
    expect(listed.status).toBe(200);
    const data = (listed.body as { data: Entry[] }).data;
    if (data.length > 0) return data;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no entry with request id ${requestId}`);
}

describe("the host's provisioning log", () => {
  it("finds a SCIM request made with an organization's token through the analytics interface by its X-Request-Id", async () => {
    const host = startHost({ SCIMKIT_OPERATOR_KEY: OPERATOR_KEY, SCIMKIT_DEMO_DATA: "0", DATABASE_URL: "memory:" });
    const [, analyticsUrl] = await host.waitFor(/^Analytics interface: (\S+) /);
    await host.waitFor(/^Provisioning log: the newest 1000 requests, in memory /);

    const created = await analytics(`${analyticsUrl}/organizations`, {
      method: "POST",
      body: JSON.stringify({ name: "Acme", id: "acme" }),
    });
    expect(created.status).toBe(201);
    const { scim } = created.body as { scim: { baseUrl: string; token: string } };
    const tokens = await analytics(`${analyticsUrl}/organizations/acme/tokens`);
    const tokenId = (tokens.body as { data: { id: string }[] }).data[0]?.id;

    const provisioned = await fetch(`${scim.baseUrl}/Users`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${scim.token}`,
        "Content-Type": "application/scim+json",
        "User-Agent": "Okta SCIM Client 1.0.0",
        "X-Request-Id": "okta-7781-create",
      },
      body: JSON.stringify({
        schemas: [USER_SCHEMA],
        userName: "ada@example.com",
        name: { givenName: "Ada", familyName: "Lovelace" },
        emails: [{ value: "ada@example.com", type: "work" }],
        password: "Secret-Password-1",
      }),
    });
    expect(provisioned.status).toBe(201);
    expect(provisioned.headers.get("x-request-id")).toBe("okta-7781-create");
    const ada = ((await provisioned.json()) as { id: string }).id;

    const [entry] = await entriesOf(analyticsUrl, "acme", "okta-7781-create");
    expect(entry).toMatchObject({ orgId: "acme", method: "POST", status: 201, tokenId, identityProvider: "okta", resourceId: ada });
    expect(entry?.requestBody).toContain('"password":"[redacted]"');
    expect(entry?.requestBody).not.toContain("Secret-Password-1");

    // Without an id of its own, the client is told the host's, which finds the entry just the same.
    const missing = await fetch(`${scim.baseUrl}/Users/no-such-user`, { headers: { Authorization: `Bearer ${scim.token}` } });
    expect(missing.status).toBe(404);
    const assigned = missing.headers.get("x-request-id") ?? "";
    expect(assigned).toMatch(/^[0-9a-f-]{36}$/);
    expect(await entriesOf(analyticsUrl, "acme", assigned)).toMatchObject([{ method: "GET", status: 404, resourceId: "no-such-user" }]);

    host.child.kill("SIGTERM");
    expect((await once(host.child, "exit"))[0]).toBe(0);
  }, 60_000);

  it("keeps the log in the SQLite database by default: a request is found again after a restart", async () => {
    const env = {
      SCIMKIT_OPERATOR_KEY: OPERATOR_KEY,
      SCIMKIT_DEMO_DATA: "0",
      SCIMKIT_ORGS: "north:token-north-0123456789abcdef0123456789",
      DATABASE_URL: `sqlite:${join(scratch, "log.db")}`,
    };
    const first = startHost(env);
    const [, baseUrl] = await first.waitFor(/^SCIM base URL for north: (\S+)$/);
    await first.waitFor(/^Provisioning log: in the database, 7 days and at most 100000 requests per organization /);
    const refused = await fetch(`${baseUrl}/Users`, {
      method: "POST",
      headers: {
        Authorization: "Bearer token-north-0123456789abcdef0123456789",
        "Content-Type": "application/scim+json",
        "User-Agent": "Microsoft.Identity.Provisioning",
        "X-Request-Id": "entra-kept-across-restart",
      },
      body: JSON.stringify({ schemas: [USER_SCHEMA], userName: "no-name@example.com" }),
    });
    expect(refused.status).toBe(400);
    // Without a valid token, for north and for an organization that does not exist (issue 27).
    const wrongToken = await fetch(`${baseUrl}/Users?access_token=stolen-elsewhere`, {
      headers: { Authorization: "Bearer not-the-token", "X-Request-Id": "knock-north" },
    });
    const madeUp = await fetch(`${(baseUrl ?? "").replace("/north/", "/made-up-org/")}/Users`, {
      headers: { "X-Request-Id": "knock-made-up" },
    });
    expect([wrongToken.status, madeUp.status]).toEqual([401, 401]);
    // Answered at once; written to the database in the background, and flushed on the way out.
    first.child.kill("SIGTERM");
    expect((await once(first.child, "exit"))[0]).toBe(0);

    const second = startHost(env);
    const [, analyticsUrl] = await second.waitFor(/^Analytics interface: (\S+) /);
    const [entry] = await entriesOf(analyticsUrl, "north", "entra-kept-across-restart");
    expect(entry).toMatchObject({ orgId: "north", method: "POST", status: 400, identityProvider: "entra" });
    // Neither request without a valid token is in an organization's log: they are in the operator's sample.
    const north = await analytics(`${analyticsUrl}/organizations/north/request-log?requestId=knock-north`);
    expect(north).toEqual({ status: 200, body: { data: [], nextCursor: null } });
    expect((await analytics(`${analyticsUrl}/organizations/made-up-org/request-log`)).status).toBe(404);
    const knocks = await analytics(`${analyticsUrl}/request-log/unauthenticated`);
    expect(knocks.status).toBe(200);
    const sample = knocks.body as { data: { requestId: string; orgId: string; path: string }[]; dropped: number };
    expect(sample.data.map(({ requestId, orgId }) => [requestId, orgId])).toEqual([
      ["knock-made-up", "made-up-org"],
      ["knock-north", "north"],
    ]);
    expect(sample.dropped).toBe(0);
    expect(JSON.stringify(sample)).not.toContain("stolen-elsewhere");
  }, 60_000);

  it("keeps no log with SCIMKIT_REQUEST_LOG=off, and the read API says so", async () => {
    const host = startHost({
      SCIMKIT_OPERATOR_KEY: OPERATOR_KEY,
      SCIMKIT_DEMO_DATA: "0",
      SCIMKIT_ORGS: "north:token-north-0123456789abcdef0123456789",
      SCIMKIT_REQUEST_LOG: "off",
      DATABASE_URL: "memory:",
    });
    const [, analyticsUrl] = await host.waitFor(/^Analytics interface: (\S+) /);
    await host.waitFor(/^Provisioning log: off \(SCIMKIT_REQUEST_LOG=off\)$/);
    const none = await analytics(`${analyticsUrl}/organizations/north/request-log`);
    expect(none.status).toBe(404);
    expect((none.body as { detail: string }).detail).toMatch(/keeps no provisioning log/);
  }, 60_000);
});
