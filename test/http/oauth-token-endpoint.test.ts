/**
 * The OAuth 2.0 client credentials grant (RFC 6749 §4.4, issue 20 item 3): a token endpoint per
 * organization issuing short-lived JWT access tokens to clients that are tokens of the token store,
 * and the SCIM router accepting those access tokens beside the long-lived bearer tokens.
 */
import express from "express";
import { decodeJwt, decodeProtectedHeader } from "jose";
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { accessTokenIssuer, type AccessTokenIssuer, generateSigningKey } from "../../src/auth/access-token-issuer.js";
import { clientCredentialsVerifier } from "../../src/auth/client-credentials-verifier.js";
import { createTokenStore } from "../../src/auth/hashed-token-store.js";
import { createOAuthTokenRouter } from "../../src/http/oauth/create-oauth-token-router.js";
import { createScimRouter } from "../../src/http/create-scim-router.js";
import { defaultStore, expectScimError, userBody } from "./harness.js";

const ISSUER = "https://scim.example.com";
let signingKey: Awaited<ReturnType<typeof generateSigningKey>>;

beforeAll(async () => {
  signingKey = await generateSigningKey();
});

async function oauthApp(options: { readonly issuer?: AccessTokenIssuer } = {}) {
  const clients = createTokenStore();
  const issuer = options.issuer ?? (await accessTokenIssuer({ signingKey, issuer: ISSUER }));
  const errors: unknown[] = [];
  const app = express();
  app.use("/oauth/Organizations/:orgId", createOAuthTokenRouter({ clients, issuer, onError: (error) => errors.push(error) }));
  app.use(
    "/scim/Organizations/:orgId/v2",
    createScimRouter({
      store: await defaultStore(),
      auth: clientCredentialsVerifier({ clients, issuer }),
      onError: (error) => errors.push(error),
    }),
  );
  const acme = await clients.issue("acme", { label: "Entra" });
  const globex = await clients.issue("globex");
  return {
    app,
    clients,
    issuer,
    errors,
    acme: { id: acme.record.id, secret: acme.token },
    globex: { id: globex.record.id, secret: globex.token },
  };
}

function basic(id: string, secret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replaceAll("%20", "+");
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString("base64")}`;
}

function tokenRequest(app: express.Express, org = "acme") {
  return request(app).post(`/oauth/Organizations/${org}/token`).type("form");
}

interface TokenBody {
  readonly access_token: string;
  readonly token_type: string;
  readonly expires_in: number;
  readonly scope: string;
}

function expectOAuthError(response: request.Response, status: number, error: string): void {
  expect(response.status, response.text).toBe(status);
  expect(response.body).toEqual({ error, error_description: expect.any(String) });
  expect(response.headers["cache-control"]).toBe("no-store");
  if (error === "invalid_client") expect(response.headers["www-authenticate"]).toBe('Basic realm="OAuth", charset="UTF-8"');
  else expect(response.headers["www-authenticate"]).toBeUndefined();
}

describe("the token endpoint: client credentials", () => {
  it("issues an access token to a client authenticated with HTTP Basic, which provisions through the SCIM router", async () => {
    const { app, acme } = await oauthApp();
    const response = await tokenRequest(app)
      .set("Authorization", basic(acme.id, acme.secret))
      .send("grant_type=client_credentials")
      .expect(200);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.headers["pragma"]).toBe("no-cache");
    const body = response.body as TokenBody;
    expect(body).toEqual({ access_token: expect.any(String), token_type: "Bearer", expires_in: 900, scope: "scim" });
    expect(decodeProtectedHeader(body.access_token)).toMatchObject({ alg: "ES256", typ: "at+jwt", kid: signingKey.kid });
    expect(decodeJwt(body.access_token)).toMatchObject({
      iss: ISSUER,
      aud: ISSUER,
      sub: acme.id,
      client_id: acme.id,
      org_id: "acme",
      scope: "scim",
    });
    const created = await request(app)
      .post("/scim/Organizations/acme/v2/Users")
      .set("Authorization", `Bearer ${body.access_token}`)
      .set("Content-Type", "application/scim+json")
      .send(JSON.stringify(userBody("alice")))
      .expect(201);
    expect((created.body as { userName: string }).userName).toBe("alice");
  });

  it("accepts client_id and client_secret in the body, and the scope scim", async () => {
    const { app, acme } = await oauthApp();
    const response = await tokenRequest(app)
      .send({ grant_type: "client_credentials", client_id: acme.id, client_secret: acme.secret, scope: "scim" })
      .expect(200);
    await request(app)
      .get("/scim/Organizations/acme/v2/Users")
      .set("Authorization", `Bearer ${(response.body as TokenBody).access_token}`)
      .expect(200);
  });

  it("keeps accepting the client secret itself as a long-lived bearer token", async () => {
    const { app, acme } = await oauthApp();
    await request(app).get("/scim/Organizations/acme/v2/Users").set("Authorization", `Bearer ${acme.secret}`).expect(200);
  });

  it("serves the public key at /jwks, without its private part", async () => {
    const { app } = await oauthApp();
    const response = await request(app).get("/oauth/Organizations/acme/jwks").expect(200);
    expect(String(response.headers["content-type"])).toMatch(/^application\/jwk-set\+json/);
    const { keys } = JSON.parse(response.text) as { keys: Record<string, unknown>[] };
    expect(keys).toHaveLength(1);
    expect(keys[0]).toEqual({ kty: "EC", crv: "P-256", x: signingKey.x, y: signingKey.y, use: "sig", alg: "ES256", kid: signingKey.kid });
  });
});

describe("the token endpoint: refusals (RFC 6749 §5.2)", () => {
  it("answers a wrong secret, an unknown client, a wrong client id and another organization's client with the same invalid_client", async () => {
    const { app, acme, globex } = await oauthApp();
    const attempts = [
      ["wrong secret", tokenRequest(app).set("Authorization", basic(acme.id, `${acme.secret}x`))],
      ["unknown client", tokenRequest(app).set("Authorization", basic("nobody", "scimkit_nothing"))],
      ["secret of another client id", tokenRequest(app).set("Authorization", basic(globex.id, acme.secret))],
      ["globex's client on acme", tokenRequest(app).set("Authorization", basic(globex.id, globex.secret))],
      ["acme's client on an unknown organization", tokenRequest(app, "initech").set("Authorization", basic(acme.id, acme.secret))],
      ["no credentials", tokenRequest(app)],
      ["a Bearer header", tokenRequest(app).set("Authorization", `Bearer ${acme.secret}`)],
      ["body secret, wrong", tokenRequest(app).send({ client_id: acme.id, client_secret: "wrong" })],
    ] as const;
    const texts = new Set<string>();
    for (const [name, attempt] of attempts) {
      const response = await (name.startsWith("body") ? attempt : attempt.send("grant_type=client_credentials"));
      expectOAuthError(response, 401, "invalid_client");
      texts.add(response.text);
    }
    expect(texts.size).toBe(1);
    expect([...texts][0]).not.toMatch(/acme|globex|initech/);
  });

  it("answers another grant type with unsupported_grant_type and a missing one with invalid_request", async () => {
    const { app, acme } = await oauthApp();
    for (const grant of ["authorization_code", "password", "refresh_token", "urn:ietf:params:oauth:grant-type:jwt-bearer"]) {
      const response = await tokenRequest(app).set("Authorization", basic(acme.id, acme.secret)).send({ grant_type: grant });
      expectOAuthError(response, 400, "unsupported_grant_type");
    }
    expectOAuthError(
      await tokenRequest(app).set("Authorization", basic(acme.id, acme.secret)).send({ scope: "scim" }),
      400,
      "invalid_request",
    );
  });

  it("answers malformed requests with invalid_request, never a 500", async () => {
    const { app, acme, errors } = await oauthApp();
    const auth = basic(acme.id, acme.secret);
    const json = await request(app)
      .post("/oauth/Organizations/acme/token")
      .set("Authorization", auth)
      .send({ grant_type: "client_credentials" });
    expectOAuthError(json, 400, "invalid_request");
    const repeated = await tokenRequest(app).set("Authorization", auth).send("grant_type=client_credentials&grant_type=client_credentials");
    expectOAuthError(repeated, 400, "invalid_request");
    const both = await tokenRequest(app)
      .set("Authorization", auth)
      .send({ grant_type: "client_credentials", client_id: acme.id, client_secret: acme.secret });
    expectOAuthError(both, 400, "invalid_request");
    const tooBig = await tokenRequest(app)
      .set("Authorization", auth)
      .send(`grant_type=client_credentials&x=${"a".repeat(10_000)}`);
    expect(tooBig.status).toBe(413);
    expect((tooBig.body as { error: string }).error).toBe("invalid_request");
    const badEscape = await tokenRequest(app)
      .set("Authorization", `Basic ${Buffer.from(`${acme.id}:%E0%A4%A`).toString("base64")}`)
      .send("grant_type=client_credentials");
    expectOAuthError(badEscape, 400, "invalid_request");
    expectOAuthError(
      await tokenRequest(app).set("Authorization", auth).send({ grant_type: "client_credentials", scope: "scim admin" }),
      400,
      "invalid_scope",
    );
    const get = await request(app).get("/oauth/Organizations/acme/token");
    expect(get.status).toBe(405);
    expect(get.headers["allow"]).toBe("POST");
    // Rendered by the endpoint's one error handler, so never cached like its every other answer (RFC 6749 §5.1).
    expect(JSON.parse(get.text)).toEqual({ error: "invalid_request", error_description: "Use POST." });
    expect(get.headers["cache-control"]).toBe("no-store");
    expect(errors).toEqual([]);
  });
});

describe("the token endpoint: failed authentications", () => {
  it("answers 429 slow_down with Retry-After by default once a client has failed 10 times in a minute", async () => {
    const { app, acme } = await oauthApp();
    const statuses: number[] = [];
    // The default refills one failure every 6 s: 20 attempts cannot all pass unless they took a minute.
    for (let attempt = 0; attempt < 20 && statuses.at(-1) !== 429; attempt += 1) {
      statuses.push((await tokenRequest(app).set("Authorization", basic(acme.id, "wrong")).send("grant_type=client_credentials")).status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array.from({ length: 10 }, () => 401));
    expect(statuses.at(-1)).toBe(429);
    const refused = await tokenRequest(app).set("Authorization", basic(acme.id, acme.secret)).send("grant_type=client_credentials");
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: "slow_down", error_description: expect.any(String) });
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
  });

  it("counts nothing with failureLimiter false", async () => {
    const clients = createTokenStore();
    const issuer = await accessTokenIssuer({ signingKey, issuer: ISSUER });
    const app = express();
    app.use("/oauth/Organizations/:orgId", createOAuthTokenRouter({ clients, issuer, failureLimiter: false }));
    const { record, token } = await clients.issue("acme");
    for (let attempt = 0; attempt < 12; attempt += 1) {
      expect((await tokenRequest(app).set("Authorization", basic(record.id, "wrong")).send("grant_type=client_credentials")).status).toBe(
        401,
      );
    }
    await tokenRequest(app).set("Authorization", basic(record.id, token)).send("grant_type=client_credentials").expect(200);
  });
});

describe("access tokens on the SCIM router", () => {
  async function accessToken(
    app: express.Express,
    client: { readonly id: string; readonly secret: string },
    org = "acme",
  ): Promise<string> {
    const response = await tokenRequest(app, org)
      .set("Authorization", basic(client.id, client.secret))
      .send("grant_type=client_credentials")
      .expect(200);
    return (response.body as TokenBody).access_token;
  }

  it("refuses acme's access token on globex exactly as garbage", async () => {
    const { app, acme } = await oauthApp();
    const token = await accessToken(app, acme);
    const foreign = await request(app).get("/scim/Organizations/globex/v2/Users").set("Authorization", `Bearer ${token}`);
    const garbage = await request(app).get("/scim/Organizations/globex/v2/Users").set("Authorization", "Bearer a.b.c");
    expectScimError(foreign, 401);
    expect(foreign.text).toBe(garbage.text);
    expect(foreign.headers["www-authenticate"]).toBe(garbage.headers["www-authenticate"]);
    expect(foreign.headers["www-authenticate"]).toBe(
      'Bearer realm="SCIM", error="invalid_token", error_description="The access token is invalid."',
    );
  });

  it("stops accepting a client's access tokens as soon as the client is revoked", async () => {
    const { app, acme, clients } = await oauthApp();
    const token = await accessToken(app, acme);
    await request(app).get("/scim/Organizations/acme/v2/Users").set("Authorization", `Bearer ${token}`).expect(200);
    expect(await clients.revoke("acme", acme.id)).toBe(true);
    const refused = await request(app).get("/scim/Organizations/acme/v2/Users").set("Authorization", `Bearer ${token}`);
    expectScimError(refused, 401);
    expect(refused.headers["www-authenticate"]).toBe(
      'Bearer realm="SCIM", error="invalid_token", error_description="The access token was revoked."',
    );
  });

  it("stops accepting access tokens issued before the client's secret was rotated", async () => {
    const clock = { at: Date.parse("2030-01-01T00:00:00Z") };
    const issuer = await accessTokenIssuer({ signingKey, issuer: ISSUER, now: () => new Date(clock.at) });
    const { app, acme, clients } = await oauthApp({ issuer });
    // Issued a minute before the rotation (the real clock rotates; this issuer's clock is behind it).
    clock.at = Date.now() - 60_000;
    const before = await accessToken(app, acme);
    const rotated = await clients.rotate("acme", acme.id);
    if (rotated === undefined) throw new Error("rotation failed");
    clock.at = Date.now() + 1000;
    const after = await accessToken(app, { id: acme.id, secret: rotated.token });
    expectScimError(await request(app).get("/scim/Organizations/acme/v2/Users").set("Authorization", `Bearer ${before}`), 401);
    await request(app).get("/scim/Organizations/acme/v2/Users").set("Authorization", `Bearer ${after}`).expect(200);
    expectOAuthError(
      await tokenRequest(app).set("Authorization", basic(acme.id, acme.secret)).send("grant_type=client_credentials"),
      401,
      "invalid_client",
    );
  });

  it("keeps access tokens issued before a rotation valid during its grace period, and refuses them after", async () => {
    const clock = { at: Date.now() - 60_000 };
    const issuer = await accessTokenIssuer({ signingKey, issuer: ISSUER, now: () => new Date(clock.at) });
    const { app, acme, clients } = await oauthApp({ issuer });
    const before = await accessToken(app, acme);
    const graced = await clients.rotate("acme", acme.id, { graceSeconds: 3600 });
    if (graced === undefined) throw new Error("rotation failed");
    await request(app).get("/scim/Organizations/acme/v2/Users").set("Authorization", `Bearer ${before}`).expect(200);
    // A second rotation without grace ends the first one's.
    await clients.rotate("acme", acme.id);
    expectScimError(await request(app).get("/scim/Organizations/acme/v2/Users").set("Authorization", `Bearer ${before}`), 401);
  });

  it("refuses an expired access token with invalid_token", async () => {
    const issuer = await accessTokenIssuer({ signingKey, issuer: ISSUER, lifetimeSeconds: 60, now: () => new Date(Date.now() - 3600_000) });
    const { app, acme } = await oauthApp({ issuer });
    const token = await accessToken(app, acme);
    const response = await request(app).get("/scim/Organizations/acme/v2/Users").set("Authorization", `Bearer ${token}`);
    expectScimError(response, 401);
    expect(response.headers["www-authenticate"]).toBe(
      'Bearer realm="SCIM", error="invalid_token", error_description="The access token has expired."',
    );
  });

  it("refuses a token signed by another key, even with our kid", async () => {
    const { app } = await oauthApp();
    const other = await accessTokenIssuer({ signingKey: { ...(await generateSigningKey()), kid: signingKey.kid }, issuer: ISSUER });
    const { accessToken: forged } = await other.issue({ orgId: "acme", clientId: "x", secretId: "x" });
    const response = await request(app).get("/scim/Organizations/acme/v2/Users").set("Authorization", `Bearer ${forged}`);
    expectScimError(response, 401);
    expect(response.headers["www-authenticate"]).toBe(
      'Bearer realm="SCIM", error="invalid_token", error_description="The access token is invalid."',
    );
  });
});

describe("accessTokenIssuer and generateSigningKey", () => {
  it("signs with EdDSA keys too, and refuses keys it cannot sign with", async () => {
    const ed = await generateSigningKey("EdDSA");
    const issuer = await accessTokenIssuer({ signingKey: ed, issuer: ISSUER });
    expect(issuer.algorithm).toBe("EdDSA");
    expect(issuer.jwks.keys[0]).not.toHaveProperty("d");
    const { x: _x, y: _y, ...notEc } = signingKey;
    await expect(accessTokenIssuer({ signingKey: { ...notEc, crv: "P-384" }, issuer: ISSUER })).rejects.toThrow(/P-256/);
    const { d: _d, ...publicOnly } = signingKey;
    await expect(accessTokenIssuer({ signingKey: publicOnly, issuer: ISSUER })).rejects.toThrow(/private/);
    await expect(accessTokenIssuer({ signingKey, issuer: ISSUER, lifetimeSeconds: 59 })).rejects.toThrow(/lifetimeSeconds/);
    await expect(accessTokenIssuer({ signingKey, issuer: "" })).rejects.toThrow(/issuer/);
  });
});
