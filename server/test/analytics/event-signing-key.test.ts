/**
 * An organization's SET signing key through the operator API (issue 20): the key that signs and
 * the JWKS (public keys only), and a rotation after which the new key signs and the replaced one is
 * still served; audited by the new key's id, never key material; an admin rotates only its
 * organizations' keys (another's is 404 as an unknown one), a viewer only reads; without a delivery
 * both operations are 404 saying so. On the project's store (memory, or SQLite in
 * `express5-sqlite`) and, when `SCIMKIT_TEST_POSTGRES_URL` is set, on PostgreSQL, through the
 * real router and the harness of the receiver operations.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryAuditTrail } from "../../../src/audit/memory-audit-trail.js";
import { createTestSchema, describePostgres, type TestSchema } from "../../../src/store/sql/postgres-test-database.fixture.js";
import {
  POPULATED,
  UNKNOWN,
  createAnalyticsTestApp,
  expectProblem,
  type AnalyticsTestApp,
  type TestAppOptions,
} from "./analytics-harness.js";
import { adminWithKey, createOrganization } from "./analytics-world.js";

interface SigningKeyAnswer {
  readonly kid: string;
  readonly jwksUrl: string;
  readonly jwks: { readonly keys: readonly Record<string, unknown>[] };
}

async function signingKey(t: AnalyticsTestApp, orgId: string, key?: string): Promise<SigningKeyAnswer> {
  const response = await t.get(`/organizations/${orgId}/event-signing-key`, key);
  expect(response.status, response.text).toBe(200);
  return response.body as SigningKeyAnswer;
}

async function rotate(t: AnalyticsTestApp, orgId: string, key?: string): Promise<{ kid: string; jwksUrl: string }> {
  const response = await t.post(`/organizations/${orgId}/event-signing-key/rotate`, undefined, key);
  expect(response.status, response.text).toBe(200);
  return response.body as { kid: string; jwksUrl: string };
}

/** The tests, on the stores `options` select. */
function signingKeys(options: () => TestAppOptions): void {
  let apps: AnalyticsTestApp[] = [];
  async function app(extra: TestAppOptions = {}): Promise<AnalyticsTestApp> {
    const t = await createAnalyticsTestApp({ ...options(), securityEvents: true, ...extra });
    apps.push(t);
    return t;
  }
  afterAll(async () => {
    await Promise.all(apps.map((t) => t.close()));
    apps = [];
  });

  it("shows the signing key and its public JWKS, and after a rotation the new key first and the old one still served", async () => {
    const trail = memoryAuditTrail();
    const t = await app({ router: { onAudit: trail } });
    const org = await createOrganization(t, "Acme");

    const before = await signingKey(t, org.id);
    expect(before.jwksUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/scim/Organizations/${org.id}/events/jwks\\.json$`));
    expect(before.jwks.keys.map((key) => key["kid"])).toEqual([before.kid]);
    expect(before.jwks.keys[0]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    expect(before.jwks.keys[0]).not.toHaveProperty("d");
    // The same key the delivery signs with, and the same JWKS receivers are served.
    expect((await t.securityEventKeys?.signingKey(org.id))?.kid).toBe(before.kid);
    expect(before.jwks).toEqual(await t.securityEventKeys?.jwks(org.id));

    const rotated = await rotate(t, org.id);
    expect(rotated.kid).not.toBe(before.kid);
    // The test client listens on a new port for each request: the path is what stays.
    expect(new URL(rotated.jwksUrl).pathname).toBe(new URL(before.jwksUrl).pathname);
    const after = await signingKey(t, org.id);
    expect(after.kid).toBe(rotated.kid);
    expect(after.jwks.keys.map((key) => key["kid"])).toEqual([rotated.kid, before.kid]);
    for (const key of after.jwks.keys) expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x", "y"]);
    expect((await t.securityEventKeys?.signingKey(org.id))?.kid).toBe(rotated.kid);

    // Again: the newest first, every replaced key still within its retention.
    const third = await rotate(t, org.id);
    expect((await signingKey(t, org.id)).jwks.keys.map((key) => key["kid"])).toEqual([third.kid, rotated.kid, before.kid]);

    // Audited by the new key's id; never key material.
    const entries = [...(await trail.list(org.id))]
      .reverse()
      .filter((entry) => entry.resourceType === "EventSigningKey")
      .map((entry) => [entry.operation, entry.resourceId, entry.outcome, entry.status, entry.via] as const);
    expect(entries).toEqual([
      ["analytics.rotateOrganizationEventSigningKey", rotated.kid, "success", 200, "analytics"],
      ["analytics.rotateOrganizationEventSigningKey", third.kid, "success", 200, "analytics"],
    ]);
    const trailText = JSON.stringify(await trail.list(org.id));
    for (const key of after.jwks.keys) {
      expect(trailText).not.toContain(String(key["x"]));
    }
    expect(trailText).not.toMatch(/"d"\s*:/);
    expect(t.errors).toEqual([]);
  });

  it("shows the host's JWKS address when it gives one", async () => {
    const t = await app({ router: { securityEventJwksUrl: (orgId) => `https://scim.example.com/o/${orgId}/jwks.json` } });
    const org = await createOrganization(t, "Acme");
    expect((await signingKey(t, org.id)).jwksUrl).toBe(`https://scim.example.com/o/${org.id}/jwks.json`);
    expect((await rotate(t, org.id)).jwksUrl).toBe(`https://scim.example.com/o/${org.id}/jwks.json`);
  });

  it("lets an admin rotate only its organizations' keys (404 as for unknown ones), and a viewer only read", async () => {
    const trail = memoryAuditTrail();
    const t = await app({ router: { onAudit: trail } });
    const orgA = await createOrganization(t, "Acme");
    const orgB = await createOrganization(t, "Globex");
    const adminA = await adminWithKey(t, "admin-a@example.com", "admin", [orgA.id]);
    const viewerA = await adminWithKey(t, "viewer-a@example.com", "viewer", [orgA.id]);
    const adminB = await adminWithKey(t, "admin-b@example.com", "admin", [orgB.id]);

    const first = await signingKey(t, orgA.id, viewerA.key);
    expectProblem(await t.post(`/organizations/${orgA.id}/event-signing-key/rotate`, undefined, viewerA.key), 403, "forbidden");
    expect((await signingKey(t, orgA.id)).kid).toBe(first.kid);

    const rotated = await rotate(t, orgA.id, adminA.key);
    expect((await signingKey(t, orgA.id, adminA.key)).jwks.keys.map((key) => key["kid"])).toEqual([rotated.kid, first.kid]);

    // B's admin: A's organization is as an unknown one, for reading and for rotating.
    for (const [method, path] of [
      ["GET", "/organizations/{org}/event-signing-key"],
      ["POST", "/organizations/{org}/event-signing-key/rotate"],
    ] as const) {
      const send = (org: string) => t.send(method, path.replace("{org}", org), { key: adminB.key });
      const foreign = expectProblem(await send(orgA.id), 404, "not-found");
      const unknown = expectProblem(await send(UNKNOWN), 404, "not-found");
      expect(foreign, `${method} ${path}`).toEqual(unknown);
    }
    expect((await signingKey(t, orgA.id)).kid).toBe(rotated.kid);
    // The refused rotations are in the trail, naming no key.
    const refused = [...(await trail.list(orgA.id))]
      .filter((entry) => entry.resourceType === "EventSigningKey" && entry.outcome === "failure")
      .map((entry) => [entry.status, entry.resourceId] as const);
    expect(refused.sort()).toEqual([
      [403, undefined],
      [404, undefined],
    ]);
    expect(t.errors).toEqual([]);
  });
}

describe("an organization's event signing key through the operator API", POPULATED, () => {
  signingKeys(() => ({}));

  it("answers 404 saying event delivery is not configured when the router has no delivery, for any organization", async () => {
    const t = await createAnalyticsTestApp();
    try {
      const org = await createOrganization(t, "Acme");
      for (const orgId of [org.id, UNKNOWN]) {
        const responses = [
          await t.get(`/organizations/${orgId}/event-signing-key`),
          await t.post(`/organizations/${orgId}/event-signing-key/rotate`),
        ];
        for (const response of responses) expect(expectProblem(response, 404, "not-found").detail).toMatch(/not configured/);
      }
    } finally {
      await t.close();
    }
  });
});

describePostgres("an organization's event signing key through the operator API on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(async () => {
    await schema?.drop();
  });
  describe("signing keys", POPULATED, () => {
    signingKeys(() => {
      if (!schema) throw new Error("the test schema was not created (see beforeAll)");
      return { postgres: { pool: schema.pool() } };
    });
  });
});
