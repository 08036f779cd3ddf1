/**
 * The limits a host sets on the router (issue 7): filter length and depth (400 `invalidFilter`
 * naming the limit, RFC 7644 §3.4.2.2 and §3.12) and requests per organization (429 with
 * `Retry-After`, RFC 6585 §4, as a SCIM error without a scimType: RFC 7644 §3.12 has none for it).
 * Body size, Bulk limits and the page-size maximum have their own tests (transport, bulk, lists).
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createScimRouter } from "../../src/http/create-scim-router.js";
import { RATE_ALLOWED, type RateDecision, type RateLimiter } from "../../src/store/rate-limiter.js";
import { tokenBucketLimiter } from "../../src/http/rate-limits/token-bucket-limiter.js";
import { memoryStore } from "../../src/store/memory/memory-store.js";
import { createTokenStore } from "../../src/auth/hashed-token-store.js";
import { PATCH_SCHEMA, createTestApp, expectScimError, userBody } from "./harness.js";

/** `(((… userName pr …)))` nested `depth` levels. */
function nested(depth: number): string {
  return `${"(".repeat(depth)}userName pr${")".repeat(depth)}`;
}

describe("filter limits (filterLimits)", () => {
  it("refuses a filter longer than maxLength with 400 naming the limit: invalidFilter in lists and .search, invalidPath in a PATCH path", async () => {
    const t = await createTestApp({ filterLimits: { maxLength: 40 } });
    const created = (await t.post("/Users", userBody("alice")).expect(201)).body as { id: string };
    const long = `userName eq "${"a".repeat(40)}"`;

    const listed = expectScimError(await t.get(`/Users?filter=${encodeURIComponent(long)}`), 400, "invalidFilter");
    expect(listed.detail).toMatch(/the limit is 40/);
    const searched = expectScimError(await t.post("/Users/.search", { filter: long }), 400, "invalidFilter");
    expect(searched.detail).toMatch(/the limit is 40/);
    const patched = await t.patch(`/Users/${created.id}`, {
      schemas: [PATCH_SCHEMA],
      Operations: [{ op: "replace", path: `emails[value eq "${"b".repeat(40)}"].type`, value: "home" }],
    });
    // In a PATCH the filter is part of a path, and the path as a whole is over the limit (RFC 7644 §3.5.2: invalidPath).
    expect(expectScimError(patched, 400, "invalidPath").detail).toMatch(/longer than 40 characters/);

    // Within the limit, the same requests work.
    await t.get(`/Users?filter=${encodeURIComponent('userName eq "alice"')}`).expect(200);
  });

  it("refuses a filter nested deeper than maxDepth with 400 invalidFilter naming the limit", async () => {
    const t = await createTestApp({ filterLimits: { maxDepth: 4 } });
    await t.get(`/Users?filter=${encodeURIComponent(nested(4))}`).expect(200);
    const deep = expectScimError(await t.get(`/Users?filter=${encodeURIComponent(nested(5))}`), 400, "invalidFilter");
    expect(deep.detail).toMatch(/nested deeper than 4 levels/);
    const negated = expectScimError(
      await t.post("/Groups/.search", { filter: "not (not (not (not (not (displayName pr)))))" }),
      400,
      "invalidFilter",
    );
    expect(negated.detail).toMatch(/nested deeper than 4 levels/);
  });

  it("keeps the defaults when none are given: 10,000 characters, 32 levels", async () => {
    const t = await createTestApp();
    await t.get(`/Users?filter=${encodeURIComponent(nested(32))}`).expect(200);
    expect(expectScimError(await t.get(`/Users?filter=${encodeURIComponent(nested(33))}`), 400, "invalidFilter").detail).toMatch(
      /32 levels/,
    );
    const long = `userName eq "${"a".repeat(10_000)}"`;
    expect(expectScimError(await t.post("/Users/.search", { filter: long }), 400, "invalidFilter").detail).toMatch(/the limit is 10000/);
  });

  it("refuses limits that are not positive integers when the router is built", () => {
    const store = memoryStore();
    const auth = createTokenStore();
    expect(() => createScimRouter({ store, auth, filterLimits: { maxLength: 0 } })).toThrow(
      /filterLimits.maxLength must be a positive integer/,
    );
    expect(() => createScimRouter({ store, auth, filterLimits: { maxDepth: 2.5 } })).toThrow(
      /filterLimits.maxDepth must be a positive integer/,
    );
  });
});

describe("requests per organization (rateLimit)", () => {
  /** A token bucket on a clock the test moves. */
  function manualLimiter(requestsPerSecond: number, burst: number): { readonly limiter: RateLimiter; advance(ms: number): void } {
    let time = 0;
    return {
      limiter: tokenBucketLimiter({ requestsPerSecond, burst, now: () => time }),
      advance: (ms) => void (time += ms),
    };
  }

  it("answers over the rate with a 429 SCIM error without scimType, and Retry-After in whole seconds", async () => {
    const { limiter, advance } = manualLimiter(0.5, 2);
    const t = await createTestApp({ rateLimit: limiter });
    await t.get("/Users").expect(200);
    await t.post("/Users", userBody("alice")).expect(201);
    const refused = await t.get("/Users");
    expectScimError(refused, 429);
    expect((refused.body as Record<string, unknown>)["scimType"]).toBeUndefined();
    expect(refused.headers["retry-after"]).toBe("2");
    expect((refused.body as { detail: string }).detail).toMatch(/retry after 2 seconds/);
    // A refused write writes nothing.
    expectScimError(await t.post("/Users", userBody("bob")), 429);
    advance(2_000);
    const listed = await t.get("/Users").expect(200);
    expect((listed.body as { totalResults: number }).totalResults).toBe(1);
    expect(t.errors).toEqual([]);
  });

  it("counts each organization on its own", async () => {
    const { limiter } = manualLimiter(1, 1);
    const t = await createTestApp({ rateLimit: limiter });
    await t.get("/Users").expect(200);
    expectScimError(await t.get("/Users"), 429);
    await t.get(`${t.base("globex")}/Users`, t.token.globex).expect(200);
  });

  it("counts only authenticated requests, so nobody without the token can spend an organization's allowance", async () => {
    const { limiter } = manualLimiter(1, 2);
    const t = await createTestApp({ rateLimit: limiter });
    for (let i = 0; i < 20; i += 1) {
      expectScimError(await request(t.app).get(`${t.base()}/Users`), 401);
      expectScimError(await t.get("/Users", "scimkit_wrong"), 401);
      // Another organization's token on acme's path is a 401 too, and spends nothing of acme's.
      expectScimError(await t.get("/Users", t.token.globex), 401);
    }
    await t.get("/Users").expect(200);
    await t.get("/Users").expect(200);
    expectScimError(await t.get("/Users"), 429);
  });

  it("leaves /ServiceProviderConfig, which needs no token, out of the count", async () => {
    const { limiter } = manualLimiter(1, 1);
    const t = await createTestApp({ rateLimit: limiter });
    await t.get("/Users").expect(200);
    for (let i = 0; i < 5; i += 1) await request(t.app).get(`${t.base()}/ServiceProviderConfig`).expect(200);
    expectScimError(await t.get("/Users"), 429);
  });

  it("limits /Bulk as one request, refused whole before any operation runs", async () => {
    const { limiter } = manualLimiter(1, 1);
    const t = await createTestApp({ rateLimit: limiter });
    await t.get("/Users").expect(200);
    const bulk = {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
      Operations: [{ method: "POST", bulkId: "a", path: "/Users", data: userBody("carol") }],
    };
    expectScimError(await t.post("/Bulk", bulk), 429);
    const stored = await t.store.list({
      orgId: "acme",
      resourceType: "User",
      page: { kind: "index", startIndex: 1, count: 10 },
      members: false,
    });
    expect(stored.totalResults).toBe(0);
  });

  it("takes a limiter that answers asynchronously, as a shared one would, keyed by the organization", async () => {
    const asked: string[] = [];
    const shared: RateLimiter = {
      async take(orgId): Promise<RateDecision> {
        asked.push(orgId);
        await new Promise((resolve) => setTimeout(resolve, 1));
        return orgId === "globex" ? { allowed: false, retryAfterSeconds: 0.2 } : RATE_ALLOWED;
      },
    };
    const t = await createTestApp({ rateLimit: shared });
    await t.get("/Users").expect(200);
    const refused = await t.get(`${t.base("globex")}/Users`, t.token.globex);
    expectScimError(refused, 429);
    // A fraction from a custom limiter is rounded up to whole seconds, at least 1.
    expect(refused.headers["retry-after"]).toBe("1");
    expect(asked).toEqual(["acme", "globex"]);
  });

  it("answers a limiter that fails with a bare 500 and reports the failure to onError", async () => {
    const failing: RateLimiter = {
      take() {
        throw new Error("counter service unreachable");
      },
    };
    const t = await createTestApp({ rateLimit: failing });
    const response = await t.get("/Users");
    expectScimError(response, 500);
    expect(response.text).not.toContain("counter service");
    expect(t.errors).toHaveLength(1);
    const rejecting: RateLimiter = { take: () => Promise.reject(new Error("timeout")) };
    const second = await createTestApp({ rateLimit: rejecting });
    expectScimError(await second.get("/Users"), 500);
    expect(second.errors).toHaveLength(1);
  });
});
