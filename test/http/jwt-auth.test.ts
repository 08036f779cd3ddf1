/**
 * External JWTs through the real SCIM router (issue 20 item 4): a `jwtVerifier` against a real
 * HTTP JWKS server, and the RFC 6750 §3 `WWW-Authenticate` answers — no error code without
 * credentials, `invalid_token` for a refused token, `insufficient_scope` (403) for a missing
 * scope — with another organization's token answered exactly as garbage.
 */
import type { JWTPayload } from "jose";
import request from "supertest";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type JwksServer, signToken, startJwksServer, type TestKey, testKey } from "../../src/auth/jwks-server.fixture.js";
import { jwtVerifier } from "../../src/auth/jwt-verifier.js";
import { createTestApp, expectScimError, userBody } from "./harness.js";

const ISSUER = "https://login.example.com/";
const AUDIENCE = "https://scim.example.com";

let current: TestKey;
let next: TestKey;
let jwks: JwksServer | undefined;

beforeAll(async () => {
  [current, next] = await Promise.all([testKey("key-1", "RS256"), testKey("key-2", "ES256")]);
});

afterEach(async () => {
  await jwks?.close();
  jwks = undefined;
});

function claims(org: string, extra: JWTPayload = {}, nowMs = Date.now()): JWTPayload {
  const iat = Math.floor(nowMs / 1000);
  return {
    iss: ISSUER,
    aud: AUDIENCE,
    sub: "entra-app",
    client_id: "entra-app",
    org_id: org,
    iat,
    exp: iat + 600,
    scope: "scim",
    ...extra,
  };
}

async function jwtApp(
  options: {
    readonly requiredScope?: string;
    readonly cooldown?: number;
    readonly cacheMaxAgeSeconds?: number;
    readonly now?: () => Date;
    readonly onKeySetError?: (error: unknown) => void;
  } = {},
) {
  jwks = await startJwksServer([current]);
  const auth = jwtVerifier({
    jwksUrl: jwks.url,
    issuer: ISSUER,
    audience: AUDIENCE,
    organizationClaim: "org_id",
    jwksCooldownSeconds: options.cooldown ?? 0,
    ...(options.requiredScope === undefined ? {} : { requiredScope: options.requiredScope }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.cacheMaxAgeSeconds === undefined ? {} : { jwksCacheMaxAgeSeconds: options.cacheMaxAgeSeconds }),
    ...(options.onKeySetError === undefined ? {} : { onKeySetError: options.onKeySetError }),
  });
  return { t: await createTestApp({ auth }), jwks };
}

const INVALID_CHALLENGE = 'Bearer realm="SCIM", error="invalid_token", error_description="The access token is invalid."';

describe("jwtVerifier behind createScimRouter", () => {
  it("provisions a user with an authorization server's JWT, the key fetched from its JWKS over HTTP", async () => {
    const { t, jwks: server } = await jwtApp();
    const token = await signToken(current, claims("acme"));
    const created = await t.post("/Users", userBody("alice"), token).expect(201);
    const id = (created.body as { id: string }).id;
    const read = await t.get(`/Users/${id}`, token).expect(200);
    expect((read.body as { userName: string }).userName).toBe("alice");
    expect(server.fetches).toBe(1);
    expect(t.errors).toEqual([]);
  });

  it("answers a request without credentials with the bare challenge (RFC 6750 §3: no error code)", async () => {
    const { t } = await jwtApp();
    const response = await request(t.app).get(`${t.base()}/Users`);
    expectScimError(response, 401);
    expect(response.headers["www-authenticate"]).toBe('Bearer realm="SCIM"');
  });

  it("answers an expired token with invalid_token and says it expired", async () => {
    const { t } = await jwtApp();
    const now = Math.floor(Date.now() / 1000);
    const response = await t.get("/Users", await signToken(current, claims("acme", { iat: now - 3600, exp: now - 600 })));
    const { detail } = expectScimError(response, 401);
    expect(detail).toBe("Authentication failed: The access token has expired.");
    expect(response.headers["www-authenticate"]).toBe(
      'Bearer realm="SCIM", error="invalid_token", error_description="The access token has expired."',
    );
  });

  it("answers a wrong audience, a wrong issuer, alg none and a tampered token with invalid_token", async () => {
    const { t } = await jwtApp();
    const good = await signToken(current, claims("acme"));
    const [header, payload, signature] = good.split(".");
    const unsigned = `${Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url")}.${payload}.`;
    const tampered = `${header}.${Buffer.from(JSON.stringify(claims("acme", { sub: "someone-else" }))).toString("base64url")}.${signature}`;
    const cases: readonly (readonly [string, string, string])[] = [
      [
        "audience",
        await signToken(current, claims("acme", { aud: "https://other.example.com" })),
        "The access token was issued for another audience.",
      ],
      [
        "issuer",
        await signToken(current, claims("acme", { iss: "https://evil.example.com/" })),
        "The access token was issued by an issuer this service does not trust.",
      ],
      ["alg none", unsigned, "The access token is invalid."],
      ["tampered", tampered, "The access token is invalid."],
    ];
    for (const [name, token, description] of cases) {
      const response = await t.get("/Users", token);
      expectScimError(response, 401);
      expect(response.headers["www-authenticate"], name).toBe(
        `Bearer realm="SCIM", error="invalid_token", error_description="${description}"`,
      );
    }
    await t.get("/Users", good).expect(200);
  });

  it("answers another organization's token exactly as garbage: same status, body and challenge", async () => {
    const { t } = await jwtApp();
    const acmeToken = await signToken(current, claims("acme"));
    const foreign = await t.get(`${t.base("globex")}/Users`, acmeToken);
    const garbage = await t.get(`${t.base("globex")}/Users`, "not-a-jwt");
    const nowhere = await t.get(`${t.base("initech")}/Users`, acmeToken);
    for (const response of [foreign, garbage, nowhere]) {
      expectScimError(response, 401);
      expect(response.text).toBe(garbage.text);
      expect(response.headers["www-authenticate"]).toBe(INVALID_CHALLENGE);
    }
    expect(foreign.text).not.toMatch(/acme|globex|initech/);
    await t.get("/Users", acmeToken).expect(200);
  });

  it("accepts a token signed by a rotated-in key once the JWKS publishes it (refetch on the unknown kid)", async () => {
    const { t, jwks: server } = await jwtApp();
    const fromNext = await signToken(next, claims("acme"));
    const before = await t.get("/Users", fromNext);
    expectScimError(before, 401);
    expect(before.headers["www-authenticate"]).toBe(INVALID_CHALLENGE);
    server.publish([current, next]);
    await t.get("/Users", fromNext).expect(200);
    await t.get("/Users", await signToken(current, claims("acme"))).expect(200);
  });

  it("answers a valid token without the required scope with 403 insufficient_scope and the scope needed", async () => {
    const { t } = await jwtApp({ requiredScope: "scim" });
    const response = await t.get("/Users", await signToken(current, claims("acme", { scope: "openid profile" })));
    const { detail } = expectScimError(response, 403);
    expect(detail).toBe("Forbidden: The access token lacks the scope scim.");
    expect(response.headers["www-authenticate"]).toBe(
      'Bearer realm="SCIM", error="insufficient_scope", error_description="The access token lacks the scope scim.", scope="scim"',
    );
    await t.get("/Users", await signToken(current, claims("acme"))).expect(200);
  });

  it("answers 503 with Retry-After, never 500, while the JWKS cannot be fetched: 300 requests, one fetch; then recovers", async () => {
    const time = { at: Date.now() };
    const reported: unknown[] = [];
    const { t, jwks: server } = await jwtApp({ now: () => new Date(time.at), onKeySetError: (error) => reported.push(error) });
    server.failWith(502);
    const token = await signToken(current, claims("acme", {}, time.at));
    const statuses = new Set<number>();
    for (let batch = 0; batch < 10; batch += 1) {
      const responses = await Promise.all(Array.from({ length: 30 }, () => t.get("/Users", token)));
      for (const response of responses) statuses.add(response.status);
    }
    expect([...statuses]).toEqual([503]);
    expect(server.fetches).toBe(1);
    expect(reported).toHaveLength(1);
    const response = await t.get("/Users", token);
    expect(expectScimError(response, 503).detail).toMatch(/authorization server's keys could not be fetched/);
    expect(response.headers["retry-after"]).toBe("1");
    expect(response.headers["www-authenticate"]).toBeUndefined();
    expect(t.errors).toEqual([]);
    server.failWith(200);
    time.at += 1000;
    await t.get("/Users", token).expect(200);
    expect(server.fetches).toBe(2);
  });

  it("keeps accepting valid tokens on the last good key set once it aged and the JWKS fails", async () => {
    // A cache that ages at once, on the real clock: every request finds the key set due for a fetch.
    const { t, jwks: server } = await jwtApp({ cacheMaxAgeSeconds: 0, onKeySetError: () => undefined });
    await t.get("/Users", await signToken(current, claims("acme"))).expect(200);
    server.failWith(503);
    const token = await signToken(current, claims("acme"));
    const responses = await Promise.all(Array.from({ length: 30 }, () => t.get("/Users", token)));
    expect(new Set(responses.map((response) => response.status))).toEqual(new Set([200]));
    // One fetch, then one per backoff (1, 2, 4 s…): however slow the machine, far fewer than 30.
    expect(server.fetches).toBeGreaterThanOrEqual(2);
    expect(server.fetches).toBeLessThanOrEqual(5);
    // A made-up key during the outage cannot be checked: 503, not 401 nor 500.
    expectScimError(await t.get("/Users", await signToken(next, claims("acme"))), 503);
    expect(t.errors).toEqual([]);
  });
});
