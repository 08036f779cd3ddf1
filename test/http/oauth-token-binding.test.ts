/**
 * Issue 27 item 6: an access token is bound to the client secret that obtained it, so rotating the
 * secret ends it at once whatever the clocks say (tokens minted in the same second as the
 * rotation included), it never outlives that secret's `expiresAt`, and the token endpoint bounds
 * wrong secrets per client and per address (429 `slow_down` with `Retry-After`). Each on a token
 * store in memory, on SQLite and on PostgreSQL.
 */
import express from "express";
import { decodeJwt } from "jose";
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { accessTokenIssuer, generateSigningKey, type SigningKey } from "../../src/auth/access-token-issuer.js";
import { clientCredentialsVerifier } from "../../src/auth/client-credentials-verifier.js";
import { createTokenStore, type TokenStore } from "../../src/auth/hashed-token-store.js";
import { createOAuthTokenRouter } from "../../src/http/oauth/create-oauth-token-router.js";
import { createScimRouter } from "../../src/http/create-scim-router.js";
import type { RateLimiter } from "../../src/store/rate-limiter.js";
import { tokenBucketLimiter } from "../../src/http/rate-limits/token-bucket-limiter.js";
import { memoryStore } from "../../src/store/memory/memory-store.js";
import { describePostgres } from "../../src/store/sql/postgres-test-database.fixture.js";
import { sqlRateLimiter } from "../../src/store/sql/sql-rate-limiter.js";
import { type SqlStore, sqlStore } from "../../src/store/sql/sql-store.js";
import { expectScimError, postgresStores } from "./harness.js";

const ISSUER = "https://scim.example.com";
let signingKey: SigningKey;

beforeAll(async () => {
  signingKey = await generateSigningKey();
});

/** A clock the token store, the issuer and the verifier share; it follows the real one until moved. */
function clock() {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    advance(ms: number) {
      offsetMs += ms;
    },
  };
}

type Clock = ReturnType<typeof clock>;

/** Opens the SQL store whose tokens (and, when asked, failure counters) a test uses; undefined: memory. */
type SqlFor = (time: Clock) => Promise<SqlStore | undefined>;

interface AppOptions {
  readonly failureLimiter?: (store: SqlStore | undefined) => RateLimiter;
}

async function oauthApp(sqlFor: SqlFor, options: AppOptions = {}) {
  const time = clock();
  const sql = await sqlFor(time);
  const clients: TokenStore = sql?.tokens ?? createTokenStore({ now: time.now });
  const issuer = await accessTokenIssuer({ signingKey, issuer: ISSUER, now: time.now });
  const errors: unknown[] = [];
  const app = express();
  // Tests speak from several addresses through X-Forwarded-For.
  app.set("trust proxy", true);
  // The router's default bound (10 failures a minute per key) on a stopped clock, so a loaded
  // machine refills nothing while the test runs; the default itself: oauth-token-endpoint.test.ts.
  const failureLimiter = options.failureLimiter?.(sql) ?? tokenBucketLimiter({ requestsPerSecond: 10 / 60, burst: 10, now: () => 0 });
  app.use(
    "/oauth/Organizations/:orgId",
    createOAuthTokenRouter({
      clients,
      issuer,
      onError: (error) => errors.push(error),
      failureLimiter,
    }),
  );
  app.use(
    "/scim/Organizations/:orgId/v2",
    createScimRouter({
      store: memoryStore(),
      auth: clientCredentialsVerifier({ clients, issuer, now: time.now }),
      onError: (error) => errors.push(error),
    }),
  );
  return { app, clients, time, errors };
}

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;
}

function tokenRequest(app: express.Express, id: string, secret: string, address = "192.0.2.1") {
  return request(app)
    .post("/oauth/Organizations/acme/token")
    .type("form")
    .set("X-Forwarded-For", address)
    .set("Authorization", basic(id, secret))
    .send("grant_type=client_credentials");
}

async function accessToken(app: express.Express, id: string, secret: string): Promise<{ token: string; expiresIn: number }> {
  const response = await tokenRequest(app, id, secret);
  expect(response.status, response.text).toBe(200);
  const body = response.body as { access_token: string; expires_in: number };
  return { token: body.access_token, expiresIn: body.expires_in };
}

function users(app: express.Express, token: string) {
  return request(app).get("/scim/Organizations/acme/v2/Users").set("Authorization", `Bearer ${token}`);
}

function expectRefused(response: request.Response, description: string): void {
  expectScimError(response, 401);
  expect(response.headers["www-authenticate"]).toBe(`Bearer realm="SCIM", error="invalid_token", error_description="${description}"`);
}

function expectSlowDown(response: request.Response): void {
  expect(response.status, response.text).toBe(429);
  expect(response.body).toEqual({
    error: "slow_down",
    error_description: expect.stringMatching(/^Too many failed client authentications/),
  });
  expect(Number(response.headers["retry-after"])).toBeGreaterThanOrEqual(1);
  expect(response.headers["cache-control"]).toBe("no-store");
}

function bindingChecks(sqlFor: SqlFor): void {
  it("refuses, right after a rotation, the access token the replaced secret obtained the same instant: 10 of 10 trials", async () => {
    const { app, clients, errors } = await oauthApp(sqlFor);
    const { record, token: first } = await clients.issue("acme", { label: "Entra" });
    let secret = first;
    for (let trial = 0; trial < 10; trial += 1) {
      // Obtained and rotated within the same second (the same millisecond, as often as not).
      const obtained = await accessToken(app, record.id, secret);
      const rotated = await clients.rotate("acme", record.id);
      if (rotated === undefined) throw new Error("rotation failed");
      expectRefused(await users(app, obtained.token), "The access token was revoked.");
      secret = rotated.token;
    }
    await users(app, (await accessToken(app, record.id, secret)).token).expect(200);
    expect(errors).toEqual([]);
  });

  it("keeps the replaced secret's access tokens only for the rotation's grace period", async () => {
    const { app, clients, time } = await oauthApp(sqlFor);
    const { record, token: secret } = await clients.issue("acme");
    const before = await accessToken(app, record.id, secret);
    const rotated = await clients.rotate("acme", record.id, { graceSeconds: 60 });
    if (rotated === undefined) throw new Error("rotation failed");
    await users(app, before.token).expect(200);
    // The replaced secret still obtains tokens during the grace, and they end with it.
    const duringGrace = await accessToken(app, record.id, secret);
    expect(duringGrace.expiresIn).toBeLessThanOrEqual(60);
    time.advance(61_000);
    expectRefused(await users(app, before.token), "The access token was revoked.");
    expectRefused(await users(app, duringGrace.token), "The access token was revoked.");
  });

  it("caps an access token at its secret's expiresAt and refuses it once the secret expired", async () => {
    const { app, clients, time } = await oauthApp(sqlFor);
    const expiresAt = new Date(time.now().getTime() + 120_000);
    const { record, token: secret } = await clients.issue("acme", { expiresAt });
    const obtained = await accessToken(app, record.id, secret);
    const claims = decodeJwt(obtained.token);
    expect(obtained.expiresIn).toBeLessThanOrEqual(120);
    expect(obtained.expiresIn).toBeGreaterThanOrEqual(119);
    expect(claims.exp).toBe(Math.floor(expiresAt.getTime() / 1000));
    await users(app, obtained.token).expect(200);
    // One second past the secret's expiry: within the verifier's 30 s leeway on exp, refused all the same.
    time.advance(121_000);
    expectRefused(await users(app, obtained.token), "The client secret that obtained the access token has expired.");
  });

  it("refuses an access token whose secret was revoked, and one without the secret's id", async () => {
    const { app, clients } = await oauthApp(sqlFor);
    const { record, token: secret } = await clients.issue("acme");
    const obtained = await accessToken(app, record.id, secret);
    const unbound = await (await accessTokenIssuer({ signingKey, issuer: ISSUER })).issue({
      orgId: "acme",
      clientId: record.id,
      secretId: "x",
    });
    expectRefused(await users(app, unbound.accessToken), "The access token was revoked.");
    expect(await clients.revoke("acme", record.id)).toBe(true);
    expectRefused(await users(app, obtained.token), "The access token was revoked.");
  });

  it("answers 429 slow_down after 10 wrong secrets of one client, from any addresses, the right secret included", async () => {
    const { app, clients } = await oauthApp(sqlFor);
    const { record, token: secret } = await clients.issue("acme");
    const other = await clients.issue("acme");
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect((await tokenRequest(app, record.id, `${secret}x`, `198.51.100.${attempt}`)).status).toBe(401);
    }
    expectSlowDown(await tokenRequest(app, record.id, `${secret}x`, "198.51.100.10"));
    // Refused before the secret is checked, so guessing right gains nothing.
    expectSlowDown(await tokenRequest(app, record.id, secret, "198.51.100.11"));
    // Another client of the organization, from an address that did not fail, is served.
    await accessToken(app, other.record.id, other.token);
  });

  it("answers 429 slow_down after 10 failures from one address, whichever client ids it makes up", async () => {
    const { app, clients } = await oauthApp(sqlFor);
    const { record, token: secret } = await clients.issue("acme");
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect((await tokenRequest(app, `made-up-${attempt}`, "scimkit_guess", "203.0.113.7")).status).toBe(401);
    }
    expectSlowDown(await tokenRequest(app, "made-up-10", "scimkit_guess", "203.0.113.7"));
    expectSlowDown(await tokenRequest(app, record.id, secret, "203.0.113.7"));
    await accessToken(app, record.id, secret);
  });
}

/** Checks of a failure bound shared through the database, for the SQL stores. */
function sharedBoundChecks(sqlFor: (time: Clock) => Promise<SqlStore>): void {
  it("shares the bound between two routers (two host processes) counting in the database", async () => {
    const shared = (store: SqlStore | undefined) => {
      if (store === undefined) throw new Error("needs a SQL store");
      // A stopped clock again: nothing refills while the test runs.
      return sqlRateLimiter(store, { namespace: "oauth-failures", requestsPerSecond: 10 / 60, burst: 10, now: () => 1_000_000 });
    };
    const store = await sqlFor(clock());
    const first = await oauthApp(async () => store, { failureLimiter: shared });
    const second = await oauthApp(async () => store, { failureLimiter: shared });
    const { record, token: secret } = await store.tokens.issue("acme");
    const answers: number[] = [];
    for (let attempt = 0; attempt < 12; attempt += 1) {
      const app = attempt % 2 === 0 ? first.app : second.app;
      answers.push((await tokenRequest(app, record.id, "scimkit_guess", `198.51.100.${attempt}`)).status);
    }
    expect(answers.slice(0, 10)).toEqual(Array.from({ length: 10 }, () => 401));
    expect(answers.slice(10)).toEqual([429, 429]);
    expectSlowDown(await tokenRequest(first.app, record.id, secret, "198.51.100.99"));
  });
}

describe("access tokens bound to their client secret, token store in memory", () => {
  bindingChecks(async () => undefined);
});

describe("access tokens bound to their client secret, token store on SQLite", () => {
  const open = (time: Clock) => sqlStore({ sqlite: ":memory:", threads: false, tokens: { now: time.now } });
  bindingChecks(open);
  sharedBoundChecks(open);
});

describePostgres("access tokens bound to their client secret, token store on PostgreSQL", (url) => {
  const openStore = postgresStores(url);
  // A store per test, each on a pool of its own as a host process would have; the failure
  // counters of earlier tests (the same addresses) cleared.
  const open = async (time: Clock): Promise<SqlStore> => {
    const store = await openStore({ tokens: { now: time.now } });
    await store.db.deleteFrom("scimkit_rate_buckets").execute();
    return store;
  };
  bindingChecks(open);
  sharedBoundChecks(open);
});
