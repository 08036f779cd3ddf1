/**
 * The limits the example host sets by default (issue 7): body size, filter length and depth, Bulk
 * operations and payload, the page-size maximum, requests per organization per second, and the
 * HTTP server's timeouts against clients that trickle their headers or body or sit idle.
 */
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { issueApiKey } from "@scimkit/server";
import { memoryAnalyticsStore } from "@scimkit/server";
import { createTokenStore, staticTokenVerifier } from "scimkit";
import { memoryAuditTrail } from "scimkit/audit";
import { memoryStore } from "scimkit/memory";
import { tokenBucketLimiter } from "scimkit/rate-limit";
import {
  defaultHostLimits,
  defaultHostTimeouts,
  startHostServer,
  type HostLimits,
  type HostTimeouts,
  type RunningHost,
} from "./host-server.js";
import { organizationRecord } from "./organization-record.fixture.js";

const TOKEN = "acme-host-limits-token";
const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
const running: RunningHost[] = [];

afterEach(async () => {
  for (const host of running.splice(0)) {
    host.server.closeAllConnections();
    await host.close();
  }
});

async function start(options: { readonly limits?: HostLimits; readonly timeouts?: HostTimeouts } = {}): Promise<RunningHost> {
  const host = await startHostServer({
    store: memoryStore(),
    auth: staticTokenVerifier({ acme: TOKEN }),
    log: () => {},
    onEvent: () => {},
    port: 0,
    ...options,
  });
  running.push(host);
  return host;
}

interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

async function call(host: RunningHost, path: string, init: { readonly method?: string; readonly body?: string } = {}): Promise<Reply> {
  const response = await fetch(`${host.baseUrl("acme")}${path}`, {
    method: init.method ?? "GET",
    headers: { Authorization: `Bearer ${TOKEN}`, ...(init.body === undefined ? {} : { "Content-Type": "application/scim+json" }) },
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** `(((… userName pr …)))` nested `depth` levels. */
const nested = (depth: number): string => `${"(".repeat(depth)}userName pr${")".repeat(depth)}`;

describe("the host's request limits, by default", () => {
  it("bounds filters to 4,096 characters and 16 levels with 400 invalidFilter naming the limit", async () => {
    const host = await start({ limits: { rateLimit: false } });
    expect((await call(host, `/Users?filter=${encodeURIComponent(nested(16))}`)).status).toBe(200);
    const deep = await call(host, `/Users?filter=${encodeURIComponent(nested(17))}`);
    expect(deep).toMatchObject({ status: 400, body: { status: "400", scimType: "invalidFilter" } });
    expect(deep.body["detail"]).toMatch(/nested deeper than 16 levels/);
    const long = await call(host, "/Users/.search", {
      method: "POST",
      body: JSON.stringify({ filter: `userName eq "${"a".repeat(4096)}"` }),
    });
    expect(long).toMatchObject({ status: 400, body: { scimType: "invalidFilter" } });
    expect(long.body["detail"]).toMatch(/the limit is 4096/);
  });

  it("bounds bodies to 1 MB, Bulk to 1,000 operations and 1 MiB, and pages to 1,000 resources, as it advertises", async () => {
    const host = await start({ limits: { rateLimit: false } });
    const config = await fetch(`${host.baseUrl("acme")}/ServiceProviderConfig`).then(
      (response) => response.json() as Promise<Record<string, unknown>>,
    );
    expect(config["bulk"]).toMatchObject({ supported: true, maxOperations: 1000, maxPayloadSize: 1_048_576 });
    expect(config["pagination"]).toMatchObject({ defaultPageSize: 100, maxPageSize: 1000 });
    const big = JSON.stringify({ schemas: [USER_SCHEMA], userName: "big", displayName: "x".repeat(1_100_000) });
    expect(await call(host, "/Users", { method: "POST", body: big })).toMatchObject({ status: 413, body: { status: "413" } });
    const operations = Array.from({ length: 1001 }, (_, i) => ({ method: "DELETE", path: `/Users/u${i}` }));
    const bulk = await call(host, "/Bulk", {
      method: "POST",
      body: JSON.stringify({ schemas: ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"], Operations: operations }),
    });
    expect(bulk).toMatchObject({ status: 413, body: { status: "413" } });
    expect(defaultHostLimits).toMatchObject({
      bodyLimit: "1mb",
      bulk: { maxOperations: 1000, maxPayloadSize: 1_048_576 },
      paging: { maxPageSize: 1000 },
    });
  });

  it("runs one expensive request per organization at a time, queues 16 more and refuses the next with 429 and Retry-After", async () => {
    let open = (): void => {};
    const opened = new Promise<void>((resolve) => (open = resolve));
    const base = memoryStore();
    const host = await startHostServer({
      // Every list waits until the test opens the store, so the queue fills before any finishes.
      store: { ...base, list: async (request) => opened.then(() => base.list(request)) },
      auth: staticTokenVerifier({ acme: TOKEN }),
      log: () => {},
      onEvent: () => {},
      port: 0,
      limits: { rateLimit: false },
    });
    running.push(host);
    const { concurrency, maxQueued } = defaultHostLimits.fairShare;
    const replies = Array.from({ length: concurrency + maxQueued + 1 }, () => call(host, "/Users?sortBy=userName"));
    const first = await Promise.race(replies);
    expect(first.status).toBe(429);
    expect(first.body["detail"]).toMatch(/1 expensive request running and 16 waiting/);
    expect(Number(first.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    open();
    const statuses = (await Promise.all(replies)).map((reply) => reply.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(concurrency + maxQueued);
    expect(statuses.filter((status) => status === 429)).toHaveLength(1);
  });

  it("runs one expensive request per tree of organizations: a division's list waits for its sibling's, another tree's does not", async () => {
    const opened = new Map<string, () => void>();
    const started: string[] = [];
    const base = memoryStore();
    const scimTokens = createTokenStore();
    const analytics = memoryAnalyticsStore({ resources: base, tokens: scimTokens });
    await analytics.createOrganization(organizationRecord("holding"));
    await analytics.createOrganization(organizationRecord("division-a", "holding"));
    await analytics.createOrganization(organizationRecord("division-b", "holding"));
    await analytics.createOrganization(organizationRecord("other"));
    const tokens = { "division-a": "division-a-token", "division-b": "division-b-token", other: "other-token" };
    const host = await startHostServer({
      // Each sorted list waits in the store until the test opens it, so the test decides what runs when.
      store: {
        ...base,
        list: async (request) => {
          if (request.sort === undefined) return base.list(request);
          started.push(request.orgId);
          await new Promise<void>((resolve) => opened.set(request.orgId, resolve));
          return base.list(request);
        },
      },
      auth: staticTokenVerifier(tokens),
      analytics: { store: analytics, scimTokens },
      log: () => {},
      onEvent: () => {},
      port: 0,
      limits: { rateLimit: false },
    });
    running.push(host);
    const get = (orgId: keyof typeof tokens, query: string) =>
      fetch(`${host.baseUrl(orgId)}/Users?${query}`, { headers: { Authorization: `Bearer ${tokens[orgId]}` } });
    const waitFor = async (orgId: string): Promise<void> => {
      for (let attempt = 0; attempt < 2000 && !opened.has(orgId); attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(opened.has(orgId)).toBe(true);
    };
    const first = get("division-a", "sortBy=userName");
    await waitFor("division-a");
    const sibling = get("division-b", "sortBy=userName");
    const other = get("other", "sortBy=userName");
    await waitFor("other");
    // The waiting division's lookups are answered: only its expensive list waits, behind its sibling's.
    expect((await get("division-b", "count=1")).status).toBe(200);
    expect(started).toEqual(["division-a", "other"]);
    opened.get("division-a")?.();
    await waitFor("division-b");
    opened.get("division-b")?.();
    opened.get("other")?.();
    expect((await Promise.all([first, sibling, other])).map((response) => response.status)).toEqual([200, 200, 200]);
    expect(started).toEqual(["division-a", "other", "division-b"]);
  });

  it("bounds PATCH operations to 10,000, values per attribute to 1,000 and members per request to 20,000, naming the limit", async () => {
    const host = await start({ limits: { rateLimit: false } });
    const emails = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ value: `e${i}@example.com`, type: i === 0 ? "work" : "other" }));
    const user = (count: number) =>
      JSON.stringify({ schemas: [USER_SCHEMA], userName: `u${count}`, name: { givenName: "G", familyName: "F" }, emails: emails(count) });
    const created = await call(host, "/Users", { method: "POST", body: user(1000) });
    expect(created.status).toBe(201);
    const many = await call(host, "/Users", { method: "POST", body: user(1001) });
    expect(many).toMatchObject({ status: 400, body: { scimType: "invalidValue" } });
    expect(many.body["detail"]).toMatch(/holds 1001 values; the limit is 1000 \(maxValues\)/);
    const operations = Array.from({ length: 10_001 }, () => ({ op: "replace", path: "nickName", value: "n" }));
    const patch = await call(host, `/Users/${String(created.body["id"])}`, {
      method: "PATCH",
      body: JSON.stringify({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: operations }),
    });
    expect(patch).toMatchObject({ status: 413, body: { status: "413" } });
    expect(patch.body["detail"]).toBe("The PATCH request has 10001 operations; the limit is 10000 (maxPatchOperations).");
    expect(defaultHostLimits.writeLimits).toEqual({ maxPatchOperations: 10_000, maxValues: 1_000, maxMembers: 20_000 });
  });

  it("takes other figures from its options", async () => {
    const host = await start({
      limits: {
        rateLimit: false,
        filterLimits: { maxDepth: 2 },
        bulk: { maxOperations: 3 },
        writeLimits: { maxPatchOperations: 2 },
        paging: { maxPageSize: 7 },
      },
    });
    expect((await call(host, `/Users?filter=${encodeURIComponent(nested(3))}`)).status).toBe(400);
    const created = await call(host, "/Users", {
      method: "POST",
      body: JSON.stringify({
        schemas: [USER_SCHEMA],
        userName: "w",
        name: { givenName: "G", familyName: "F" },
        emails: [{ value: "w@example.com", type: "work" }],
      }),
    });
    const nick = { op: "replace", path: "nickName", value: "n" };
    const patch = await call(host, `/Users/${String(created.body["id"])}`, {
      method: "PATCH",
      body: JSON.stringify({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [nick, nick, nick] }),
    });
    expect(patch).toMatchObject({ status: 413, body: { status: "413" } });
    expect(patch.body["detail"]).toMatch(/the limit is 2 \(maxPatchOperations\)/);
    const config = await fetch(`${host.baseUrl("acme")}/ServiceProviderConfig`).then(
      (response) => response.json() as Promise<Record<string, unknown>>,
    );
    expect(config["bulk"]).toMatchObject({ maxOperations: 3, maxPayloadSize: 1_048_576 });
    expect(config["pagination"]).toMatchObject({ defaultPageSize: 7, maxPageSize: 7 });
  });

  // A thousand requests at once: on a loaded machine they take longer than the default 5 s, which
  // the assertions allow for (they read the time it took); the test's bound must too.
  it("limits each organization to 100 requests per second with bursts of 200: 429 with Retry-After beyond", {
    timeout: 60_000,
  }, async () => {
    const host = await start();
    const started = performance.now();
    const replies = await Promise.all(Array.from({ length: 1000 }, () => call(host, "/Schemas")));
    const seconds = (performance.now() - started) / 1000;
    const allowed = replies.filter((reply) => reply.status === 200).length;
    const refused = replies.filter((reply) => reply.status === 429);
    expect(allowed + refused.length).toBe(1000);
    // The burst, plus what refilled while the requests were in flight.
    expect(allowed).toBeGreaterThanOrEqual(defaultHostLimits.burst);
    expect(allowed).toBeLessThanOrEqual(defaultHostLimits.burst + Math.ceil(defaultHostLimits.requestsPerSecond * seconds) + 1);
    // Unless the machine took over 7 s for them, the refill cannot have covered all 1,000.
    if (seconds < 7) expect(refused.length).toBeGreaterThan(0);
    for (const reply of refused) {
      expect(reply.body).toEqual({
        schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"],
        status: "429",
        detail: expect.stringMatching(/retry after 1 second/),
      });
      expect(reply.headers.get("retry-after")).toBe("1");
      expect(reply.headers.get("content-type")).toMatch(/^application\/scim\+json/);
    }
  });

  it("limits and audits the analytics interface too: a bucket per API key, every write in the host's trail", async () => {
    const resources = memoryStore();
    const scimTokens = createTokenStore();
    const analytics = memoryAnalyticsStore({ resources, tokens: scimTokens });
    const audit = memoryAuditTrail();
    const { key } = await issueApiKey(analytics, { kind: "operator" });
    const host = await startHostServer({
      store: resources,
      auth: staticTokenVerifier({ acme: TOKEN }),
      analytics: { store: analytics, scimTokens },
      audit,
      log: () => {},
      onEvent: () => {},
      port: 0,
    });
    running.push(host);
    const analyticsCall = (method: string, path: string, body?: unknown) =>
      fetch(`${host.analyticsUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const created = await analyticsCall("POST", "/organizations", { name: "Initech" });
    expect(created.status).toBe(201);
    const { organization } = (await created.json()) as { organization: { id: string } };
    expect(await audit.list(organization.id)).toEqual([
      expect.objectContaining({
        orgId: organization.id,
        operation: "analytics.createOrganization",
        outcome: "success",
        status: 201,
        via: "analytics",
      }),
    ]);

    const started = performance.now();
    const replies = await Promise.all(Array.from({ length: 600 }, () => analyticsCall("GET", "/organizations")));
    const seconds = (performance.now() - started) / 1000;
    const statuses = replies.map((reply) => reply.status);
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(defaultHostLimits.burst);
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(
      defaultHostLimits.burst + Math.ceil(defaultHostLimits.requestsPerSecond * seconds) + 1,
    );
    // Unless the machine took over 3.5 s for them, the refill cannot have covered all 600.
    if (seconds < 3.5) expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
    for (const refused of replies.filter((reply) => reply.status === 429)) {
      expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(refused.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    }
    // SCIM's own bucket is the organization's, untouched by the analytics burst.
    expect((await call(host, "/Schemas")).status).toBe(200);
  });

  it("takes a limiter of the host's, or none", async () => {
    const strict = await start({ limits: { rateLimit: tokenBucketLimiter({ requestsPerSecond: 1, burst: 1 }) } });
    expect((await call(strict, "/Schemas")).status).toBe(200);
    expect((await call(strict, "/Schemas")).status).toBe(429);
    const open = await start({ limits: { rateLimit: false } });
    const replies = await Promise.all(Array.from({ length: 400 }, () => call(open, "/Schemas")));
    expect(replies.every((reply) => reply.status === 200)).toBe(true);
  });
});

/** A raw connection to the host, collecting what the server sends until it closes the socket. */
async function rawConnection(
  host: RunningHost,
): Promise<{ readonly socket: Socket; readonly received: () => string; readonly closed: Promise<number> }> {
  const socket = connect(host.port, "127.0.0.1");
  await once(socket, "connect");
  let data = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => void (data += chunk));
  socket.on("error", () => {});
  const closed = new Promise<number>((resolve) => socket.once("close", () => resolve(performance.now())));
  return { socket, received: () => data, closed };
}

/** Writes `chunk` every `everyMs` until the socket closes. */
function trickle(socket: Socket, chunk: string, everyMs: number): void {
  const timer = setInterval(() => {
    if (socket.destroyed || socket.writableEnded) clearInterval(timer);
    else socket.write(chunk);
  }, everyMs);
  socket.once("close", () => clearInterval(timer));
}

describe("the host's server timeouts", () => {
  it("sets headersTimeout, requestTimeout and keepAliveTimeout explicitly: 10 s, 30 s and 5 s by default", async () => {
    const host = await start();
    expect(host.server.headersTimeout).toBe(10_000);
    expect(host.server.requestTimeout).toBe(30_000);
    expect(host.server.keepAliveTimeout).toBe(5_000);
    expect(defaultHostTimeouts).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 });
  });

  it("cuts off a client that trickles its headers with 408 once headersTimeout has passed", async () => {
    const host = await start({ timeouts: { headersTimeoutMs: 400, requestTimeoutMs: 2_000 } });
    const { socket, received, closed } = await rawConnection(host);
    const sent = performance.now();
    socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\n");
    trickle(socket, "X-Slow: 1\r\n", 50);
    const elapsed = (await closed) - sent;
    expect(received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(elapsed).toBeGreaterThanOrEqual(350);
    expect(elapsed).toBeLessThan(2_000);
  });

  it("cuts off a client that trickles its body once requestTimeout has passed, and stores nothing", async () => {
    const host = await start({ limits: { rateLimit: false }, timeouts: { headersTimeoutMs: 400, requestTimeoutMs: 800 } });
    const { socket, closed } = await rawConnection(host);
    const body = JSON.stringify({ schemas: [USER_SCHEMA], userName: "slowpoke" });
    const sent = performance.now();
    socket.write(
      `POST /scim/Organizations/acme/v2/Users HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKEN}\r\n` +
        `Content-Type: application/scim+json\r\nContent-Length: ${body.length + 1000}\r\n\r\n${body.slice(0, 5)}`,
    );
    trickle(socket, " ", 50);
    const elapsed = (await closed) - sent;
    expect(elapsed).toBeGreaterThanOrEqual(750);
    expect(elapsed).toBeLessThan(3_000);
    const listed = await call(host, "/Users");
    expect(listed.body["totalResults"]).toBe(0);
  });

  it("closes an idle keep-alive connection once keepAliveTimeout has passed", async () => {
    const host = await start({ timeouts: { keepAliveTimeoutMs: 300 } });
    const { socket, received, closed } = await rawConnection(host);
    socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n");
    while (!received().includes('{"status":"ok"}')) await new Promise((resolve) => setTimeout(resolve, 10));
    const answered = performance.now();
    expect(received()).toMatch(/^HTTP\/1\.1 200 /);
    const idle = (await closed) - answered;
    expect(idle).toBeGreaterThanOrEqual(250);
    // Node closes the socket a second after the timeout it advertises, so a client that honours
    // `Keep-Alive: timeout` never reuses a connection the server is closing.
    expect(idle).toBeLessThan(3_000);
  });

  it("serves a client that sends promptly, within every timeout", async () => {
    const host = await start({ timeouts: { headersTimeoutMs: 400, requestTimeoutMs: 800, keepAliveTimeoutMs: 300 } });
    const user = {
      schemas: [USER_SCHEMA],
      userName: "prompt",
      name: { givenName: "P", familyName: "Rompt" },
      emails: [{ value: "prompt@example.com", type: "work" }],
    };
    const created = await call(host, "/Users", { method: "POST", body: JSON.stringify(user) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  });
});

describe("the host's answers to broken transport", () => {
  it("answers a malformed %-escape in the organization with a SCIM 400, not Express's HTML page", async () => {
    const host = await start();
    const response = await fetch(`http://127.0.0.1:${host.port}/scim/Organizations/%FF/v2/Users`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toMatch(/^application\/scim\+json/);
    expect(await response.json()).toMatchObject({ status: "400", scimType: "invalidSyntax" });
  });

  it("answers Expect: 100-continue with a Content-Length over the limit with 413 at once, no 100 Continue first", async () => {
    const host = await start();
    const { socket, received, closed } = await rawConnection(host);
    socket.write(
      [
        "POST /scim/Organizations/acme/v2/Users HTTP/1.1",
        "Host: localhost",
        `Authorization: Bearer ${TOKEN}`,
        "Content-Type: application/scim+json",
        "Content-Length: 5000000000",
        "Expect: 100-continue",
        "",
        "",
      ].join("\r\n"),
    );
    await closed;
    expect(received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(received()).not.toContain("100 Continue");
  });

  it("sends 100 Continue for a body it reads, and creates the user", async () => {
    const host = await start();
    const body = JSON.stringify({
      schemas: [USER_SCHEMA],
      userName: "expect",
      name: { givenName: "E", familyName: "X" },
      emails: [{ value: "expect@example.com", type: "work" }],
    });
    const { socket, received } = await rawConnection(host);
    socket.write(
      [
        "POST /scim/Organizations/acme/v2/Users HTTP/1.1",
        "Host: localhost",
        `Authorization: Bearer ${TOKEN}`,
        "Content-Type: application/scim+json",
        `Content-Length: ${Buffer.byteLength(body)}`,
        "Expect: 100-continue",
        "",
        "",
      ].join("\r\n"),
    );
    while (!received().includes("100 Continue")) await new Promise((resolve) => setTimeout(resolve, 5));
    socket.write(body);
    while (!received().includes("201 Created")) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(received()).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
    socket.destroy();
  });
});
