/**
 * SCIM tokens through the operator API (issue 14), against the SCIM router mounted beside it:
 * issue → the new token works; rotate → the old one is 401 on the very next SCIM request (or
 * after its grace period); revoke → 401; expiry → 401 from `expiresAt` on; lists never show a
 * secret; admins manage only their organizations' tokens and viewers only read; static tokens are
 * listed and refused on rotate/revoke; chosen organization ids; the operator key's rotation.
 * The lifecycle runs on the project's store (memory or SQLite) and, when
 * `SCIMKIT_TEST_POSTGRES_URL` is set, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryAuditTrail } from "../../../src/audit/memory-audit-trail.js";
import { createTestSchema, describePostgres, type TestSchema } from "../../../src/store/sql/postgres-test-database.fixture.js";
import {
  POPULATED,
  createAnalyticsTestApp,
  expectInvalidFields,
  expectProblem,
  UNKNOWN,
  type AnalyticsTestApp,
  type Json,
  type TestAppOptions,
} from "./analytics-harness.js";
import { createOrganization, createWorld, type Org } from "./analytics-world.js";

const HOUR = 60 * 60 * 1000;

interface Issued {
  readonly token: Json & { id: string };
  readonly secret: string;
}

/** The status of a SCIM request to `orgId` with `token`. */
async function scimStatus(t: AnalyticsTestApp, orgId: string, token: string): Promise<number> {
  return (await t.send("GET", `/scim/Organizations/${encodeURIComponent(orgId)}/v2/Users`, { key: token })).status;
}

async function listTokens(t: AnalyticsTestApp, orgId: string, key?: string): Promise<Json[]> {
  const response = await t.get(`/organizations/${orgId}/tokens`, key);
  expect(response.status).toBe(200);
  return (response.body as { data: Json[] }).data;
}

async function issue(t: AnalyticsTestApp, orgId: string, body: Json = {}, key?: string): Promise<Issued> {
  const response = await t.post(`/organizations/${orgId}/tokens`, body, key);
  expect(response.status, response.text).toBe(201);
  expect(response.headers["cache-control"]).toBe("no-store");
  const issued = response.body as Issued;
  expect(response.headers["location"]).toMatch(new RegExp(`/analytics/v1/organizations/${orgId}/tokens/${issued.token.id}$`));
  return issued;
}

async function rotate(t: AnalyticsTestApp, orgId: string, tokenId: string, body: Json = {}, key?: string): Promise<Issued> {
  const response = await t.post(`/organizations/${orgId}/tokens/${tokenId}/rotate`, body, key);
  expect(response.status, response.text).toBe(200);
  expect(response.headers["cache-control"]).toBe("no-store");
  return response.body as Issued;
}

/** The organization's first token: the one issued when it was created. */
async function firstTokenId(t: AnalyticsTestApp, org: Org): Promise<string> {
  return String((await listTokens(t, org.id))[0]?.["id"]);
}

/** The lifecycle tests, on the stores `options` select. */
function lifecycle(options: () => TestAppOptions): void {
  let apps: AnalyticsTestApp[] = [];
  async function app(extra: TestAppOptions = {}): Promise<AnalyticsTestApp> {
    const t = await createAnalyticsTestApp({ ...options(), ...extra });
    apps.push(t);
    return t;
  }
  afterAll(async () => {
    await Promise.all(apps.map((t) => t.close()));
    apps = [];
  });

  it("issues a token that works at once, lists it without any secret, and revokes it with effect on the next request", async () => {
    const t = await app();
    const org = await createOrganization(t, "Acme");
    // Lists are by creation time (then id): a second later, so the order is known on every store.
    t.clock.advance(1000);
    const second = await issue(t, org.id, { label: "  Okta handover  " });
    expect(second.token).toEqual({
      id: second.token.id,
      source: "issued",
      label: "Okta handover",
      prefix: second.secret.slice(0, 12),
      createdAt: "2026-03-01T09:00:01.000Z",
    });
    expect(await scimStatus(t, org.id, second.secret)).toBe(200);
    expect(await scimStatus(t, org.id, org.scim.token)).toBe(200);

    const listed = await listTokens(t, org.id);
    expect(listed.map((token) => token["id"])).toEqual([await firstTokenId(t, org), second.token.id]);
    expect(listed.map((token) => token["label"])).toEqual(["issued when the organization was created", "Okta handover"]);
    // lastUsedAt shows the use just made; nothing in the list is a secret or a digest.
    expect(listed[1]?.["lastUsedAt"]).toBe("2026-03-01T09:00:01.000Z");
    const text = JSON.stringify(listed);
    for (const secret of [org.scim.token, second.secret]) expect(text).not.toContain(secret.slice(12));
    expect(text).not.toMatch(/[0-9a-f]{64}|"hash"|"secret"/);
    const fetched = await t.get(`/organizations/${org.id}/tokens/${second.token.id}`);
    expect(fetched.body).toEqual(listed[1]);

    expect((await t.delete(`/organizations/${org.id}/tokens/${second.token.id}`)).status).toBe(204);
    expect(await scimStatus(t, org.id, second.secret)).toBe(401);
    expect(await scimStatus(t, org.id, org.scim.token)).toBe(200);
    expectProblem(await t.delete(`/organizations/${org.id}/tokens/${second.token.id}`), 404, "not-found");
    expectProblem(await t.get(`/organizations/${org.id}/tokens/${second.token.id}`), 404, "not-found");
  });

  it("rotates a secret: the old one is 401 on the next SCIM request, the new one 200, under the same id", async () => {
    const t = await app();
    const org = await createOrganization(t, "Acme");
    const id = await firstTokenId(t, org);
    t.clock.advance(1000);
    const rotated = await rotate(t, org.id, id);
    expect(rotated.token).toMatchObject({ id, source: "issued", rotatedAt: "2026-03-01T09:00:01.000Z" });
    expect(rotated.secret).not.toBe(org.scim.token);
    expect(await scimStatus(t, org.id, org.scim.token)).toBe(401);
    expect(await scimStatus(t, org.id, rotated.secret)).toBe(200);
    expectProblem(await t.post(`/organizations/${org.id}/tokens/${UNKNOWN}/rotate`, {}), 404, "not-found");
  });

  it("keeps the old secret working for the grace period, then 401", async () => {
    const t = await app();
    const org = await createOrganization(t, "Acme");
    const id = await firstTokenId(t, org);
    const rotated = await rotate(t, org.id, id, { graceSeconds: 3600 });
    expect(rotated.token["previousSecretValidUntil"]).toBe("2026-03-01T10:00:00.000Z");
    expect(await scimStatus(t, org.id, org.scim.token)).toBe(200);
    expect(await scimStatus(t, org.id, rotated.secret)).toBe(200);
    t.clock.advance(HOUR - 1);
    expect(await scimStatus(t, org.id, org.scim.token)).toBe(200);
    expect((await listTokens(t, org.id))[0]?.["previousSecretValidUntil"]).toBe("2026-03-01T10:00:00.000Z");
    t.clock.advance(1);
    expect(await scimStatus(t, org.id, org.scim.token)).toBe(401);
    expect(await scimStatus(t, org.id, rotated.secret)).toBe(200);
    expect((await listTokens(t, org.id))[0]?.["previousSecretValidUntil"]).toBeUndefined();
  });

  it("keeps both secrets working through a rotation until it is confirmed, then only the new one (issue 31)", async () => {
    const t = await app();
    const org = await createOrganization(t, "Acme");
    const id = await firstTokenId(t, org);
    const rotated = await rotate(t, org.id, id, { graceSeconds: 7 * 24 * 3600 });
    expect(await scimStatus(t, org.id, org.scim.token)).toBe(200);
    // Not yet used: the new secret has no lastUsedAt, which is how the customer tells.
    expect((await listTokens(t, org.id))[0]?.["lastUsedAt"]).toBeUndefined();
    expect(await scimStatus(t, org.id, rotated.secret)).toBe(200);
    expect((await listTokens(t, org.id))[0]?.["lastUsedAt"]).toBe("2026-03-01T09:00:00.000Z");
    const confirmed = await t.post(`/organizations/${org.id}/tokens/${id}/confirm-rotation`, undefined);
    expect(confirmed.status, confirmed.text).toBe(200);
    expect((confirmed.body as Json)["previousSecretValidUntil"]).toBeUndefined();
    expect(await scimStatus(t, org.id, org.scim.token)).toBe(401);
    expect(await scimStatus(t, org.id, rotated.secret)).toBe(200);
    // Again, or for a token without a grace period: answered as it is.
    expect((await t.post(`/organizations/${org.id}/tokens/${id}/confirm-rotation`, undefined)).status).toBe(200);
    expectProblem(await t.post(`/organizations/${org.id}/tokens/${UNKNOWN}/confirm-rotation`, undefined), 404, "not-found");
  });

  it("refuses a token from its expiresAt on, and refuses an expiry in the past or a grace period over 7 days", async () => {
    const t = await app();
    const org = await createOrganization(t, "Acme");
    const expiring = await issue(t, org.id, { expiresAt: "2026-03-01T10:00:00Z" });
    expect(expiring.token["expiresAt"]).toBe("2026-03-01T10:00:00.000Z");
    expect(await scimStatus(t, org.id, expiring.secret)).toBe(200);
    t.clock.advance(HOUR);
    expect(await scimStatus(t, org.id, expiring.secret)).toBe(401);
    // Rotation can give the token a new life, with a new expiry.
    const renewed = await rotate(t, org.id, expiring.token.id, { expiresAt: "2026-03-02T10:00:00.000Z" });
    expect(renewed.token["expiresAt"]).toBe("2026-03-02T10:00:00.000Z");
    expect(await scimStatus(t, org.id, renewed.secret)).toBe(200);

    expectInvalidFields(await t.post(`/organizations/${org.id}/tokens`, { expiresAt: "2026-03-01T09:00:00Z" }), ["/expiresAt"]);
    expectInvalidFields(await t.post(`/organizations/${org.id}/tokens`, { expiresAt: "tomorrow" }), ["/expiresAt"]);
    expectInvalidFields(await t.post(`/organizations/${org.id}/tokens`, { secret: "mine" }), ["/secret"]);
    expectInvalidFields(await t.post(`/organizations/${org.id}/tokens/${expiring.token.id}/rotate`, { graceSeconds: 7 * 24 * 3600 + 1 }), [
      "/graceSeconds",
    ]);
    expectInvalidFields(await t.post(`/organizations/${org.id}/tokens/${expiring.token.id}/rotate`, { graceSeconds: -1 }), [
      "/graceSeconds",
    ]);
    expectInvalidFields(
      await t.post(`/organizations/${org.id}/tokens/${expiring.token.id}/rotate`, { expiresAt: "2026-03-01T09:00:00Z" }),
      ["/expiresAt"],
    );
    // None of the refused requests changed anything.
    expect(await scimStatus(t, org.id, renewed.secret)).toBe(200);
    expect(await listTokens(t, org.id)).toHaveLength(2);
  });

  it("lets an admin manage its own organization's tokens only, and a viewer only read them", async () => {
    const w = await createWorld(options());
    apps.push(w.t);
    const mine = await issue(w.t, w.orgA.id, { label: "by the admin" }, w.keys.adminA);
    const rotated = await rotate(w.t, w.orgA.id, mine.token.id, {}, w.keys.adminA);
    expect(await scimStatus(w.t, w.orgA.id, rotated.secret)).toBe(200);
    expect(await listTokens(w.t, w.orgA.id, w.keys.viewerA)).toHaveLength(2);

    const bToken = await firstTokenId(w.t, w.orgB);
    for (const key of [w.keys.adminA, w.keys.viewerA]) {
      expectProblem(await w.t.get(`/organizations/${w.orgB.id}/tokens`, key), 404, "not-found");
      expectProblem(await w.t.get(`/organizations/${w.orgB.id}/tokens/${bToken}`, key), 404, "not-found");
    }
    expectProblem(await w.t.post(`/organizations/${w.orgB.id}/tokens`, {}, w.keys.adminA), 404, "not-found");
    expectProblem(await w.t.post(`/organizations/${w.orgB.id}/tokens/${bToken}/rotate`, {}, w.keys.adminA), 404, "not-found");
    expectProblem(await w.t.delete(`/organizations/${w.orgB.id}/tokens/${bToken}`, w.keys.adminA), 404, "not-found");
    // A token id of organization B under organization A's path is unknown there.
    expectProblem(await w.t.post(`/organizations/${w.orgA.id}/tokens/${bToken}/rotate`, {}, w.keys.adminA), 404, "not-found");

    expectProblem(await w.t.post(`/organizations/${w.orgA.id}/tokens`, {}, w.keys.viewerA), 403, "forbidden");
    expectProblem(await w.t.post(`/organizations/${w.orgA.id}/tokens/${mine.token.id}/rotate`, {}, w.keys.viewerA), 403, "forbidden");
    expectProblem(await w.t.delete(`/organizations/${w.orgA.id}/tokens/${mine.token.id}`, w.keys.viewerA), 403, "forbidden");
    expect(await scimStatus(w.t, w.orgA.id, rotated.secret)).toBe(200);
    expect(await scimStatus(w.t, w.orgB.id, w.orgB.scim.token)).toBe(200);
  });

  it("lists static tokens as such and refuses to rotate or revoke them, saying where they are changed", async () => {
    const t = await app({
      router: { staticTokens: (orgId) => (orgId === "globex" ? [{ label: "SCIMKIT_ORGS", prefix: "gx_" }, {}] : []) },
    });
    const created = await t.post("/organizations", { name: "Globex", id: "globex" });
    expect(created.status).toBe(201);
    const listed = await listTokens(t, "globex");
    expect(listed.slice(0, 2)).toEqual([
      { id: "static-1", source: "static", label: "SCIMKIT_ORGS", prefix: "gx_" },
      { id: "static-2", source: "static" },
    ]);
    expect(listed[2]?.["source"]).toBe("issued");
    expect((await t.get("/organizations/globex/tokens/static-2")).body).toEqual({ id: "static-2", source: "static" });
    const refused = expectProblem(await t.post("/organizations/globex/tokens/static-1/rotate", {}), 409, "conflict");
    expect(refused.detail).toMatch(/environment \(SCIMKIT_ORGS\)/);
    expectProblem(await t.delete("/organizations/globex/tokens/static-1"), 409, "conflict");
    expectProblem(await t.post("/organizations/globex/tokens/static-3/rotate", {}), 404, "not-found");
  });
}

describe("SCIM tokens through the operator API", POPULATED, () => {
  lifecycle(() => ({}));
});

describePostgres("SCIM tokens through the operator API on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(async () => {
    await schema?.drop();
  });
  describe("lifecycle", POPULATED, () => {
    lifecycle(() => {
      if (!schema) throw new Error("the test schema was not created (see beforeAll)");
      return { postgres: { pool: schema.pool() } };
    });
  });
});

describe("POST /organizations with a chosen id", POPULATED, () => {
  it("creates the organization under that id, its SCIM address and token included, and answers 409 when it is taken", async () => {
    const t = await createAnalyticsTestApp();
    const response = await t.post("/organizations", { name: "Globex", id: "globex-eu.1~x" });
    expect(response.status).toBe(201);
    const body = response.body as { organization: Json; scim: { baseUrl: string; token: string } };
    expect(body.organization["id"]).toBe("globex-eu.1~x");
    expect(response.headers["location"]).toMatch(/\/analytics\/v1\/organizations\/globex-eu\.1~x$/);
    expect(body.scim.baseUrl).toMatch(/\/scim\/Organizations\/globex-eu\.1~x\/v2$/);
    expect(await scimStatus(t, "globex-eu.1~x", body.scim.token)).toBe(200);

    const taken = expectProblem(await t.post("/organizations", { name: "Other", id: "globex-eu.1~x" }), 409, "conflict");
    expect(taken.detail).toMatch(/id exists/);
    // Case-sensitive, like every SCIM path segment.
    expect((await t.post("/organizations", { name: "Other", id: "GLOBEX-EU.1~X" })).status).toBe(201);
    expect(((await t.get("/organizations")).body as { data: unknown[] }).data).toHaveLength(2);
  });

  it("refuses an id that is not a plain SCIM path segment, saying what one is", async () => {
    const t = await createAnalyticsTestApp();
    for (const id of ["", ".", "..", "a/b", "a b", "x".repeat(65), "caf\u00e9", "a%2Fb", "a\u0000b", "a?b", 5]) {
      const problem = expectProblem(await t.post("/organizations", { name: "Bad", id }), 400, "invalid-request");
      expect(problem.errors?.map((error) => error.field)).toEqual(["/id"]);
      if (typeof id === "string" && id.length > 0 && id.length <= 64) expect(problem.errors?.[0]?.message).toMatch(/SCIM path segment/);
    }
    expect((await t.post("/organizations", { name: "Dots", id: "..." })).status).toBe(201);
    expect((await t.post("/organizations", { name: "Long", id: "x".repeat(64) })).status).toBe(201);
  });
});

describe("POST /operator-key/rotate", POPULATED, () => {
  it("returns a new operator key once; the old one is 401 from the next request on", async () => {
    const t = await createAnalyticsTestApp();
    const response = await t.post("/operator-key/rotate");
    expect(response.status).toBe(200);
    expect(response.headers["cache-control"]).toBe("no-store");
    const { apiKey } = response.body as { apiKey: string };
    expect(apiKey).toMatch(/^scimkit_ak_[A-Za-z0-9_-]{43}$/);
    expectProblem(await t.get("/organizations"), 401, "unauthorized");
    expect((await t.get("/organizations", apiKey)).status).toBe(200);
    expect((await t.post("/organizations", { name: "After" }, apiKey)).status).toBe(201);
  });

  it("is the operator's only", async () => {
    const w = await createWorld();
    expectProblem(await w.t.post("/operator-key/rotate", undefined, w.keys.adminA), 403, "forbidden");
    expectProblem(await w.t.post("/operator-key/rotate", undefined, w.keys.viewerA), 403, "forbidden");
    expect((await w.t.get("/organizations", w.keys.adminA)).status).toBe(200);
    expect((await w.t.get("/organizations")).status).toBe(200);
  });
});

describe("token writes in the audit trail", POPULATED, () => {
  it("records issue, rotate and revoke under the organization by token id, and the operator key's rotation, never a secret", async () => {
    const trail = memoryAuditTrail();
    const t = await createAnalyticsTestApp({ router: { onAudit: trail } });
    const org = await createOrganization(t, "Acme");
    const issued = await issue(t, org.id, { label: "second" });
    const rotated = await rotate(t, org.id, issued.token.id, { graceSeconds: 60 });
    expect((await t.delete(`/organizations/${org.id}/tokens/${issued.token.id}`)).status).toBe(204);
    expectProblem(await t.post(`/organizations/${org.id}/tokens/${UNKNOWN}/rotate`, {}), 404, "not-found");
    const newKey = ((await t.post("/operator-key/rotate")).body as { apiKey: string }).apiKey;

    // Newest first in the trail; oldest first here.
    const entries = [...(await trail.list(org.id))]
      .reverse()
      .map((entry) => [entry.operation, entry.resourceType, entry.resourceId, entry.status] as const);
    expect(entries).toEqual([
      ["analytics.createOrganization", "Organization", org.id, 201],
      ["analytics.issueOrganizationToken", "ScimToken", issued.token.id, 201],
      ["analytics.rotateOrganizationToken", "ScimToken", issued.token.id, 200],
      ["analytics.revokeOrganizationToken", "ScimToken", issued.token.id, 204],
      ["analytics.rotateOrganizationToken", "ScimToken", UNKNOWN, 404],
    ]);
    const keyRotation = await trail.list("");
    expect(keyRotation.map((entry) => [entry.operation, entry.resourceType, entry.outcome])).toEqual([
      ["analytics.rotateOperatorKey", "ApiKey", "success"],
    ]);
    const everything = JSON.stringify([...(await trail.list(org.id)), ...keyRotation]);
    for (const secret of [org.scim.token, issued.secret, rotated.secret, newKey, t.operatorKey]) expect(everything).not.toContain(secret);
    expect(t.errors).toEqual([]);
  });
});
