/**
 * `rateLimit` of `createAnalyticsRouter`: a `RateLimiter` asked once per authenticated request with
 * the caller's API key id — not an organization, since an admin user's key spans several — and a
 * refusal answered as a documented 429 `rate-limited` problem with `Retry-After`.
 */
import { describe, expect, it } from "vitest";
import { hashToken } from "../../../src/auth/hash-token.js";
import { RATE_ALLOWED, type RateLimiter, tokenBucketLimiter } from "scimkit/rate-limit";
import { POPULATED, createAnalyticsTestApp, expectProblem, type AnalyticsTestApp } from "./analytics-harness.js";
import { adminWithKey, createOrganization } from "./analytics-world.js";

/** The stored id of `key`, which the limiter is keyed by. */
async function keyIdOf(t: AnalyticsTestApp, key: string): Promise<string | undefined> {
  return (await t.analytics.findApiKeyByHash(hashToken(key)))?.id;
}

describe("rateLimit", POPULATED, () => {
  it("refuses a key over its rate with 429 rate-limited and Retry-After, and lets other keys through", async () => {
    let clock = 0;
    const t = await createAnalyticsTestApp({
      router: { rateLimit: tokenBucketLimiter({ requestsPerSecond: 1, burst: 3, now: () => clock }) },
    });
    const orgA = await createOrganization(t, "Acme");
    const orgB = await createOrganization(t, "Globex");
    expect((await t.get("/organizations")).status).toBe(200);
    const refused = await t.get("/organizations");
    const problem = expectProblem(refused, 429, "rate-limited");
    expect(refused.headers["retry-after"]).toBe("1");
    expect(problem.detail).toMatch(/retry in 1 seconds/);
    // Refused even for a write, before its body is read.
    expectProblem(await t.post("/organizations", { name: "Initech" }), 429, "rate-limited");
    // Without a key nothing is spent, and the answer stays 401.
    expectProblem(await t.get("/organizations", null), 401, "unauthorized");
    clock += 1000;
    expect((await t.get("/organizations")).status).toBe(200);
    expectProblem(await t.get("/organizations"), 429, "rate-limited");
    // Another key has its own allowance, whatever organizations it shares.
    clock += 60_000;
    const admin = await adminWithKey(t, "admin@example.com", "admin", [orgA.id, orgB.id]);
    expect((await t.get(`/organizations/${orgA.id}`, admin.key)).status).toBe(200);
    expect((await t.get(`/organizations/${orgB.id}`, admin.key)).status).toBe(200);
    expect((await t.get(`/organizations/${orgA.id}`, admin.key)).status).toBe(200);
    // One allowance across both organizations: the key is what is counted.
    expectProblem(await t.get(`/organizations/${orgB.id}`, admin.key), 429, "rate-limited");
    expect(t.errors).toEqual([]);
  });

  it("asks with the caller's key id, never for public operations", async () => {
    const asked: string[] = [];
    const limiter: RateLimiter = {
      take(keyId) {
        asked.push(keyId);
        return RATE_ALLOWED;
      },
    };
    const t = await createAnalyticsTestApp({ router: { rateLimit: limiter } });
    const org = await createOrganization(t, "Acme");
    const operatorKeyId = await keyIdOf(t, t.operatorKey);
    expect(asked).toEqual([operatorKeyId]);
    const admin = await adminWithKey(t, "admin@example.com", "viewer", [org.id]);
    // The invite is the operator's; the accept is public and not counted.
    expect(asked).toEqual([operatorKeyId, operatorKeyId]);
    expect((await t.get("/openapi.json", null)).status).toBe(200);
    expect((await t.get(`/organizations/${org.id}`, admin.key)).status).toBe(200);
    // A viewer's refused write still counts: the limit comes before authorization.
    expectProblem(await t.patch(`/organizations/${org.id}`, { name: "Renamed" }, admin.key), 403, "forbidden");
    const adminKeyId = await keyIdOf(t, admin.key);
    expect(asked).toEqual([operatorKeyId, operatorKeyId, adminKeyId, adminKeyId]);
    expect(adminKeyId).not.toBe(operatorKeyId);
  });

  it("takes an asynchronous limiter's answer, and fails with 500 when the limiter fails", async () => {
    let fail = false;
    const limiter: RateLimiter = {
      take: async () => {
        if (fail) throw new Error("counter service down");
        return { allowed: false, retryAfterSeconds: 7 };
      },
    };
    const t = await createAnalyticsTestApp({ router: { rateLimit: limiter } });
    const refused = await t.get("/organizations");
    expectProblem(refused, 429, "rate-limited");
    expect(refused.headers["retry-after"]).toBe("7");
    fail = true;
    expectProblem(await t.get("/organizations"), 500, "internal");
    expect(t.errors).toEqual([new Error("counter service down")]);
  });

  it("documents 429 with Retry-After on every operation that takes a key, and on no public one", async () => {
    const t = await createAnalyticsTestApp();
    const document = (await t.get("/openapi.json", null)).body as {
      paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, { headers?: Record<string, unknown> }> }>>;
    };
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const isPublic = Array.isArray(operation.security) && operation.security.length === 0;
        expect(operation.responses["429"] !== undefined, `${method} ${path}`).toBe(!isPublic);
        if (!isPublic) expect(operation.responses["429"]?.headers?.["Retry-After"], `${method} ${path}`).toBeDefined();
      }
    }
  });
});
