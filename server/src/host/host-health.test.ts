/**
 * The probes (`/healthz`, `/readyz`), `SCIMKIT_PUBLIC_URL` against a forged `Host`, and the JSON
 * log lines, on the host app as `scimkit serve` builds it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { staticTokenVerifier } from "scimkit";
import { memoryStore } from "scimkit/memory";
import { hostHealth } from "./host-health.js";
import { createHostApp, type HostServerOptions } from "./host-server.js";
import { openHostStore } from "./open-host-store.js";

const TOKEN = "token-acme-health-0123456789abcdef0123456789";
const scratch = mkdtempSync(join(tmpdir(), "scimkit-health-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const user = {
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
  userName: "ada@example.com",
  name: { givenName: "Ada", familyName: "Lovelace" },
  emails: [{ value: "ada@example.com", type: "work" }],
};

function app(options: Partial<HostServerOptions> = {}, lines: string[] = []) {
  return createHostApp({ store: memoryStore(), auth: staticTokenVerifier({ acme: TOKEN }), log: (line) => lines.push(line), ...options });
}

/** A port nobody listens on. */
async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 1));
    });
  });
}

describe("/healthz and /readyz", () => {
  it("answer 200 without a token, are not logged per request and never rate-limited", async () => {
    const lines: string[] = [];
    const host = app({ health: hostHealth(async () => {}), limits: { rate: { requestsPerSecond: 1, burst: 1 } } }, lines);
    for (let i = 0; i < 5; i += 1) {
      const live = await request(host).get("/healthz");
      expect(live.status).toBe(200);
      expect(live.body).toEqual({ status: "ok" });
      const ready = await request(host).get("/readyz");
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: "ok" });
      expect(ready.headers["cache-control"]).toBe("no-store");
    }
    expect(lines).toEqual([]);
  });

  it("answer HEAD, a trailing slash and any case as Express routes did; other methods and paths go on to a 404", async () => {
    const lines: string[] = [];
    const host = app({ health: hostHealth(async () => {}) }, lines);
    expect((await request(host).head("/healthz")).status).toBe(200);
    expect((await request(host).get("/readyz/")).status).toBe(200);
    expect((await request(host).get("/HealthZ")).body).toEqual({ status: "ok" });
    expect((await request(host).post("/healthz")).status).toBe(404);
    expect((await request(host).get("/healthz/deeper")).status).toBe(404);
    // Not probes: logged as any request is, and carrying the header every answer carries.
    const other = await request(host).get("/healthzz");
    expect(other.status).toBe(404);
    expect(other.headers["x-content-type-options"]).toBe("nosniff");
    expect(lines).toHaveLength(3);
  });

  it("/readyz answers 503 once the store is closed, and 200 while it answers", async () => {
    const database = await openHostStore(`sqlite:${join(scratch, "ready.db")}`);
    const lines: string[] = [];
    const host = app({ store: database.store, health: hostHealth(() => database.ping(), 1000) }, lines);
    expect((await request(host).get("/readyz")).status).toBe(200);
    await database.close();
    const ready = await request(host).get("/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: "unavailable", reason: "database unreachable" });
    // The cause is for the operator's log, not the unauthenticated client.
    expect(lines.some((line) => line.startsWith("error ") && line.includes("readiness check failed"))).toBe(true);
    expect((await request(host).get("/healthz")).status).toBe(200);
  });

  it("/readyz answers 503 when PostgreSQL is unreachable", { timeout: 20_000 }, async () => {
    const database = await openHostStore(`postgres://postgres@127.0.0.1:${await closedPort()}/scimkit`, { migrate: false });
    try {
      const ready = await request(app({ health: hostHealth(() => database.ping(), 3000) })).get("/readyz");
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: "unavailable", reason: "database unreachable" });
    } finally {
      await database.close();
    }
  });

  it("/readyz answers 503 within its timeout when the store hangs", async () => {
    const started = Date.now();
    const ready = await request(app({ health: hostHealth(() => new Promise(() => {}), 200) })).get("/readyz");
    expect(ready.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("/readyz answers 503 from the moment a shutdown begins; /healthz still 200", async () => {
    const health = hostHealth(async () => {});
    const host = app({ health });
    health.drain();
    const ready = await request(host).get("/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: "unavailable", reason: "shutting down" });
    expect((await request(host).get("/healthz")).status).toBe(200);
  });
});

describe("SCIMKIT_PUBLIC_URL", () => {
  it("builds Location and meta.location from the public URL, never from a forged Host or X-Forwarded-Host", async () => {
    const host = app({ publicUrl: "https://scim.example.com", trustProxy: true });
    const created = await request(host)
      .post("/scim/Organizations/acme/v2/Users")
      .set("Host", "evil.example")
      .set("X-Forwarded-Host", "evil.example")
      .set("X-Forwarded-Proto", "http")
      .set("Authorization", `Bearer ${TOKEN}`)
      .set("Content-Type", "application/scim+json")
      .send(JSON.stringify(user));
    expect(created.status).toBe(201);
    const location = `https://scim.example.com/scim/Organizations/acme/v2/Users/${created.body.id as string}`;
    expect(created.headers["location"]).toBe(location);
    expect(created.body.meta.location).toBe(location);
    const config = await request(host)
      .get("/scim/Organizations/acme/v2/ServiceProviderConfig")
      .set("Host", "evil.example")
      .set("Authorization", `Bearer ${TOKEN}`);
    expect(JSON.stringify(config.body)).not.toContain("evil.example");
  });

  it("without it, an app from createHostApp alone follows the request's Host (startHostServer uses its own address: host-transport.test.ts)", async () => {
    const created = await request(app())
      .post("/scim/Organizations/acme/v2/Users")
      .set("Host", "evil.example")
      .set("Authorization", `Bearer ${TOKEN}`)
      .set("Content-Type", "application/scim+json")
      .send(JSON.stringify(user));
    expect(created.headers["location"]).toMatch(/^http:\/\/evil\.example\//);
  });
});

describe("SCIMKIT_LOG_FORMAT=json", () => {
  it("logs each request as one JSON object: time, level, msg, method, path, status, ms, orgId", async () => {
    const lines: string[] = [];
    const host = app({ logFormat: "json" }, lines);
    await request(host)
      .get("/scim/Organizations/acme/v2/Users?filter=userName%20eq%20%22secret%22")
      .set("Authorization", `Bearer ${TOKEN}`);
    await request(host).get("/scim/Organizations/acme/v2/Users");
    const [ok, refused] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(ok).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      level: "info",
      msg: "GET /scim/Organizations/acme/v2/Users 200",
      method: "GET",
      path: "/scim/Organizations/acme/v2/Users",
      status: 200,
      ms: expect.any(Number),
      orgId: "acme",
    });
    expect(refused).toMatchObject({ level: "warn", status: 401, orgId: "acme" });
    // Never the query: filters can hold personal data.
    expect(lines.join("\n")).not.toContain("secret");
  });
});
