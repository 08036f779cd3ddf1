/**
 * Errors of the transport, on Express 4 and 5: a malformed %-escape anywhere in the path is a SCIM
 * 400 — in the app's own layer too, with `scimErrorHandler` mounted after the router — never
 * Express's HTML page; an organization or resource id no store can hold (U+0000, a lone
 * surrogate) is a 404 before any store or token verifier is asked, and never a 500 or an
 * `onError` report; a `Content-Length` over the limit with `Expect: 100-continue` is a 413 at
 * once, with `deferContinue` without `100 Continue` (bodies sent anyway: transport-large-body.test.ts).
 */
import express, { type Express } from "express";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessTokenIssuer, generateSigningKey } from "../../src/auth/access-token-issuer.js";
import { createTokenStore } from "../../src/auth/hashed-token-store.js";
import { eventSigningKeys, type EventSigningKeys } from "../../src/events/event-signing-keys.js";
import { memoryEventReceiverStore, memorySigningKeyRepository } from "../../src/events/memory-event-receiver-store.js";
import { securityEventDelivery, type SecurityEventDelivery } from "../../src/events/security-event-delivery.js";
import { securityEventJwks } from "../../src/http/security-events/security-event-jwks.js";
import { securityEventPollEndpoint } from "../../src/http/security-events/security-event-poll-endpoint.js";
import { createOAuthTokenRouter } from "../../src/http/oauth/create-oauth-token-router.js";
import { oauthPathErrorHandler } from "../../src/http/oauth/oauth-error.js";
import type { EventOutbox } from "../../src/store/event-outbox.js";
import type { TokenStore } from "../../src/auth/hashed-token-store.js";
import type { TokenVerifier } from "../../src/auth/token-verifier.js";
import { createScimRouter } from "../../src/http/create-scim-router.js";
import { scimErrorHandler } from "../../src/http/error-rendering/error-handler.js";
import type { ScimRouterOptions } from "../../src/http/scim-router-options.js";
import { memoryStore } from "../../src/store/memory/memory-store.js";
import type { ResourceStore } from "../../src/store/resource-store.js";
import { createTestSchema, describePostgres } from "../../src/store/sql/postgres-test-database.fixture.js";
import { sqlStore } from "../../src/store/sql/sql-store.js";
import { BULK_REQUEST_SCHEMA } from "./provisioning-helpers.js";
import { ERROR_SCHEMA, GROUP_SCHEMA, PATCH_SCHEMA, USER_SCHEMA, userBody } from "./harness.js";
import { type LoopbackServer, listenOnLoopback } from "./loopback-server.js";

interface Recorded {
  readonly app: Express;
  readonly token: string;
  /** Every store call, as `method orgId id`. */
  readonly storeCalls: string[];
  /** Every `verify` call's organization. */
  readonly verified: string[];
  readonly errors: unknown[];
}

/** Records the store calls that name a resource or organization. */
function recordingStore(inner: ResourceStore, calls: string[]): ResourceStore {
  return {
    ...(inner.capabilities ? { capabilities: inner.capabilities } : {}),
    create: (call) => (calls.push(`create ${call.orgId} ${call.id}`), inner.create(call)),
    get: (call) => (calls.push(`get ${call.orgId} ${call.id}`), inner.get(call)),
    list: (call) => (calls.push(`list ${call.orgId}`), inner.list(call)),
    update: (call) => (calls.push(`update ${call.orgId} ${call.id}`), inner.update(call)),
    delete: (call) => (calls.push(`delete ${call.orgId} ${call.id}`), inner.delete(call)),
  };
}

function recordingVerifier(inner: TokenVerifier, calls: string[]): TokenVerifier {
  return { verify: (token, orgId, context) => (calls.push(orgId), inner.verify(token, orgId, context)) };
}

/** The README's app: the router at the spec's path, `scimErrorHandler` after it at `/scim`. */
async function recordedApp(
  options: {
    store?: ResourceStore;
    auth?: TokenVerifier & { issue?: unknown };
    errorHandler?: boolean;
    router?: Partial<ScimRouterOptions>;
  } = {},
): Promise<Recorded> {
  const tokens = createTokenStore();
  const token = (await tokens.issue("acme")).token;
  const storeCalls: string[] = [];
  const verified: string[] = [];
  const errors: unknown[] = [];
  const app = express();
  app.use(
    "/scim/Organizations/:orgId/v2",
    createScimRouter({
      store: recordingStore(options.store ?? memoryStore(), storeCalls),
      auth: recordingVerifier(options.auth ?? tokens, verified),
      onError: (error) => errors.push(error),
      ...options.router,
    }),
  );
  if (options.errorHandler !== false) app.use("/scim", scimErrorHandler());
  return { app, token, storeCalls, verified, errors };
}

function expectScimJson(response: request.Response, status: number, scimType?: string): void {
  expect(response.status, response.text).toBe(status);
  expect(String(response.headers["content-type"])).toMatch(/^application\/scim\+json/);
  expect(response.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}) });
  expect(response.text).not.toMatch(/<html|<pre>|at .*\.js:\d+/i);
}

describe("a malformed %-escape in the path", () => {
  const inOrganization = [
    "/scim/Organizations/%FF/v2/Users",
    "/scim/Organizations/%E0%A4%A/v2/ServiceProviderConfig",
    "/scim/Organizations/a%/v2/Users/x",
    "/scim/Organizations/%ED%A0%80/v2/Groups",
  ];

  it("in the organization, without scimErrorHandler, gets Express's HTML page: why the README mounts it", async () => {
    const t = await recordedApp({ errorHandler: false });
    const response = await request(t.app).get("/scim/Organizations/%FF/v2/Users").set("Authorization", `Bearer ${t.token}`);
    expect(response.status).toBe(400);
    expect(String(response.headers["content-type"])).toMatch(/^text\/html/);
  });

  for (const path of inOrganization) {
    it(`in the organization (${path}) is a SCIM 400 invalidSyntax with scimErrorHandler, asking no one`, async () => {
      const t = await recordedApp();
      expectScimJson(await request(t.app).get(path).set("Authorization", `Bearer ${t.token}`), 400, "invalidSyntax");
      expectScimJson(
        await request(t.app)
          .post(path)
          .set("Content-Type", "application/scim+json")
          .send(JSON.stringify(userBody("x"))),
        400,
        "invalidSyntax",
      );
      expect(t.verified).toEqual([]);
      expect(t.storeCalls).toEqual([]);
      expect(t.errors).toEqual([]);
    });
  }

  for (const path of ["/Users/%FF", "/Us%FFers", "/Users/%E0%A4%A/extra", "/Groups/a%zz", "/%C0%AF"]) {
    it(`after the organization (${path}) is a SCIM 400 invalidSyntax from the router itself`, async () => {
      const t = await recordedApp({ errorHandler: false });
      expectScimJson(
        await request(t.app).get(`/scim/Organizations/acme/v2${path}`).set("Authorization", `Bearer ${t.token}`),
        400,
        "invalidSyntax",
      );
      expect(t.storeCalls).toEqual([]);
      expect(t.errors).toEqual([]);
    });
  }

  it("scimErrorHandler passes the app's own errors on to the app's next error handler", async () => {
    const app = express();
    app.get("/scim/health", () => {
      throw new Error("the app's own failure");
    });
    app.use("/scim", scimErrorHandler());
    app.use((error: Error, _request: express.Request, response: express.Response, _next: express.NextFunction) => {
      response.status(599).json({ seen: error.message });
    });
    const response = await request(app).get("/scim/health");
    expect(response.status).toBe(599);
    expect(response.body).toEqual({ seen: "the app's own failure" });
  });
});

const NUL_PATHS = ["/Users/%00", "/Users/a%00b", "/Groups/%00"];

/** The same requests on any store: every one a 404, and the store never asked about such an id. */
async function expectImpossibleIdsAnswered(t: Recorded): Promise<void> {
  for (const org of ["%00", "a%00b", "acme%00"]) {
    for (const path of ["/Users", "/Users/x", "/ServiceProviderConfig"]) {
      expectScimJson(await request(t.app).get(`/scim/Organizations/${org}/v2${path}`).set("Authorization", `Bearer ${t.token}`), 404);
    }
  }
  expect(t.verified).toEqual([]);
  for (const path of NUL_PATHS) {
    const url = `/scim/Organizations/acme/v2${path}`;
    const auth = `Bearer ${t.token}`;
    expectScimJson(await request(t.app).get(url).set("Authorization", auth), 404);
    expectScimJson(await request(t.app).delete(url).set("Authorization", auth), 404);
    expectScimJson(
      await request(t.app)
        .put(url)
        .set("Authorization", auth)
        .set("Content-Type", "application/scim+json")
        .send(JSON.stringify(path.startsWith("/Users") ? userBody("nul") : { schemas: [GROUP_SCHEMA], displayName: "nul" })),
      404,
    );
    const patch = { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "displayName", value: "x" }] };
    expectScimJson(
      await request(t.app).patch(url).set("Authorization", auth).set("Content-Type", "application/scim+json").send(JSON.stringify(patch)),
      404,
    );
  }
  // In Bulk the path is JSON, so it can also carry a lone surrogate, which percent-decoding cannot.
  const operations = ["/Users/\u0000", "/Users/\ud800", "/Groups/x\udc00y"].flatMap((path) => [
    { method: "DELETE", path },
    { method: "PATCH", path, data: { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "displayName", value: "x" }] } },
    { method: "PUT", path, data: path.startsWith("/Users") ? userBody("bulk-nul") : { schemas: [GROUP_SCHEMA], displayName: "g" } },
  ]);
  const bulk = await request(t.app)
    .post("/scim/Organizations/acme/v2/Bulk")
    .set("Authorization", `Bearer ${t.token}`)
    .set("Content-Type", "application/scim+json")
    .send(JSON.stringify({ schemas: [BULK_REQUEST_SCHEMA], Operations: operations }));
  expect(bulk.status, bulk.text).toBe(200);
  const statuses = (bulk.body as { Operations: { status: string }[] }).Operations.map((operation) => operation.status);
  expect(statuses).toEqual(operations.map(() => "404"));
  expect(t.storeCalls.filter((call) => /[\u0000\ud800-\udfff]/.test(call))).toEqual([]);
  expect(t.errors).toEqual([]);
}

describe("ids no store can hold", () => {
  it("U+0000 in the organization or a resource id, a lone surrogate in a Bulk path: 404, asking no store or verifier about them", async () => {
    await expectImpossibleIdsAnswered(await recordedApp());
  });

  it("an organization function that yields such an id: 404 before authentication", async () => {
    for (const id of ["a\u0000b", "\ud800", "x\udfff"]) {
      const t = await recordedApp({ router: { organization: () => id } });
      expectScimJson(await request(t.app).get("/scim/Organizations/acme/v2/Users").set("Authorization", `Bearer ${t.token}`), 404);
      expect(t.verified).toEqual([]);
      expect(t.storeCalls).toEqual([]);
    }
  });
});

describePostgres("ids no store can hold, on PostgreSQL", (url) => {
  it("404 for each, no 500, no onError report, with the SQL token store as the verifier", async () => {
    const schema = await createTestSchema(url);
    const store = await sqlStore({ postgres: schema.pool() });
    try {
      const t = await recordedApp({ store, auth: store.tokens });
      const issued = (await store.tokens.issue("acme")).token;
      await expectImpossibleIdsAnswered({ ...t, token: issued });
      // And the store is really PostgreSQL, answering the possible ids.
      const created = await request(t.app)
        .post("/scim/Organizations/acme/v2/Users")
        .set("Authorization", `Bearer ${issued}`)
        .set("Content-Type", "application/scim+json")
        .send(JSON.stringify(userBody("pg-user")));
      expect(created.status, created.text).toBe(201);
    } finally {
      await store.close();
      await schema.drop();
    }
  });
});

/** What a raw client saw on one connection until the server closed it or `ms` passed. */
function rawExchange(port: number, head: string, body = "", ms = 2000): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    let closed = false;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed });
    }, ms);
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
    });
    socket.on("end", () => {
      closed = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closed });
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.write(head + body);
  });
}

describe("a Content-Length over the body limit", () => {
  let server: LoopbackServer;
  let port: number;
  let t: Recorded;

  beforeAll(async () => {
    t = await recordedApp({ router: { bodyLimit: "1kb", bulk: { maxPayloadSize: 2048 } } });
    server = await listenOnLoopback(t.app);
    port = server.port;
  });
  afterAll(() => server.close());

  const head = (path: string, length: number, expect100: boolean): string =>
    [
      `POST /scim/Organizations/acme/v2${path} HTTP/1.1`,
      "Host: localhost",
      `Authorization: Bearer ${t.token}`,
      "Content-Type: application/scim+json",
      `Content-Length: ${length}`,
      ...(expect100 ? ["Expect: 100-continue"] : []),
      "",
      "",
    ].join("\r\n");

  for (const path of ["/Users", "/Bulk"]) {
    it(`with Expect: 100-continue on ${path}: 413 at once, no 100 Continue before it, the connection closed`, async () => {
      const { text, closed } = await rawExchange(port, head(path, 10_000_000_000, true));
      expect(text).toMatch(/^HTTP\/1\.1 413 /);
      expect(text).not.toContain("100 Continue");
      expect(text).toMatch(/\r\nconnection: close\r\n/i);
      expect(JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4))).toMatchObject({ schemas: [ERROR_SCHEMA], status: "413" });
      // The server did not wait for the ten gigabytes: it answered and hung up.
      expect(closed).toBe(true);
    });
  }

  it("a body within the limit with Expect: 100-continue gets 100 Continue once the router reads it, and is created", async () => {
    const body = JSON.stringify(userBody("expecting"));
    const outcome = await new Promise<{ continued: boolean; status: number | undefined }>((resolve, reject) => {
      let continued = false;
      const call = httpRequest({
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/scim/Organizations/acme/v2/Users",
        headers: {
          Authorization: `Bearer ${t.token}`,
          "Content-Type": "application/scim+json",
          "Content-Length": Buffer.byteLength(body),
          Expect: "100-continue",
        },
      });
      call.on("continue", () => {
        continued = true;
        call.end(body);
      });
      call.on("response", (response) => {
        response.resume();
        response.on("end", () => resolve({ continued, status: response.statusCode }));
      });
      call.on("error", reject);
    });
    expect(outcome).toEqual({ continued: true, status: 201 });
  });

  it("an unauthenticated request with Expect: 100-continue: 401 without 100 Continue", async () => {
    const unauthenticated = head("/Users", 500, true).replace(/Authorization: [^\r]+\r\n/, "");
    const { text } = await rawExchange(port, unauthenticated, "", 500);
    expect(text).toMatch(/^HTTP\/1\.1 401 /);
    expect(text).not.toContain("100 Continue");
  });
});

describe("the body limit option", () => {
  it("refuses at startup a limit Express's parser would read as no limit", () => {
    expect(() => createScimRouter({ store: memoryStore(), auth: createTokenStore(), bodyLimit: "lots" })).toThrow(/bodyLimit/);
  });

  it("still answers an oversized body sent with a Content-Length under supertest with a SCIM 413", async () => {
    const t = await recordedApp({ router: { bodyLimit: 100 } });
    const response = await request(t.app)
      .post("/scim/Organizations/acme/v2/Users")
      .set("Authorization", `Bearer ${t.token}`)
      .set("Content-Type", "application/scim+json")
      .send(JSON.stringify({ schemas: [USER_SCHEMA], userName: "x".repeat(500) }));
    expectScimJson(response, 413);
    expect(t.storeCalls).toEqual([]);
  });
});

/** What the token endpoint asks of its clients. */
type OAuthClients = Pick<TokenStore, "verify" | "list">;

/** The token endpoint and the events endpoints as an app mounts them, with what each asked its store. */
async function outsideScimApp(clients: OAuthClients): Promise<{ app: Express; asked: string[] }> {
  const asked: string[] = [];
  const recordingClients: OAuthClients = {
    verify: (token, orgId, context) => (asked.push(`verify ${orgId}`), clients.verify(token, orgId, context)),
    list: (orgId) => (asked.push(`list ${orgId}`), clients.list(orgId)),
  };
  const keys = eventSigningKeys(memorySigningKeyRepository());
  const recordingKeys: EventSigningKeys = { ...keys, jwks: (orgId) => (asked.push(`jwks ${orgId}`), keys.jwks(orgId)) };
  const receivers = memoryEventReceiverStore();
  const delivery = securityEventDelivery({ outbox: memoryStore().events as EventOutbox, receivers, keys, issuer: (orgId) => orgId });
  const recordingDelivery: SecurityEventDelivery = {
    ...delivery,
    receivers: (orgId) => (asked.push(`receivers ${orgId}`), delivery.receivers(orgId)),
  };
  const issuer = await accessTokenIssuer({ signingKey: await generateSigningKey(), issuer: "https://scim.example.com" });
  const app = express();
  app.use("/oauth/Organizations/:orgId", createOAuthTokenRouter({ clients: recordingClients, issuer }));
  app.use("/oauth", oauthPathErrorHandler());
  app.get("/events/:orgId/jwks.json", securityEventJwks(recordingKeys));
  app.post("/events/:orgId/poll/:receiverId", securityEventPollEndpoint(recordingDelivery));
  app.use("/events", scimErrorHandler());
  return { app, asked };
}

function tokenRequest(app: Express, org: string): request.Test {
  return request(app)
    .post(`/oauth/Organizations/${org}/token`)
    .set("Authorization", `Basic ${Buffer.from("client:secret").toString("base64")}`)
    .type("form")
    .send("grant_type=client_credentials");
}

async function expectOutsideScimAnswered(clients: OAuthClients): Promise<void> {
  const { app, asked } = await outsideScimApp(clients);
  for (const org of ["%", "%zz", "a%", "%E0%A4%A"]) {
    const response = await tokenRequest(app, org);
    expect(response.status, response.text).toBe(400);
    expect(response.body).toEqual({ error: "invalid_request", error_description: expect.stringMatching(/%-escape/) });
    expect(response.headers["cache-control"]).toBe("no-store");
    expectScimJson(await request(app).get(`/events/${org}/jwks.json`), 400, "invalidSyntax");
  }
  for (const org of ["%00", "a%00b"]) {
    const token = await tokenRequest(app, org);
    expect(token.status, token.text).toBe(401);
    expect(token.body).toMatchObject({ error: "invalid_client" });
    expectScimJson(await request(app).get(`/events/${org}/jwks.json`), 404);
    const poll = await request(app).post(`/events/${org}/poll/r1`).set("Authorization", "Bearer x").send({});
    expect(poll.status, poll.text).toBe(401);
    expect(poll.body).toMatchObject({ err: "authentication_failed" });
  }
  const poll = await request(app).post("/events/acme/poll/a%00b").set("Authorization", "Bearer x").send({});
  expect(poll.status, poll.text).toBe(401);
  // None of it reached a store; an id it could hold still does.
  expect(asked).toEqual([]);
  const jwks = await request(app).get("/events/acme/jwks.json");
  expect(jwks.status).toBe(200);
  expect(asked).toEqual(["jwks acme"]);
  // Mounted without the host, each still marks its JSON not to be sniffed (issue 27).
  for (const answer of [jwks, poll, await tokenRequest(app, "acme"), await tokenRequest(app, "%zz")]) {
    expect(answer.headers["x-content-type-options"], `${answer.status} ${answer.text}`).toBe("nosniff");
  }
}

describe("the OAuth token endpoint and the security event endpoints, mounted by an app", () => {
  it("a malformed escape in :orgId: their own 400, never Express's page; NUL: unknown, asking no store", async () => {
    await expectOutsideScimAnswered(createTokenStore());
  });
});

describePostgres("the OAuth token endpoint on PostgreSQL's token store", (url) => {
  it("NUL in :orgId is invalid_client (401), not a 500", async () => {
    const schema = await createTestSchema(url);
    const store = await sqlStore({ postgres: schema.pool() });
    try {
      await expectOutsideScimAnswered(store.tokens);
    } finally {
      await store.close();
      await schema.drop();
    }
  });
});
