/**
 * The provisioning log (issue 18): every SCIM response names its request with `X-Request-Id`,
 * errors included, and the router's `requestLog` receives one entry per request after its
 * response, with secrets removed and bodies cut at the log's size.
 */
import { once } from "node:events";
import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { attribute } from "../../src/scim/schema/attribute-definition.js";
import { createSchemaRegistry } from "../../src/scim/schema/schema-registry.js";
import { tokenBucketLimiter } from "../../src/http/rate-limits/token-bucket-limiter.js";
import { memoryRequestLog } from "../../src/request-log/memory-request-log.js";
import type { RequestLog, RequestLogEntry, UnauthenticatedRequestLogEntry } from "../../src/request-log/request-log.js";
import { PATCH_SCHEMA, USER_SCHEMA, createTestApp, expectScimError, userBody } from "./harness.js";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("X-Request-Id", () => {
  it("is generated (UUID v7, one per request) when the client sends none", async () => {
    const t = await createTestApp();
    const first = await t.get("/Users").expect(200);
    const second = await t.post("/Users", userBody("alice")).expect(201);
    expect(first.headers["x-request-id"]).toMatch(UUID_V7);
    expect(second.headers["x-request-id"]).toMatch(UUID_V7);
    expect(second.headers["x-request-id"]).not.toBe(first.headers["x-request-id"]);
  });

  it("is the client's own when it is 1 to 128 visible ASCII characters", async () => {
    const t = await createTestApp();
    const response = await t.get("/Users").set("X-Request-Id", "entra-3f1c:2a9e/7781").expect(200);
    expect(response.headers["x-request-id"]).toBe("entra-3f1c:2a9e/7781");
    const longest = "x".repeat(128);
    expect((await t.get("/Users").set("X-Request-Id", longest)).headers["x-request-id"]).toBe(longest);
  });

  it("replaces a client id that is too long, holds spaces or non-ASCII characters, with one of ours", async () => {
    const t = await createTestApp();
    for (const sent of ["x".repeat(129), "two words", "caf\u00e9"]) {
      const response = await t.get("/Users").set("X-Request-Id", sent).expect(200);
      expect(response.headers["x-request-id"]).toMatch(UUID_V7);
    }
  });

  it("is carried by every error response: 400, 401, 404, 413, 429 and 500", async () => {
    const t = await createTestApp({ bodyLimit: 100, rateLimit: tokenBucketLimiter({ requestsPerSecond: 1, burst: 6, now: () => 0 }) });
    const responses = [
      await request(t.app).get(`${t.base()}/Users`),
      await t.get("/Nothing"),
      await t.get("/Users", t.token.acme).set("X-Request-Id", "mine-1"),
      await t.post("/Users", "{not json"),
      await t.post("/Users", userBody("a".repeat(200))),
      await request(t.app).get(`${t.base("o".repeat(300))}/Users`),
    ];
    expect(responses.map((response) => response.status)).toEqual([401, 404, 200, 400, 413, 404]);
    expectScimError(responses[0] as request.Response, 401);
    for (let i = 0; i < 8; i++) responses.push(await t.get("/Users"));
    expect(responses.at(-1)?.status).toBe(429);
    const failing = await createTestApp({
      compatibility: () => {
        throw new Error("the host's database is down");
      },
    });
    responses.push(await failing.get("/Users"));
    expect(responses.at(-1)?.status).toBe(500);
    expect(responses[2]?.headers["x-request-id"]).toBe("mine-1");
    for (const response of responses.filter((_, index) => index !== 2)) {
      expect(response.headers["x-request-id"], `${response.status}`).toMatch(UUID_V7);
    }
  });
});

/** A log that keeps every entry, and resolves `next()` once the next entry has arrived. */
function collectingLog(maxBodyBytes?: number): RequestLog & { readonly entries: RequestLogEntry[]; settle(count: number): Promise<void> } {
  const entries: RequestLogEntry[] = [];
  return {
    entries,
    ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
    record(entry) {
      entries.push(entry);
    },
    async settle(count) {
      // Entries are handed over after the response, on a later turn of the event loop.
      for (let turn = 0; turn < 100 && entries.length < count; turn++) await new Promise((resolve) => setTimeout(resolve, 5));
      if (entries.length < count) throw new Error(`expected ${count} entries, got ${entries.length}`);
    },
  };
}

const SECRET = "Sup3r-Secret-Passw0rd!";
const BADGE_SCHEMA = "urn:example:params:scim:schemas:extension:badge:2.0:User";

describe("the provisioning log", () => {
  it("records one entry per request with its organization, request, answer, token id, client and identity provider", async () => {
    const log = collectingLog();
    const t = await createTestApp({ requestLog: log });
    const [token] = await t.tokens.list("acme");
    const created = await t
      .post("/Users?attributes=userName", userBody("alice"))
      .set("User-Agent", "Okta SCIM Client 1.0.0")
      .set("X-Request-Id", "okta-req-1")
      .expect(201);
    await log.settle(1);
    const [entry] = log.entries;
    expect(entry).toMatchObject({
      requestId: "okta-req-1",
      orgId: "acme",
      method: "POST",
      path: `${t.base()}/Users?attributes=userName`,
      status: 201,
      authenticated: true,
      tokenId: token?.id,
      userAgent: "Okta SCIM Client 1.0.0",
      identityProvider: "okta",
      resourceType: "User",
      resourceId: (created.body as { id: string }).id,
      requestBodyTruncated: false,
      responseBodyTruncated: false,
    });
    expect(entry?.at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(entry?.durationMs).toBeGreaterThanOrEqual(0);
    expect(typeof entry?.clientAddress).toBe("string");
    expect(JSON.parse(entry?.requestBody ?? "")).toMatchObject({ userName: "alice" });
    expect(JSON.parse(entry?.responseBody ?? "")).toMatchObject({ id: (created.body as { id: string }).id });
    expect(Object.isFrozen(entry)).toBe(true);
    expect(JSON.stringify(entry)).not.toContain(t.token.acme);
  });

  it("records a failure's scimType and detail, and the id the path names", async () => {
    const log = collectingLog();
    const t = await createTestApp({ requestLog: log });
    const detail = expectScimError(
      await t.patch("/Users/no-such-user", { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "active", value: false }] }),
      404,
    ).detail;
    await t.post("/Users", { schemas: [USER_SCHEMA] }).set("User-Agent", "Microsoft.AAD.Provisioning");
    await log.settle(2);
    expect(log.entries[0]).toMatchObject({
      status: 404,
      detail,
      resourceType: "User",
      resourceId: "no-such-user",
      identityProvider: "other",
    });
    expect(log.entries[1]).toMatchObject({ status: 400, scimType: "invalidValue", identityProvider: "entra" });
  });

  it("hands unauthenticated requests to recordUnauthenticated, never to record, without bodies or token id (issue 27)", async () => {
    const log = collectingLog();
    const knocks: UnauthenticatedRequestLogEntry[] = [];
    const t = await createTestApp({
      requestLog: { ...log, record: log.record, recordUnauthenticated: (entry) => void knocks.push(entry) },
    });
    await request(t.app)
      .post(`${t.base()}/Users?access_token=${"leaked-token-1"}`)
      .set("Authorization", "Bearer wrong")
      .set("User-Agent", "U".repeat(2000))
      .send(userBody("mallory", { password: SECRET }))
      .expect(401);
    await request(t.app)
      .get(`${t.base("made-up-org")}/Users`)
      .expect(401);
    await request(t.app)
      .get(`${t.base("o".repeat(300))}/Users`)
      .expect(404);
    await t.get("/Users").expect(200);
    await log.settle(1);
    for (let turn = 0; turn < 100 && knocks.length < 2; turn++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(log.entries.map((entry) => entry.status)).toEqual([200]);
    expect(knocks.map((entry) => [entry.orgId, entry.status])).toEqual([
      ["acme", 401],
      ["made-up-org", 401],
    ]);
    const [refused] = knocks;
    expect(Object.keys(refused ?? {}).sort()).toEqual(
      [
        "at",
        "clientAddress",
        "detail",
        "durationMs",
        "identityProvider",
        "method",
        "orgId",
        "path",
        "requestId",
        "status",
        "userAgent",
      ].sort(),
    );
    expect(refused?.userAgent).toHaveLength(256);
    expect(refused?.path).toBe(`${t.base()}/Users?access_token=[redacted]`);
    expect(JSON.stringify(knocks)).not.toContain("wrong");
    expect(JSON.stringify(knocks)).not.toContain(SECRET);
    expect(JSON.stringify(knocks)).not.toContain("leaked-token-1");
  });

  it("keeps only the SCIM query parameters of a request's path, every other value masked (issue 27)", async () => {
    const log = collectingLog();
    const t = await createTestApp({ requestLog: log });
    await t.get("/Users?filter=userName%20eq%20%22a%22&count=5&access_token=tok-9&Client_Secret=cs-9&debug=1").expect(200);
    await log.settle(1);
    expect(log.entries[0]?.path).toBe(
      `${t.base()}/Users?filter=userName%20eq%20%22a%22&count=5&access_token=[redacted]&Client_Secret=[redacted]&debug=[redacted]`,
    );
  });

  it("never keeps a password: not from a POST body, a PUT body, a PATCH value, a PATCH path, nor a Bulk operation", async () => {
    const log = collectingLog();
    const t = await createTestApp({ requestLog: log });
    const id = ((await t.post("/Users", userBody("alice", { password: SECRET })).expect(201)).body as { id: string }).id;
    await t.put(`/Users/${id}`, userBody("alice", { password: SECRET })).expect(200);
    await t.patch(`/Users/${id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", value: { password: SECRET } }] }).expect(200);
    await t
      .patch(`/Users/${id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "password", value: SECRET }] })
      .expect(200);
    await t
      .patch(`/Users/${id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: `${USER_SCHEMA}:password`, value: SECRET }] })
      .expect(200);
    await t
      .post("/Bulk", {
        schemas: ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
        Operations: [{ method: "POST", path: "/Users", bulkId: "b1", data: userBody("bob", { password: SECRET }) }],
      })
      .expect(200);
    await log.settle(6);
    for (const entry of log.entries) {
      expect(JSON.stringify(entry), `${entry.method} ${entry.path}`).not.toContain(SECRET);
      expect(entry.requestBody).toContain("[redacted]");
    }
    expect(log.entries[5]).toMatchObject({ bulkOperations: 1 });
  });

  it("never keeps an attribute the registry marks writeOnly or returned:never, nor a member named like a token", async () => {
    const log = collectingLog();
    const registry = createSchemaRegistry({
      schemas: [
        {
          id: BADGE_SCHEMA,
          name: "Badge",
          description: "Badge",
          attributes: [attribute("badgeNumber"), attribute("recoveryCode", { mutability: "writeOnly", returned: "never" })],
        },
      ],
      extensions: [{ resourceType: "User", schema: BADGE_SCHEMA, required: false }],
    });
    const t = await createTestApp({ requestLog: log, registry });
    const sent = userBody("alice", { schemas: [USER_SCHEMA, BADGE_SCHEMA], [BADGE_SCHEMA]: { badgeNumber: "B-1", recoveryCode: SECRET } });
    const id = ((await t.post("/Users", sent).expect(201)).body as { id: string }).id;
    await t
      .patch(`/Users/${id}`, {
        schemas: [PATCH_SCHEMA],
        Operations: [{ op: "replace", path: `${BADGE_SCHEMA}:recoveryCode`, value: SECRET }],
      })
      .expect(200);
    await t.post("/Users", userBody("bob", { accessToken: SECRET }));
    await log.settle(3);
    for (const entry of log.entries) expect(JSON.stringify(entry)).not.toContain(SECRET);
    expect(JSON.parse(log.entries[0]?.requestBody ?? "")).toMatchObject({
      [BADGE_SCHEMA]: { badgeNumber: "B-1", recoveryCode: "[redacted]" },
    });
  });

  it("cuts bodies past maxBodyBytes and says so", async () => {
    const log = collectingLog(200);
    const t = await createTestApp({ requestLog: log });
    await t.post("/Users", userBody("alice", { displayName: "d".repeat(1000) })).expect(201);
    await log.settle(1);
    const [entry] = log.entries;
    expect(entry).toMatchObject({ requestBodyTruncated: true, responseBodyTruncated: true });
    expect(Buffer.byteLength(entry?.requestBody ?? "")).toBeLessThanOrEqual(200);
    expect(Buffer.byteLength(entry?.responseBody ?? "")).toBeLessThanOrEqual(200);
    expect(entry?.requestBody?.startsWith('{"schemas"')).toBe(true);
  });

  it("keeps a malformed body the parser refused as sent, its password masked, and answers the client as without a log", async () => {
    const log = collectingLog();
    const t = await createTestApp({ requestLog: log });
    const plain = await createTestApp();
    const malformed = `{"schemas":["${USER_SCHEMA}"],"userName":"alice","password":"${SECRET}",}`;
    const logged = await t.post("/Users", malformed).expect(400);
    const unlogged = await plain.post("/Users", malformed).expect(400);
    expect(logged.body).toEqual(unlogged.body);
    await log.settle(1);
    const [entry] = log.entries;
    expect(entry).toMatchObject({ status: 400, scimType: "invalidSyntax", requestBodyRefused: "invalidJson", requestBodyTruncated: false });
    expect(entry?.requestBody).toBe(`{"schemas":["${USER_SCHEMA}"],"userName":"alice","password":"[redacted]",}`);
    expect(JSON.stringify(entry)).not.toContain(SECRET);
  });

  it("masks a malformed PATCH's secret value and cuts a long malformed body at maxBodyBytes", async () => {
    const log = collectingLog(200);
    const t = await createTestApp({ requestLog: log });
    const id = ((await t.post("/Users", userBody("alice")).expect(201)).body as { id: string }).id;
    await t
      .patch(`/Users/${id}`, `{"schemas":["${PATCH_SCHEMA}"],"Operations":[{"op":"replace","path":"password","value":"${SECRET}"}]`)
      .expect(400);
    await t.post("/Users", `{"userName":"bob","displayName":"${"d".repeat(500)}"`).expect(400);
    await log.settle(3);
    const [, patch, long] = log.entries;
    expect(patch?.requestBody).toContain('"value":"[redacted]"');
    expect(patch?.requestBodyRefused).toBe("invalidJson");
    expect(long).toMatchObject({ requestBodyRefused: "invalidJson", requestBodyTruncated: true });
    expect(long?.requestBody?.startsWith('{"userName":"bob"')).toBe(true);
    expect(Buffer.byteLength(long?.requestBody ?? "")).toBeLessThanOrEqual(200);
    for (const entry of log.entries) expect(JSON.stringify(entry)).not.toContain(SECRET);
  });

  it("keeps no body but says why for a body over the limit or of a media type not read, and answers as without a log", async () => {
    const log = collectingLog();
    const t = await createTestApp({ requestLog: log, bodyLimit: 100 });
    const plain = await createTestApp({ bodyLimit: 100 });
    const large = userBody("alice", { password: SECRET, displayName: "d".repeat(200) });
    const logged = await t.post("/Users", large).expect(413);
    expect(logged.body).toEqual((await plain.post("/Users", large).expect(413)).body);
    const form = `userName=alice&password=${SECRET}`;
    const typed = await t.post("/Users").set("Content-Type", "application/x-www-form-urlencoded").send(form).expect(415);
    expect(typed.body).toEqual(
      (await plain.post("/Users").set("Content-Type", "application/x-www-form-urlencoded").send(form).expect(415)).body,
    );
    await log.settle(2);
    expect(log.entries[0]).toMatchObject({ status: 413, requestBodyRefused: "tooLarge" });
    expect(log.entries[1]).toMatchObject({ status: 415, requestBodyRefused: "unsupportedMediaType" });
    for (const entry of log.entries) {
      expect(entry).not.toHaveProperty("requestBody");
      expect(JSON.stringify(entry)).not.toContain(SECRET);
    }
  });

  it("cuts a list response written in pieces, and a non-ASCII body, at maxBodyBytes without a broken character", async () => {
    const log = collectingLog(300);
    const t = await createTestApp({ requestLog: log });
    for (let i = 0; i < 5; i++) await t.post("/Users", userBody(`user${i}`, { displayName: "Zoë ".repeat(40) })).expect(201);
    await t.get("/Users?count=5").expect(200);
    await log.settle(6);
    for (const entry of log.entries) {
      expect(entry.responseBodyTruncated).toBe(true);
      expect(Buffer.byteLength(entry.responseBody ?? "")).toBeLessThanOrEqual(300);
      expect(entry.responseBody).not.toContain("\uFFFD");
    }
    expect(log.entries[5]?.responseBody?.startsWith('{"schemas":["urn:ietf:params:scim:api:messages:2.0:ListResponse"]')).toBe(true);
  });

  it("keeps a response written in pieces (a group of 2,500 members) whole under maxBodyBytes, and cut past it", async () => {
    const log = collectingLog(400_000);
    const small = collectingLog(500);
    const t = await createTestApp({ requestLog: log });
    const cut = await createTestApp({ requestLog: small, store: t.store });
    const now = new Date().toISOString();
    const ids: string[] = [];
    for (let index = 0; index < 2_500; index++) {
      const id = `member-${String(index).padStart(4, "0")}`;
      ids.push(id);
      await t.store.create({
        orgId: "acme",
        resourceType: "User",
        id,
        now,
        attributes: { userName: id },
        uniqueKeys: [],
        unknownMembers: "reject",
      });
    }
    const group = { orgId: "acme", resourceType: "Group", id: "big", now, attributes: { displayName: "big" }, uniqueKeys: [] };
    await t.store.create({ ...group, members: ids, unknownMembers: "reject" });
    const whole = await t.get("/Groups/big").expect(200);
    expect(whole.headers["transfer-encoding"]).toBe("chunked");
    await cut.get("/Groups/big").expect(200);
    await log.settle(1);
    await small.settle(1);
    expect(log.entries[0]).toMatchObject({ responseBodyTruncated: false });
    expect(JSON.parse(log.entries[0]?.responseBody ?? "")).toEqual(whole.body);
    expect(small.entries[0]).toMatchObject({ responseBodyTruncated: true });
    expect(Buffer.byteLength(small.entries[0]?.responseBody ?? "")).toBeLessThanOrEqual(500);
  });

  it("says tooLarge for a chunked body that grew past the limit with no Content-Length to refuse it on", async () => {
    const log = collectingLog();
    const t = await createTestApp({ requestLog: log, bodyLimit: 100 });
    const server = t.app.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const { port } = server.address() as AddressInfo;
      const status = await new Promise<number>((resolve, reject) => {
        const sent = httpRequest(
          {
            host: "127.0.0.1",
            port,
            method: "POST",
            path: `${t.base()}/Users`,
            headers: { Authorization: `Bearer ${t.token.acme}`, "Content-Type": "application/scim+json", "Transfer-Encoding": "chunked" },
          },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        sent.on("error", reject);
        sent.write(JSON.stringify(userBody("alice", { password: SECRET })));
        sent.end(JSON.stringify({ padding: "p".repeat(200) }));
      });
      expect(status).toBe(413);
      await log.settle(1);
      expect(log.entries[0]).toMatchObject({ status: 413, requestBodyRefused: "tooLarge" });
      expect(log.entries[0]).not.toHaveProperty("requestBody");
      expect(JSON.stringify(log.entries)).not.toContain(SECRET);
    } finally {
      server.close();
    }
  });

  it("never fails a request when the log throws or rejects: the error goes to onError", async () => {
    const failures: unknown[] = [];
    const t = await createTestApp({
      requestLog: {
        record(entry) {
          if (entry.method === "GET") throw new Error("log storage is full");
          return Promise.reject(new Error("log storage is down"));
        },
      },
      onError: (error) => {
        failures.push(error);
      },
    });
    await t.get("/Users").expect(200);
    await t.post("/Users", userBody("alice")).expect(201);
    for (let turn = 0; turn < 100 && failures.length < 2; turn++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(failures.map((error) => (error as Error).message).sort()).toEqual(["log storage is down", "log storage is full"]);
  });

  it("hands the entry over only after the response has been sent", async () => {
    let release: (() => void) | undefined;
    const t = await createTestApp({
      requestLog: {
        record: () =>
          new Promise<void>((resolve) => {
            release = resolve;
          }),
      },
    });
    // A sink that never settles would hang the request if the response waited for it.
    await t.get("/Users").expect(200);
    for (let turn = 0; turn < 100 && !release; turn++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(release).toBeDefined();
    release?.();
  });
});

describe("memoryRequestLog behind the router", () => {
  it("finds a failing request by the X-Request-Id its response carried, and lists failures by class", async () => {
    const log = memoryRequestLog({ capacity: 100 });
    const t = await createTestApp({ requestLog: log });
    await t.post("/Users", userBody("alice")).set("User-Agent", "Okta SCIM Client 1.0.0").expect(201);
    const failed = await t.post("/Users", userBody("alice")).set("User-Agent", "Okta SCIM Client 1.0.0").expect(409);
    const requestId = String(failed.headers["x-request-id"]);
    for (let turn = 0; turn < 100 && (await log.list("acme")).entries.length < 2; turn++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const found = await log.list("acme", { requestId });
    expect(found.entries).toHaveLength(1);
    expect(found.entries[0]).toMatchObject({ status: 409, scimType: "uniqueness", identityProvider: "okta" });
    expect((await log.list("acme", { statusClass: 4, identityProvider: "okta" })).entries.map((e) => e.requestId)).toEqual([requestId]);
    expect((await log.list("globex")).entries).toEqual([]);
  });
});
