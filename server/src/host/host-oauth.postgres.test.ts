/**
 * Issue 27 item 6 in the host as the issue ran it: PostgreSQL, `SCIMKIT_WORKERS=2`. An access token
 * obtained just before the operator rotates its client secret is refused by every worker right
 * after the rotation, and wrong client secrets are bounded across the workers together (counted in
 * the database), not per worker. (A worker that has not yet met the refusal checks one more secret
 * before it refuses too: the right one then passes, a wrong one is answered 429.) Real processes.
 */
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { generateSigningKey } from "scimkit/oauth";
import { createTestSchema, describePostgres, type TestSchema } from "../../../src/store/sql/postgres-test-database.fixture.js";
import { killHosts, startHost } from "./host-process.fixture.js";

const OPERATOR_KEY = "operator-key-for-oauth-workers-0123456789abcdef";

describePostgres("the host's OAuth 2.0 token endpoint with two workers on PostgreSQL", (url) => {
  let schema: TestSchema;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(async () => schema.drop());
  afterEach(killHosts);

  it("refuses on every worker a token obtained just before a rotation, and bounds wrong secrets across workers", {
    timeout: 90_000,
  }, async () => {
    const database = new URL(url);
    database.searchParams.set("schema", schema.name);
    const host = startHost({
      DATABASE_URL: database.toString(),
      SCIMKIT_WORKERS: "2",
      // The test speaks from many addresses (X-Forwarded-For), so the bound met is the client's.
      SCIMKIT_TRUST_PROXY: "loopback",
      SCIMKIT_OPERATOR_KEY: OPERATOR_KEY,
      SCIMKIT_DEMO_DATA: "0",
      SCIMKIT_OAUTH_SIGNING_KEY: JSON.stringify(await generateSigningKey()),
    });
    const [, port] = await host.waitFor(/listening on port (\d+)/);
    const [, shown] = await host.waitFor(/^Bearer token for demo \(shown once\): (\S+)$/);
    const origin = `http://localhost:${port}`;
    const operator = { Authorization: `Bearer ${OPERATOR_KEY}`, "Content-Type": "application/json", Connection: "close" };
    const listed = await fetch(`${origin}/analytics/v1/organizations/demo/tokens`, { headers: operator });
    const clientId = String(((await listed.json()) as { data: { id: string }[] }).data[0]?.id);
    // Each request on a new connection: the primary deals connections to the workers in turn.
    const tokenRequest = (secret: string, address: string) =>
      fetch(`${origin}/oauth/Organizations/demo/token`, {
        method: "POST",
        headers: {
          Authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`,
          "Content-Type": "application/x-www-form-urlencoded",
          "X-Forwarded-For": address,
          Connection: "close",
        },
        body: "grant_type=client_credentials",
      });
    const users = (token: string) =>
      fetch(`${origin}/scim/Organizations/demo/v2/Users`, { headers: { Authorization: `Bearer ${token}`, Connection: "close" } });

    let secret = String(shown);
    for (let trial = 0; trial < 3; trial += 1) {
      const issued = await tokenRequest(secret, "192.0.2.1");
      expect(issued.status).toBe(200);
      const accessToken = ((await issued.json()) as { access_token: string }).access_token;
      const rotated = await fetch(`${origin}/analytics/v1/organizations/demo/tokens/${clientId}/rotate`, {
        method: "POST",
        headers: operator,
        body: "{}",
      });
      expect(rotated.status).toBe(200);
      secret = ((await rotated.json()) as { secret: string }).secret;
      const statuses = await Promise.all([users(accessToken), users(accessToken), users(accessToken), users(accessToken)]);
      expect(statuses.map((response) => response.status)).toEqual([401, 401, 401, 401]);
    }

    const answers: number[] = [];
    for (let attempt = 0; attempt < 24 && answers.at(-1) !== 429; attempt += 1) {
      answers.push((await tokenRequest(`${secret}x`, `198.51.100.${attempt}`)).status);
    }
    // 10 failures a minute for the client, all workers together (each alone would allow 10 more);
    // a slow machine may see one refilled in the meantime.
    expect(answers.at(-1)).toBe(429);
    expect(answers.filter((status) => status === 401).length).toBeGreaterThanOrEqual(10);
    expect(answers.filter((status) => status === 401).length).toBeLessThanOrEqual(12);
    // Every worker now refuses the client's wrong secrets: the bucket in the database is empty.
    const after: number[] = [];
    for (let attempt = 0; attempt < 4; attempt += 1) after.push((await tokenRequest(`${secret}x`, `203.0.113.${attempt}`)).status);
    expect(after).toEqual([429, 429, 429, 429]);
  });
});
