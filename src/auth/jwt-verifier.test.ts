import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type JWTPayload, SignJWT } from "jose";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type JwksServer, signToken, startJwksServer, type TestKey, testKey } from "./jwks-server.fixture.js";
import { type JwtVerifierOptions, jwtVerifier } from "./jwt-verifier.js";
import { TokenRefusedError } from "./token-refused-error.js";
import { TokenVerificationUnavailableError } from "./token-verification-unavailable-error.js";
import type { VerifyContext } from "./token-verifier.js";

const ISSUER = "https://login.example.com/";
const AUDIENCE = "https://scim.example.com";
const request: VerifyContext = { method: "GET", path: "/Users" };

let rsa: TestKey;
let ec: TestKey;
let ed: TestKey;
let rotated: TestKey;
let servers: JwksServer[] = [];

beforeAll(async () => {
  [rsa, ec, ed, rotated] = await Promise.all([
    testKey("rsa-1", "RS256"),
    testKey("ec-1", "ES256"),
    testKey("ed-1", "EdDSA"),
    testKey("ec-2", "ES256"),
  ]);
});

afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function server(keys: readonly TestKey[] = [rsa, ec, ed]): Promise<JwksServer> {
  const started = await startJwksServer(keys);
  servers.push(started);
  return started;
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** Claims of a good token for `org`, issued now, valid for 10 minutes. */
function claims(org = "acme", extra: JWTPayload = {}): JWTPayload {
  const iat = nowSeconds();
  return { iss: ISSUER, aud: AUDIENCE, sub: "client-7", client_id: "client-7", org_id: org, iat, exp: iat + 600, scope: "scim", ...extra };
}

async function verifierOn(jwks: Pick<JwksServer, "url">, options: Partial<JwtVerifierOptions> = {}) {
  return jwtVerifier({ jwksUrl: jwks.url, issuer: ISSUER, audience: AUDIENCE, organizationClaim: "org_id", ...options });
}

/** The refusal `promise` rejects with, as plain data; fails the test if it resolves or throws anything else. */
async function refusalOf(promise: Promise<unknown>): Promise<{ code: string; description: string; scope: string | undefined }> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected a refusal, got ${JSON.stringify(value)}`);
    },
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(TokenRefusedError);
  const refusal = error as TokenRefusedError;
  return { code: refusal.code, description: refusal.description, scope: refusal.scope };
}

const INVALID = { code: "invalid_token", description: "The access token is invalid.", scope: undefined };

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

describe("jwtVerifier: accepted tokens", () => {
  it("accepts RS256, ES256 and EdDSA tokens of the organization asked about, naming the client", async () => {
    const auth = await verifierOn(await server());
    for (const key of [rsa, ec, ed]) {
      expect(await auth.verify(await signToken(key, claims()), "acme", request), key.alg).toEqual({ orgId: "acme", tokenId: "client-7" });
    }
  });

  it("takes the organization from a function of the claims", async () => {
    const auth = await verifierOn(await server(), {
      organizationClaim: (token) => (typeof token["tenant"] === "string" ? `t-${token["tenant"]}` : undefined),
    });
    expect(await auth.verify(await signToken(ec, claims("x", { tenant: "9" })), "t-9", request)).toEqual({
      orgId: "t-9",
      tokenId: "client-7",
    });
    expect(await refusalOf(auth.verify(await signToken(ec, claims("x")), "t-9", request))).toEqual(INVALID);
  });

  it("allows clockToleranceSeconds of skew on exp and nbf, and no more", async () => {
    const auth = await verifierOn(await server(), { clockToleranceSeconds: 60 });
    const now = nowSeconds();
    expect(await auth.verify(await signToken(ec, claims("acme", { exp: now - 30 })), "acme", request)).not.toBeNull();
    expect(await auth.verify(await signToken(ec, claims("acme", { nbf: now + 30 })), "acme", request)).not.toBeNull();
    expect(await refusalOf(auth.verify(await signToken(ec, claims("acme", { exp: now - 90 })), "acme", request))).toEqual({
      code: "invalid_token",
      description: "The access token has expired.",
      scope: undefined,
    });
    expect(await refusalOf(auth.verify(await signToken(ec, claims("acme", { nbf: now + 90 })), "acme", request))).toEqual({
      code: "invalid_token",
      description: "The access token is not valid yet.",
      scope: undefined,
    });
  });

  it("verifies HMAC tokens only with a configured secret", async () => {
    const secret = "s".repeat(32);
    const auth = jwtVerifier({ secret, issuer: ISSUER, audience: AUDIENCE, organizationClaim: "org_id" });
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode(secret));
    expect(await auth.verify(token, "acme", request)).toEqual({ orgId: "acme", tokenId: "client-7" });
    const other = await new SignJWT(claims()).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode("t".repeat(32)));
    expect(await refusalOf(auth.verify(other, "acme", request))).toEqual(INVALID);
  });
});

describe("jwtVerifier: every refusal the issue names", () => {
  it("refuses an expired token (401 invalid_token, 'expired')", async () => {
    const auth = await verifierOn(await server(), { clockToleranceSeconds: 0 });
    const token = await signToken(ec, claims("acme", { iat: nowSeconds() - 600, exp: nowSeconds() - 1 }));
    expect(await refusalOf(auth.verify(token, "acme", request))).toEqual({
      code: "invalid_token",
      description: "The access token has expired.",
      scope: undefined,
    });
  });

  it("refuses a token without exp: it would be valid forever", async () => {
    const auth = await verifierOn(await server());
    const { exp: _exp, ...withoutExpiry } = claims();
    expect((await refusalOf(auth.verify(await signToken(ec, withoutExpiry), "acme", request))).code).toBe("invalid_token");
  });

  it("refuses a token for another audience, and one of another issuer", async () => {
    const auth = await verifierOn(await server());
    expect(
      await refusalOf(auth.verify(await signToken(ec, claims("acme", { aud: "https://other.example.com" })), "acme", request)),
    ).toEqual({
      code: "invalid_token",
      description: "The access token was issued for another audience.",
      scope: undefined,
    });
    expect(
      await refusalOf(auth.verify(await signToken(ec, claims("acme", { iss: "https://evil.example.com/" })), "acme", request)),
    ).toEqual({
      code: "invalid_token",
      description: "The access token was issued by an issuer this service does not trust.",
      scope: undefined,
    });
  });

  it("refuses alg none, whatever the payload", async () => {
    const auth = await verifierOn(await server());
    const unsigned = `${base64url({ alg: "none", typ: "JWT" })}.${base64url(claims())}.`;
    expect(await refusalOf(auth.verify(unsigned, "acme", request))).toEqual(INVALID);
    const noneWithKid = `${base64url({ alg: "none", kid: ec.kid })}.${base64url(claims())}.`;
    expect(await refusalOf(auth.verify(noneWithKid, "acme", request))).toEqual(INVALID);
  });

  it("refuses an HS256 token 'signed' with the public key (algorithm confusion)", async () => {
    const auth = await verifierOn(await server([rsa]));
    const publicKeyAsSecret = new TextEncoder().encode(JSON.stringify(rsa.publicJwk));
    const forged = await new SignJWT(claims()).setProtectedHeader({ alg: "HS256", kid: rsa.kid }).sign(publicKeyAsSecret);
    expect(await refusalOf(auth.verify(forged, "acme", request))).toEqual(INVALID);
  });

  it("refuses an algorithm outside the allow-list even with a good signature", async () => {
    const auth = await verifierOn(await server(), { algorithms: ["RS256"] });
    expect(await auth.verify(await signToken(rsa, claims()), "acme", request)).not.toBeNull();
    expect(await refusalOf(auth.verify(await signToken(ec, claims()), "acme", request))).toEqual(INVALID);
  });

  it("refuses a tampered payload and a tampered signature", async () => {
    const auth = await verifierOn(await server());
    const token = await signToken(ec, claims("acme"));
    const [header, , signature] = token.split(".");
    const otherOrg = `${header}.${base64url(claims("globex"))}.${signature}`;
    expect(await refusalOf(auth.verify(otherOrg, "globex", request))).toEqual(INVALID);
    const lastChar = signature!.at(-2) === "A" ? "B" : "A";
    const badSignature = `${token.slice(0, -2)}${lastChar}${token.slice(-1)}`;
    expect(badSignature).not.toBe(token);
    expect(await refusalOf(auth.verify(badSignature, "acme", request))).toEqual(INVALID);
    // The untouched token still verifies: the refusals above are the tampering's.
    expect(await auth.verify(token, "acme", request)).not.toBeNull();
  });

  it("refuses garbage that is not a JWT at all", async () => {
    const auth = await verifierOn(await server());
    for (const garbage of ["garbage", "a.b.c", "scimkit_AAAA", `${base64url({ alg: "ES256" })}..`, "..."]) {
      expect(await refusalOf(auth.verify(garbage, "acme", request)), garbage).toEqual(INVALID);
    }
  });

  it("refuses a token of organization A on B's path exactly as garbage", async () => {
    const jwks = await server();
    const auth = await verifierOn(jwks);
    const acmeToken = await signToken(ec, claims("acme"));
    const foreign = await refusalOf(auth.verify(acmeToken, "globex", request));
    const garbage = await refusalOf(auth.verify("garbage", "globex", request));
    const unknownOrg = await refusalOf(auth.verify(acmeToken, "initech", request));
    expect(foreign).toEqual(INVALID);
    expect(garbage).toEqual(foreign);
    expect(unknownOrg).toEqual(foreign);
    // A token with no organization claim, or a non-string one, is refused the same way.
    expect(await refusalOf(auth.verify(await signToken(ec, claims("acme", { org_id: undefined })), "acme", request))).toEqual(INVALID);
    expect(await refusalOf(auth.verify(await signToken(ec, claims("acme", { org_id: ["acme"] })), "acme", request))).toEqual(INVALID);
  });

  it("refuses a token missing the required scope with 403 insufficient_scope, reading scope and scp", async () => {
    const auth = await verifierOn(await server(), { requiredScope: "scim" });
    expect(await auth.verify(await signToken(ec, claims("acme", { scope: "openid scim" })), "acme", request)).not.toBeNull();
    expect(await auth.verify(await signToken(ec, claims("acme", { scope: undefined, scp: ["scim"] })), "acme", request)).not.toBeNull();
    expect(await refusalOf(auth.verify(await signToken(ec, claims("acme", { scope: "openid" })), "acme", request))).toEqual({
      code: "insufficient_scope",
      description: "The access token lacks the scope scim.",
      scope: "scim",
    });
    // Another organization's token is refused for its organization first, never for its scope.
    expect(await refusalOf(auth.verify(await signToken(ec, claims("globex", { scope: "openid" })), "acme", request))).toEqual(INVALID);
  });

  it("refuses a token older than maxTokenAgeSeconds", async () => {
    const auth = await verifierOn(await server(), { maxTokenAgeSeconds: 300, clockToleranceSeconds: 0 });
    expect(await auth.verify(await signToken(ec, claims()), "acme", request)).not.toBeNull();
    const old = await signToken(ec, claims("acme", { iat: nowSeconds() - 400 }));
    expect(await refusalOf(auth.verify(old, "acme", request))).toEqual({
      code: "invalid_token",
      description: "The access token was issued too long ago.",
      scope: undefined,
    });
  });

  it("checks typ when told to", async () => {
    const auth = await verifierOn(await server(), { type: "at+jwt" });
    expect(await auth.verify(await signToken(ec, claims(), { typ: "at+jwt" }), "acme", request)).not.toBeNull();
    expect(await refusalOf(auth.verify(await signToken(ec, claims(), { typ: "JWT" }), "acme", request))).toEqual(INVALID);
  });
});

describe("jwtVerifier: key rotation", () => {
  it("refuses an unknown kid, then accepts it once the key set has it (refetched on the unknown kid)", async () => {
    const jwks = await server([ec]);
    const auth = await verifierOn(jwks, { jwksCooldownSeconds: 0 });
    expect(await auth.verify(await signToken(ec, claims()), "acme", request)).not.toBeNull();
    expect(jwks.fetches).toBe(1);
    const fromNewKey = await signToken(rotated, claims());
    expect(await refusalOf(auth.verify(fromNewKey, "acme", request))).toEqual(INVALID);
    expect(jwks.fetches).toBe(2);
    jwks.publish([ec, rotated]);
    expect(await auth.verify(fromNewKey, "acme", request)).toEqual({ orgId: "acme", tokenId: "client-7" });
    expect(jwks.fetches).toBe(3);
    // Known keys come from the cache.
    await auth.verify(fromNewKey, "acme", request);
    await auth.verify(await signToken(ec, claims()), "acme", request);
    expect(jwks.fetches).toBe(3);
  });

  it("does not refetch for unknown kids within the cooldown, so made-up kids cannot hammer the server", async () => {
    const jwks = await server([ec]);
    const auth = await verifierOn(jwks);
    expect(await auth.verify(await signToken(ec, claims()), "acme", request)).not.toBeNull();
    for (let i = 0; i < 5; i++) {
      const madeUp = await signToken(rotated, claims(), { kid: `made-up-${i}` });
      expect(await refusalOf(auth.verify(madeUp, "acme", request))).toEqual(INVALID);
    }
    expect(jwks.fetches).toBe(1);
  });

  it("verifies against a fixed key set without fetching anything", async () => {
    const auth = jwtVerifier({ jwks: { keys: [ec.publicJwk] }, issuer: ISSUER, audience: AUDIENCE, organizationClaim: "org_id" });
    expect(await auth.verify(await signToken(ec, claims()), "acme", request)).not.toBeNull();
    expect(await refusalOf(auth.verify(await signToken(rotated, claims()), "acme", request))).toEqual(INVALID);
  });
});

describe("jwtVerifier: the authorization server's outage (issue 27 item 9)", () => {
  /** A clock the verifier and the tokens share, moved by the test: the cache ages without waiting. */
  function clock() {
    let at = Date.now();
    return {
      now: () => new Date(at),
      advance(seconds: number) {
        at += seconds * 1000;
      },
      /** Claims of a good token issued at this clock's now. */
      claims(): JWTPayload {
        const iat = Math.floor(at / 1000);
        return { ...claims(), iat, exp: iat + 3600 };
      },
    };
  }

  async function outageVerifier(jwks: JwksServer, time: ReturnType<typeof clock>) {
    const reported: unknown[] = [];
    const auth = await verifierOn(jwks, { now: time.now, onKeySetError: (error) => reported.push(error) });
    return { auth, reported };
  }

  /** What each of `count` concurrent verifications of `token` settled as. */
  async function outcomes(auth: Awaited<ReturnType<typeof outageVerifier>>["auth"], token: string, count: number) {
    const settled = await Promise.allSettled(Array.from({ length: count }, () => auth.verify(token, "acme", request)));
    return settled.map((result) =>
      result.status === "fulfilled"
        ? "verified"
        : result.reason instanceof TokenVerificationUnavailableError
          ? "unavailable"
          : String(result.reason),
    );
  }

  it("with a cold cache, 300 requests during an outage make one fetch and are unavailable (503), never a failure", async () => {
    const jwks = await server([ec]);
    jwks.failWith(503);
    const time = clock();
    const { auth, reported } = await outageVerifier(jwks, time);
    const token = await signToken(ec, time.claims());
    expect(new Set(await outcomes(auth, token, 150))).toEqual(new Set(["unavailable"]));
    expect(new Set(await outcomes(auth, token, 150))).toEqual(new Set(["unavailable"]));
    expect(jwks.fetches).toBe(1);
    expect(reported).toHaveLength(1);
    expect(String(reported[0])).toMatch(/key set could not be loaded from http:\/\/127\.0\.0\.1:\d+\/\.well-known\/jwks\.json: .*503/);
    const error = await auth.verify(token, "acme", request).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(TokenVerificationUnavailableError);
    expect((error as TokenVerificationUnavailableError).retryAfterSeconds).toBe(1);
    expect(String(error)).toMatch(/keys could not be fetched/);
  });

  it("backs off exponentially between fetches while the server fails, up to jwksRetryMaxSeconds, and recovers", async () => {
    const jwks = await server([ec]);
    jwks.failWith(502);
    const time = clock();
    const auth = await verifierOn(jwks, { now: time.now, jwksRetryMaxSeconds: 4, onKeySetError: () => undefined });
    const token = await signToken(ec, time.claims());
    const fetchesAfter = async (seconds: number): Promise<number> => {
      time.advance(seconds);
      await outcomes(auth, token, 20);
      return jwks.fetches;
    };
    // Waits of 1, 2, 4, then 4 (the cap) seconds between fetches.
    expect([await fetchesAfter(0), await fetchesAfter(0.9), await fetchesAfter(0.1)]).toEqual([1, 1, 2]);
    expect([await fetchesAfter(1.9), await fetchesAfter(0.1)]).toEqual([2, 3]);
    expect([await fetchesAfter(3.9), await fetchesAfter(0.1)]).toEqual([3, 4]);
    expect([await fetchesAfter(3.9), await fetchesAfter(0.1)]).toEqual([4, 5]);
    jwks.failWith(200);
    time.advance(4);
    expect(new Set(await outcomes(auth, token, 20))).toEqual(new Set(["verified"]));
    expect(jwks.fetches).toBe(6);
  });

  it("keeps verifying with the last good key set after it aged, fetching at most once per backoff", async () => {
    const jwks = await server([ec]);
    const time = clock();
    const { auth } = await outageVerifier(jwks, time);
    expect(await auth.verify(await signToken(ec, time.claims()), "acme", request)).not.toBeNull();
    jwks.failWith(503);
    // Well past the cache's 600 s: the set is due for a fetch, and the fetch fails.
    time.advance(601);
    const token = await signToken(ec, time.claims());
    expect(new Set(await outcomes(auth, token, 300))).toEqual(new Set(["verified"]));
    expect(jwks.fetches).toBe(2);
    time.advance(1);
    expect(new Set(await outcomes(auth, token, 10))).toEqual(new Set(["verified"]));
    expect(jwks.fetches).toBe(3);
  });

  it("answers a key the last good set lacks as unavailable during the outage, and as invalid once the server answers", async () => {
    const jwks = await server([ec]);
    const time = clock();
    const { auth } = await outageVerifier(jwks, time);
    expect(await auth.verify(await signToken(ec, time.claims()), "acme", request)).not.toBeNull();
    jwks.failWith(503);
    time.advance(31);
    const fromNewKey = await signToken(rotated, time.claims());
    expect(await outcomes(auth, fromNewKey, 1)).toEqual(["unavailable"]);
    expect(jwks.fetches).toBe(2);
    jwks.failWith(200);
    time.advance(31);
    expect(await refusalOf(auth.verify(fromNewKey, "acme", request))).toEqual(INVALID);
    expect(jwks.fetches).toBe(3);
  });

  it("makes one fetch for many concurrent first requests", async () => {
    const jwks = await server([ec]);
    const time = clock();
    const { auth } = await outageVerifier(jwks, time);
    expect(new Set(await outcomes(auth, await signToken(ec, time.claims()), 50))).toEqual(new Set(["verified"]));
    expect(jwks.fetches).toBe(1);
  });

  it("treats an unreachable server like a failing one: unavailable, not a failure of the service", async () => {
    const jwks = await server([ec]);
    const url = jwks.url;
    await jwks.close();
    servers = [];
    const reported: unknown[] = [];
    const auth = jwtVerifier({
      jwksUrl: url,
      issuer: ISSUER,
      audience: AUDIENCE,
      organizationClaim: "org_id",
      jwksTimeoutSeconds: 2,
      onKeySetError: (error) => reported.push(error),
    });
    await expect(auth.verify(await signToken(ec, claims()), "acme", request)).rejects.toBeInstanceOf(TokenVerificationUnavailableError);
    expect(reported).toHaveLength(1);
  });

  it("refuses a key set larger than 512 KiB without keeping it", async () => {
    const big = createServer((_request, response) => {
      response
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ keys: [ec.publicJwk], pad: "x".repeat(600 * 1024) }));
    });
    await new Promise<void>((resolve) => big.listen(0, "127.0.0.1", resolve));
    const reported: unknown[] = [];
    try {
      const { port } = big.address() as AddressInfo;
      const auth = await verifierOn({ url: `http://127.0.0.1:${port}/jwks` }, { onKeySetError: (error) => reported.push(error) });
      await expect(auth.verify(await signToken(ec, claims()), "acme", request)).rejects.toBeInstanceOf(TokenVerificationUnavailableError);
      expect(String(reported[0])).toMatch(/larger than 524288 bytes/);
    } finally {
      big.closeAllConnections();
      await new Promise((resolve) => big.close(resolve));
    }
  });
});

describe("jwtVerifier: configuration that would accept forged tokens is refused", () => {
  const base = { issuer: ISSUER, audience: AUDIENCE, organizationClaim: "org_id", jwksUrl: "https://login.example.com/jwks" } as const;

  it("never accepts none, nor HMAC against a key set", () => {
    expect(() => jwtVerifier({ ...base, algorithms: ["none"] })).toThrow(/none/);
    expect(() => jwtVerifier({ ...base, algorithms: ["RS256", "NONE"] })).toThrow(/none/);
    expect(() => jwtVerifier({ ...base, algorithms: ["HS256"] })).toThrow(/HS256 needs a secret/);
    expect(() => jwtVerifier({ ...base, algorithms: [] })).toThrow(/at least one/);
  });

  it("needs exactly one key source, an issuer, an audience and an organization claim", () => {
    expect(() => jwtVerifier({ ...base, jwks: { keys: [] } })).toThrow(/exactly one/);
    const { jwksUrl: _url, ...noSource } = base;
    expect(() => jwtVerifier(noSource)).toThrow(/exactly one/);
    expect(() => jwtVerifier({ ...base, issuer: "" })).toThrow(/issuer/);
    expect(() => jwtVerifier({ ...base, audience: [] })).toThrow(/audience/);
    expect(() => jwtVerifier({ ...base, organizationClaim: "" })).toThrow(/organizationClaim/);
    expect(() => jwtVerifier({ ...base, jwksUrl: "not a url" })).toThrow(/not a URL/);
    expect(() => jwtVerifier({ ...base, jwksUrl: "file:///etc/jwks.json" })).toThrow(/https/);
    expect(() => jwtVerifier({ ...base, clockToleranceSeconds: -1 })).toThrow(/clockToleranceSeconds/);
  });

  it("refuses private or symmetric keys in a fixed key set, and short secrets", async () => {
    const { jwksUrl: _url, ...noSource } = base;
    const privateJwk = { kty: "EC", crv: "P-256", x: "x", y: "y", d: "d" };
    expect(() => jwtVerifier({ ...noSource, jwks: { keys: [privateJwk] } })).toThrow(/public keys only/);
    expect(() => jwtVerifier({ ...noSource, jwks: { keys: [{ kty: "oct", k: "c2VjcmV0" }] } })).toThrow(/public keys only/);
    expect(() => jwtVerifier({ ...noSource, secret: "short" })).toThrow(/32 bytes/);
    expect(() => jwtVerifier({ ...noSource, secret: "s".repeat(32), algorithms: ["RS256"] })).toThrow(/only HS256/);
  });
});
