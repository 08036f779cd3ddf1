/**
 * `npm start` as a newcomer meets it: the real process, configured from the environment,
 * provisioned over HTTP, logging each request, and stopped with SIGTERM.
 */
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
    const host = startHost({ SCIMKIT_ORGS: "north:token-north,south:token-south", DATABASE_URL: "memory:" });
    const [, north] = await host.waitFor(/^SCIM base URL for north: (\S+)$/);
    const [, south] = await host.waitFor(/^SCIM base URL for south: (\S+)$/);
    expect(host.lines.some((line) => line.startsWith("Bearer token for"))).toBe(false);

    const own = await fetch(`${north}/Users`, { headers: { Authorization: "Bearer token-north" } });
    expect(own.status).toBe(200);
    const crossed = await fetch(`${south}/Users`, { headers: { Authorization: "Bearer token-north" } });
    expect(crossed.status).toBe(401);
    const config = await fetch(`${south}/ServiceProviderConfig`);
    expect(config.status).toBe(200);

    host.child.kill("SIGTERM");
    const [code] = await once(host.child, "exit");
    expect(code).toBe(0);
  }, 30_000);

  it("refuses a malformed SCIMKIT_ORGS with a message and a non-zero exit", async () => {
    const host = startHost({ SCIMKIT_ORGS: "north", DATABASE_URL: "memory:" });
    let stderr = "";
    host.child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = await once(host.child, "exit");
    expect(code).toBe(1);
    expect(stderr).toMatch(/north|entry 1/i);
  }, 30_000);

  it("keeps its data and its demo token across a restart on the same SQLite file", async () => {
    const database = freshDatabase();
    const first = startHost({ SCIMKIT_ORGS: "", DATABASE_URL: database });
    const [, baseUrl] = await first.waitFor(/^SCIM base URL for demo: (\S+)$/);
    const [, token] = await first.waitFor(/^Bearer token for demo \(shown once\): (scimkit_\S+)$/);
    const created = await fetch(`${baseUrl}/Users`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json" },
      body: JSON.stringify({ schemas: [USER_SCHEMA], userName: "grace", name: { givenName: "Grace", familyName: "Hopper" }, emails: [{ value: "grace@example.com", type: "work" }] }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    first.child.kill("SIGTERM");
    expect((await once(first.child, "exit"))[0]).toBe(0);

    const second = startHost({ SCIMKIT_ORGS: "", DATABASE_URL: database });
    const [, againUrl] = await second.waitFor(/^SCIM base URL for demo: (\S+)$/);
    await second.waitFor(/^Bearer token for demo: issued on an earlier start/);
    expect(second.lines.some((line) => line.includes("shown once"))).toBe(false);
    const read = await fetch(`${againUrl}/Users/${id}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { userName: string }).userName).toBe("grace");
    second.child.kill("SIGTERM");
    expect((await once(second.child, "exit"))[0]).toBe(0);
  }, 30_000);

  it("refuses a DATABASE_URL it does not understand", async () => {
    const host = startHost({ SCIMKIT_ORGS: "", DATABASE_URL: "mysql://localhost/x" });
    let stderr = "";
    host.child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = await once(host.child, "exit");
    expect(code).toBe(1);
    expect(stderr).toMatch(/DATABASE_URL must start with/);
  }, 30_000);
});
