/**
 * The provisioning log (issue 18): every SCIM response names its request with `X-Request-Id`,
 * errors included.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import { tokenBucketLimiter } from "../../src/http/token-bucket-limiter.js";
import { createTestApp, expectScimError, userBody } from "./harness.js";

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
