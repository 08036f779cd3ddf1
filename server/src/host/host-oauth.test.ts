/**
 * Issue 20 item 3 in the host: with `SCIMKIT_OAUTH_SIGNING_KEY` set, `scimkit serve` serves the
 * OAuth 2.0 token endpoint, its clients the organization's tokens, and its SCIM API accepts the
 * access tokens beside the bearer tokens. A real host process, as `npm start` runs it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { generateSigningKey } from "scimkit/oauth";
import { killHosts, startHost } from "./host-process.fixture.js";

afterEach(killHosts);

const OPERATOR_KEY = "operator-key-for-oauth-0123456789abcdef0123";

describe("the host's OAuth 2.0 token endpoint", () => {
  it("issues access tokens to the demo organization's token as a client, which the SCIM API accepts", { timeout: 60_000 }, async () => {
    const host = startHost({
      DATABASE_URL: "memory:",
      SCIMKIT_OPERATOR_KEY: OPERATOR_KEY,
      SCIMKIT_DEMO_DATA: "0",
      SCIMKIT_OAUTH_SIGNING_KEY: JSON.stringify(await generateSigningKey("EdDSA")),
    });
    const [, port] = await host.waitFor(/listening on port (\d+)/);
    const [, secret] = await host.waitFor(/^Bearer token for demo \(shown once\): (\S+)$/);
    const origin = `http://localhost:${port}`;
    const listed = await fetch(`${origin}/analytics/v1/organizations/demo/tokens`, {
      headers: { Authorization: `Bearer ${OPERATOR_KEY}` },
    });
    expect(listed.status).toBe(200);
    const clientId = String(((await listed.json()) as { data: { id: string }[] }).data[0]?.id);

    const tokenResponse = await fetch(`${origin}/oauth/Organizations/demo/token`, {
      method: "POST",
      headers: {
        Authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: "grant_type=client_credentials",
    });
    expect(tokenResponse.status).toBe(200);
    const issued = (await tokenResponse.json()) as { access_token: string; token_type: string; expires_in: number };
    expect(issued.token_type).toBe("Bearer");
    expect(issued.expires_in).toBe(900);

    const users = await fetch(`${origin}/scim/Organizations/demo/v2/Users`, {
      headers: { Authorization: `Bearer ${issued.access_token}` },
    });
    expect(users.status).toBe(200);
    // The long-lived bearer token keeps working beside it.
    expect((await fetch(`${origin}/scim/Organizations/demo/v2/Users`, { headers: { Authorization: `Bearer ${secret}` } })).status).toBe(
      200,
    );

    const attempt = (password: string) =>
      fetch(`${origin}/oauth/Organizations/demo/token`, {
        method: "POST",
        headers: {
          Authorization: `Basic ${Buffer.from(`${clientId}:${password}`).toString("base64")}`,
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body: "grant_type=client_credentials",
      });
    const wrong = await attempt(`${secret}x`);
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toBe('Basic realm="OAuth", charset="UTF-8"');
    expect((await wrong.json()) as unknown).toEqual({ error: "invalid_client", error_description: expect.any(String) });
    // Wrong secrets are bounded (10 a minute per client and per address): then 429 slow_down, the right secret included.
    const statuses: number[] = [];
    for (let tries = 0; tries < 20 && statuses.at(-1) !== 429; tries += 1) statuses.push((await attempt(`${secret}x`)).status);
    expect(statuses.slice(0, 9)).toEqual(Array.from({ length: 9 }, () => 401));
    expect(statuses.at(-1)).toBe(429);
    const slowed = await attempt(String(secret));
    expect(slowed.status).toBe(429);
    expect(Number(slowed.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await slowed.json()) as unknown).toEqual({ error: "slow_down", error_description: expect.any(String) });

    const jwks = await fetch(`${origin}/oauth/Organizations/demo/jwks`);
    const keys = ((await jwks.json()) as { keys: Record<string, unknown>[] }).keys;
    expect(keys.map((key) => [key["kty"], key["crv"], "d" in key])).toEqual([["OKP", "Ed25519", false]]);
  });

  it("serves no token endpoint without the key", { timeout: 60_000 }, async () => {
    const host = startHost({ DATABASE_URL: "memory:", SCIMKIT_DEMO_DATA: "0" });
    const [, port] = await host.waitFor(/listening on port (\d+)/);
    const response = await fetch(`http://localhost:${port}/oauth/Organizations/demo/token`, { method: "POST" });
    expect(response.status).toBe(404);
  });
});
