/**
 * The provisioning log through the analytics interface (issue 18): `GET /organizations/{id}/request-log`
 * over a real `memoryRequestLog` that the SCIM router beside it writes. What an identity provider
 * sent is found by its `X-Request-Id`, newest first, filtered by time, status class, resource,
 * identity provider and request id, in sealed cursor pages; the operator sees every organization,
 * an admin only its own (another's is 404 like an unknown one); bad parameters are 400 naming
 * them; a host without a log says so. The analytics store is the project's (memory, or SQLite in
 * `express5-sqlite`) and, when `SCIMKIT_TEST_POSTGRES_URL` is set, PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextCursorOf } from "../../src/analytics/page-cursor.js";
import { memoryRequestLog } from "../../../src/request-log/memory-request-log.js";
import type { ReadableRequestLog } from "../../../src/request-log/readable-request-log.js";
import type { RequestLogEntry } from "../../../src/request-log/request-log.js";
import { createTestSchema, describePostgres, type TestSchema } from "../../../src/store/sql/postgres-test-database.fixture.js";
import {
  eventually,
  POPULATED,
  USER_SCHEMA,
  createAnalyticsTestApp,
  expectInvalidFields,
  expectProblem,
  UNKNOWN,
  type AnalyticsTestApp,
  type Json,
  type TestAppOptions,
} from "./analytics-harness.js";
import { adminWithKey, createOrganization, type Org } from "./analytics-world.js";

const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const OKTA = "Okta SCIM Client 1.0.0";
const ENTRA = "Azure AD SCIM Provisioning";
const PASSWORD = "Correct-Horse-Battery-9";

interface Listed {
  readonly data: Json[];
  readonly nextCursor: string | null;
}

/** The page the read API answers for `query` on `orgId`, asserting a 200. */
async function list(t: AnalyticsTestApp, orgId: string, query = "", key?: string): Promise<Listed> {
  const response = await t.get(`/organizations/${encodeURIComponent(orgId)}/request-log${query === "" ? "" : `?${query}`}`, key);
  expect(response.status, response.text).toBe(200);
  return response.body as Listed;
}

/** Waits until `log` holds `count` entries of `orgId`: the router records each after its response has gone. */
async function settled(log: ReadableRequestLog, orgId: string, count: number): Promise<void> {
  await eventually(
    async () => (await log.list(orgId, { limit: 1000 })).entries.length,
    (held) => held >= count,
    `${count} entries of ${orgId} in the log`,
  );
}

/** A SCIM request to `org` with its token (or `token`), as an identity provider would send it. */
async function scim(
  t: AnalyticsTestApp,
  org: Org,
  method: string,
  path: string,
  options: { readonly body?: unknown; readonly userAgent?: string; readonly requestId?: string; readonly token?: string } = {},
): Promise<{ readonly status: number; readonly requestId: string; readonly body: Json }> {
  const response = await t.send(method, `/scim/Organizations/${org.id}/v2${path}`, {
    key: options.token ?? org.scim.token,
    ...(options.body === undefined ? {} : { body: options.body, contentType: "application/scim+json" }),
    headers: {
      ...(options.userAgent === undefined ? {} : { "User-Agent": options.userAgent }),
      ...(options.requestId === undefined ? {} : { "X-Request-Id": options.requestId }),
    },
  });
  return { status: response.status, requestId: String(response.headers["x-request-id"]), body: (response.body ?? {}) as Json };
}

/** An entry as the SCIM router would have written it, at a time the test chooses. */
function entryAt(orgId: string, at: string, extra: Partial<RequestLogEntry> = {}): RequestLogEntry {
  return {
    requestId: `req-${at}`,
    orgId,
    at,
    method: "GET",
    path: `/scim/Organizations/${orgId}/v2/Users`,
    status: 200,
    durationMs: 1.5,
    authenticated: true,
    identityProvider: "other",
    ...extra,
  };
}

/** The tests, on the stores `options` select. */
function readApi(options: () => TestAppOptions): void {
  let apps: AnalyticsTestApp[] = [];
  async function app(log: ReadableRequestLog | undefined): Promise<AnalyticsTestApp> {
    const t = await createAnalyticsTestApp({ ...options(), ...(log === undefined ? {} : { router: { requestLog: log } }) });
    apps.push(t);
    return t;
  }
  afterAll(async () => {
    await Promise.all(apps.map((t) => t.close()));
    apps = [];
  });

  it("finds what an identity provider sent by its X-Request-Id, newest first, secrets removed, each organization apart", async () => {
    const log = memoryRequestLog({ capacity: 100 });
    const t = await app(log);
    const acme = await createOrganization(t, "Acme");
    const globex = await createOrganization(t, "Globex");
    const tokenId = String(((await t.get(`/organizations/${acme.id}/tokens`)).body as { data: Json[] }).data[0]?.["id"]);

    const created = await scim(t, acme, "POST", "/Users", {
      body: { schemas: [USER_SCHEMA], userName: "alice@example.com", password: PASSWORD },
      userAgent: OKTA,
      requestId: "okta-create-1",
    });
    expect(created.status).toBe(201);
    expect(created.requestId).toBe("okta-create-1");
    const alice = String(created.body["id"]);
    const patched = await scim(t, acme, "PATCH", `/Users/${alice}`, {
      body: { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "name[", value: "x" }] },
      userAgent: ENTRA,
    });
    expect(patched.status).toBe(400);
    const refused = await scim(t, acme, "GET", "/Users", { token: "not-a-token" });
    expect(refused.status).toBe(401);
    expect((await scim(t, globex, "POST", "/Users", { body: { schemas: [USER_SCHEMA], userName: "dave@example.com" } })).status).toBe(201);
    await settled(log, acme.id, 2);
    await settled(log, globex.id, 1);

    const page = await list(t, acme.id);
    expect(page.nextCursor).toBeNull();
    // The request without a valid token is not the organization's (issue 27): anyone could have sent it.
    expect(page.data.map((entry) => entry["requestId"])).toEqual([patched.requestId, "okta-create-1"]);
    expect(page.data.every((entry) => entry["orgId"] === acme.id)).toBe(true);

    const found = await list(t, acme.id, "requestId=okta-create-1");
    expect(found.data).toHaveLength(1);
    const entry = found.data[0] ?? {};
    expect(entry).toMatchObject({
      requestId: "okta-create-1",
      orgId: acme.id,
      method: "POST",
      path: `/scim/Organizations/${acme.id}/v2/Users`,
      status: 201,
      authenticated: true,
      tokenId,
      userAgent: OKTA,
      identityProvider: "okta",
      resourceType: "User",
      resourceId: alice,
      requestBodyTruncated: false,
      responseBodyTruncated: false,
    });
    expect(Date.parse(String(entry["at"]))).not.toBeNaN();
    expect(JSON.parse(String(entry["requestBody"]))).toMatchObject({ userName: "alice@example.com", password: "[redacted]" });
    expect(JSON.parse(String(entry["responseBody"]))).toMatchObject({ id: alice, userName: "alice@example.com" });
    expect(JSON.stringify(page)).not.toContain(PASSWORD);

    const failure = (await list(t, acme.id, `requestId=${encodeURIComponent(patched.requestId)}`)).data[0] ?? {};
    expect(failure).toMatchObject({ method: "PATCH", status: 400, identityProvider: "entra", resourceId: alice });
    expect(typeof failure["scimType"]).toBe("string");
    expect(String(failure["detail"]).length).toBeGreaterThan(0);
    // It is in the operator's sample of unauthenticated requests instead, without bodies.
    const knocks = await t.get(`/request-log/unauthenticated?organizationId=${encodeURIComponent(acme.id)}`);
    expect(knocks.status, knocks.text).toBe(200);
    const [unauthenticated] = (knocks.body as Listed).data;
    expect(unauthenticated).toMatchObject({ requestId: refused.requestId, orgId: acme.id, status: 401 });
    expect(unauthenticated).not.toHaveProperty("requestBody");
    expect(unauthenticated).not.toHaveProperty("responseBody");

    // Globex's request is Globex's alone.
    expect((await list(t, globex.id)).data.map((one) => one["method"])).toEqual(["POST"]);
    expect((await list(t, acme.id, "requestId=okta-create-1&status=4xx")).data).toEqual([]);
  });

  it("filters by status class, resource id, identity provider and request id, each narrowing the others", async () => {
    const log = memoryRequestLog({ capacity: 100 });
    const t = await app(log);
    const acme = await createOrganization(t, "Acme");
    const alice = String(
      (await scim(t, acme, "POST", "/Users", { body: { schemas: [USER_SCHEMA], userName: "alice" }, userAgent: OKTA })).body["id"],
    );
    const bob = String(
      (await scim(t, acme, "POST", "/Users", { body: { schemas: [USER_SCHEMA], userName: "bob" }, userAgent: ENTRA })).body["id"],
    );
    await scim(t, acme, "GET", `/Users/${alice}`, { userAgent: OKTA, requestId: "okta-read" });
    await scim(t, acme, "GET", `/Users/${UNKNOWN}`, { userAgent: ENTRA, requestId: "entra-miss" });
    await scim(t, acme, "POST", "/Users", { body: { schemas: [USER_SCHEMA], userName: "alice" }, userAgent: OKTA, requestId: "dup" });
    await settled(log, acme.id, 5);

    const ids = async (query: string): Promise<unknown[]> => (await list(t, acme.id, query)).data.map((entry) => entry["requestId"]);
    const statuses = async (query: string): Promise<unknown[]> => (await list(t, acme.id, query)).data.map((entry) => entry["status"]);
    expect(await statuses("status=2xx")).toEqual([200, 201, 201]);
    expect(await ids("status=4xx")).toEqual(["dup", "entra-miss"]);
    expect(await statuses("status=5xx")).toEqual([]);
    expect(await statuses(`resourceId=${alice}`)).toEqual([200, 201]);
    expect(await statuses(`resourceId=${bob}`)).toEqual([201]);
    expect(await ids("identityProvider=entra")).toEqual(["entra-miss", expect.any(String)]);
    expect(await ids("identityProvider=okta&status=4xx")).toEqual(["dup"]);
    expect(await ids(`identityProvider=okta&resourceId=${alice}&status=2xx`)).toEqual(["okta-read", expect.any(String)]);
    expect(await ids("identityProvider=google")).toEqual([]);
    expect(await ids("requestId=entra-miss&identityProvider=entra")).toEqual(["entra-miss"]);
    expect(await ids("requestId=entra-miss&identityProvider=okta")).toEqual([]);
  });

  it("takes a half-open time range and pages through it with sealed cursors bound to the organization and filters", async () => {
    const log = memoryRequestLog({ capacity: 100 });
    const t = await app(log);
    const acme = await createOrganization(t, "Acme");
    const globex = await createOrganization(t, "Globex");
    const minute = (n: number): string => new Date(Date.UTC(2026, 2, 1, 9, n)).toISOString();
    for (let n = 0; n < 7; n += 1) {
      log.record(entryAt(acme.id, minute(n), n % 2 === 0 ? {} : { status: 404, identityProvider: "okta" }));
      log.record(entryAt(globex.id, minute(n)));
    }
    const times = async (query: string): Promise<unknown[]> => (await list(t, acme.id, query)).data.map((entry) => entry["at"]);
    expect(await times(`from=${minute(2)}&to=${minute(5)}`)).toEqual([minute(4), minute(3), minute(2)]);
    expect(await times(`from=${minute(5)}`)).toEqual([minute(6), minute(5)]);
    expect(await times(`to=${minute(1)}`)).toEqual([minute(0)]);
    // Another offset names the same instant.
    expect(await times(`from=2026-03-01T10:04:00%2B01:00&status=4xx`)).toEqual([minute(5)]);

    // Pages of three: newest first, every entry once, the last page without a cursor.
    const seen: unknown[] = [];
    let cursor: string | null = "";
    let pages = 0;
    while (cursor !== null) {
      const page: Listed = await list(t, acme.id, `limit=3${cursor === "" ? "" : `&cursor=${cursor}`}`);
      expect(page.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.data.map((entry) => entry["at"]));
      cursor = page.nextCursor;
      pages += 1;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual([6, 5, 4, 3, 2, 1, 0].map(minute));

    // Filtered pages keep their filter; the cursor is valid only with it.
    const first = await list(t, acme.id, "status=2xx&limit=2");
    expect(first.data.map((entry) => entry["at"])).toEqual([minute(6), minute(4)]);
    const next = String(first.nextCursor);
    expect((await list(t, acme.id, `status=2xx&limit=2&cursor=${next}`)).data.map((entry) => entry["at"])).toEqual([minute(2), minute(0)]);
    // `limit` may change between pages, the filters and the organization may not.
    expect((await list(t, acme.id, `status=2xx&limit=1&cursor=${next}`)).data.map((entry) => entry["at"])).toEqual([minute(2)]);
    expectProblem(await t.get(`/organizations/${acme.id}/request-log?status=4xx&limit=2&cursor=${next}`), 400, "invalid-cursor");
    expectProblem(await t.get(`/organizations/${acme.id}/request-log?limit=2&cursor=${next}`), 400, "invalid-cursor");
    expectProblem(await t.get(`/organizations/${globex.id}/request-log?status=2xx&limit=2&cursor=${next}`), 400, "invalid-cursor");
    expectProblem(await t.get(`/organizations/${acme.id}/request-log?status=2xx&cursor=${next.slice(0, -2)}xx`), 400, "invalid-cursor");
    // A cursor the router sealed but the log does not take (say the host changed its log) is refused alike.
    const foreign = nextCursorOf(
      { operationId: "listOrganizationRequestLog", params: { id: acme.id }, query: {}, secret: "test secret" },
      "x1",
    );
    expectProblem(await t.get(`/organizations/${acme.id}/request-log?cursor=${foreign}`), 400, "invalid-cursor");
  });

  it("shows an admin its own organizations' logs and answers another's as an unknown one; the operator sees all", async () => {
    const log = memoryRequestLog({ capacity: 100 });
    const t = await app(log);
    const acme = await createOrganization(t, "Acme");
    const globex = await createOrganization(t, "Globex");
    const adminA = await adminWithKey(t, "admin-a@example.com", "admin", [acme.id]);
    const viewerA = await adminWithKey(t, "viewer-a@example.com", "viewer", [acme.id]);
    log.record(entryAt(acme.id, "2026-03-01T09:00:00.000Z", { requestId: "acme-1" }));
    log.record(entryAt(globex.id, "2026-03-01T09:00:00.000Z", { requestId: "globex-1" }));

    expect((await list(t, acme.id, "", adminA.key)).data.map((entry) => entry["requestId"])).toEqual(["acme-1"]);
    expect((await list(t, acme.id, "", viewerA.key)).data.map((entry) => entry["requestId"])).toEqual(["acme-1"]);
    const foreign = expectProblem(await t.get(`/organizations/${globex.id}/request-log`, adminA.key), 404, "not-found");
    const unknown = expectProblem(await t.get(`/organizations/${UNKNOWN}/request-log`, adminA.key), 404, "not-found");
    expect(foreign).toEqual(unknown);
    // Even the request id of another organization's entry finds nothing through one's own.
    expect((await list(t, acme.id, "requestId=globex-1", adminA.key)).data).toEqual([]);
    expect((await list(t, globex.id)).data.map((entry) => entry["requestId"])).toEqual(["globex-1"]);
    expect((await list(t, acme.id)).data.map((entry) => entry["requestId"])).toEqual(["acme-1"]);
    // An organization the log knows but the service does not: nothing to see, for the operator too.
    log.record(entryAt("never-created", "2026-03-01T09:00:00.000Z"));
    expect(expectProblem(await t.get("/organizations/never-created/request-log"), 404, "not-found")).toEqual(unknown);
    expectProblem(await t.get(`/organizations/${acme.id}/request-log`, null), 401, "unauthorized");
  });

  it("renders only the documented members of an entry, whatever else a log keeps beside them", async () => {
    const log = memoryRequestLog({ capacity: 10 });
    const t = await app(log);
    const acme = await createOrganization(t, "Acme");
    const kept = { ...entryAt(acme.id, "2026-03-01T09:00:00.000Z", { requestId: "extra" }), rowId: 7, authorization: "Bearer x" };
    log.record(kept as RequestLogEntry);
    const [entry] = (await list(t, acme.id)).data;
    expect(entry).toEqual(entryAt(acme.id, "2026-03-01T09:00:00.000Z", { requestId: "extra" }));
  });

  it("refuses bad parameters with 400 naming each, before reading the log", async () => {
    const log = memoryRequestLog({ capacity: 10 });
    const t = await app(log);
    const acme = await createOrganization(t, "Acme");
    const bad = (query: string): Promise<import("supertest").Response> => t.get(`/organizations/${acme.id}/request-log?${query}`);
    expectInvalidFields(await bad("from=yesterday"), ["from"]);
    expectInvalidFields(await bad("to=2026-03-01"), ["to"]);
    expectInvalidFields(await bad("to=2026-03-01T09:00:00"), ["to"]);
    expectInvalidFields(await bad("status=4XX"), ["status"]);
    expectInvalidFields(await bad("status=404"), ["status"]);
    expectInvalidFields(await bad("identityProvider=azure"), ["identityProvider"]);
    expectInvalidFields(await bad("limit=0"), ["limit"]);
    expectInvalidFields(await bad("limit=1001"), ["limit"]);
    expectInvalidFields(await bad("limit=ten"), ["limit"]);
    expectInvalidFields(await bad("resourceId="), ["resourceId"]);
    expectInvalidFields(await bad(`requestId=${"r".repeat(129)}`), ["requestId"]);
    expectInvalidFields(await bad("statusClass=4"), ["statusClass"]);
    expectInvalidFields(await bad("status=2xx&status=4xx"), ["status"]);
    expectInvalidFields(await bad("from=nope&status=9xx&limit=-1"), ["from", "status", "limit"]);
    // The range is half-open: a `to` not after `from` can match nothing.
    const empty = expectProblem(await bad("from=2026-03-01T10:00:00Z&to=2026-03-01T09:00:00Z"), 400, "invalid-request");
    expect(empty.errors).toEqual([{ field: "to", message: expect.stringMatching(/later than from/) as unknown }]);
    expectInvalidFields(await bad("from=2026-03-01T10:00:00Z&to=2026-03-01T11:00:00%2B01:00"), ["to"]);
    // A leap second is a valid RFC 3339 time the log cannot place: its RangeError is a 400 naming `from` too.
    const leap = expectProblem(await bad("from=2016-12-31T23:59:60Z"), 400, "invalid-request");
    expect(leap.errors?.map((error) => error.field)).toEqual(["from"]);
    expect(leap.detail).toMatch(/^from: /);
  });

  it("shows the operator alone the sample of requests without a valid token, with the count of those left out (issue 27)", async () => {
    const log = memoryRequestLog({ capacity: 100, unauthenticatedCapacity: 5, unauthenticatedPerMinute: 3 });
    const t = await app(log);
    const acme = await createOrganization(t, "Acme");
    const adminA = await adminWithKey(t, "admin-knocks@example.com", "admin", [acme.id]);
    const viewerA = await adminWithKey(t, "viewer-knocks@example.com", "viewer", [acme.id]);
    const madeUp = { ...acme, id: "made-up-organization" };
    const sent: string[] = [];
    for (let index = 0; index < 5; index++) {
      const response = await scim(t, index % 2 === 0 ? madeUp : acme, "GET", "/Users?access_token=stolen-1", { token: "not-a-token" });
      expect(response.status).toBe(401);
      sent.push(response.requestId);
    }
    await eventually(
      async () => (await log.listUnauthenticated?.())?.entries.length,
      (held) => (held ?? 0) >= 3,
      "three unauthenticated entries in the log",
    );
    // Nothing under the made-up id, for the operator either, and nothing in acme's log.
    expectProblem(await t.get(`/organizations/${madeUp.id}/request-log`), 404, "not-found");
    expect((await list(t, acme.id)).data).toEqual([]);

    const response = await t.get("/request-log/unauthenticated?limit=2");
    expect(response.status, response.text).toBe(200);
    const first = response.body as Listed & { dropped: number; droppedSince: string };
    expect(first.data.map((entry) => entry["requestId"])).toEqual([sent[2], sent[1]]);
    expect(first.dropped).toBe(2);
    expect(Date.parse(first.droppedSince)).not.toBeNaN();
    expect(first.data[0]).toMatchObject({
      orgId: madeUp.id,
      status: 401,
      path: `/scim/Organizations/${madeUp.id}/v2/Users?access_token=[redacted]`,
    });
    expect(JSON.stringify(first)).not.toContain("stolen-1");
    const second = (await t.get(`/request-log/unauthenticated?limit=2&cursor=${encodeURIComponent(first.nextCursor ?? "")}`))
      .body as Listed;
    expect(second.data.map((entry) => entry["requestId"])).toEqual([sent[0]]);
    expect(second.nextCursor).toBeNull();
    const onlyAcme = (await t.get(`/request-log/unauthenticated?organizationId=${encodeURIComponent(acme.id)}`)).body as Listed;
    expect(onlyAcme.data.map((entry) => entry["requestId"])).toEqual([sent[1]]);

    // Outsiders' requests may name any organization: not for an organization's admins or viewers.
    expectProblem(await t.get("/request-log/unauthenticated", adminA.key), 403, "forbidden");
    expectProblem(await t.get("/request-log/unauthenticated", viewerA.key), 403, "forbidden");
    expectProblem(await t.get("/request-log/unauthenticated", null), 401, "unauthorized");
    expectInvalidFields(await t.get("/request-log/unauthenticated?limit=0"), ["limit"]);
  });

  it("answers 404 saying the host keeps no provisioning log when it has none", async () => {
    const t = await app(undefined);
    const acme = await createOrganization(t, "Acme");
    const none = expectProblem(await t.get(`/organizations/${acme.id}/request-log`), 404, "not-found");
    expect(none.detail).toMatch(/keeps no provisioning log/);
    // The same for every organization, so it tells nothing about which exist.
    expect(expectProblem(await t.get(`/organizations/${UNKNOWN}/request-log`), 404, "not-found")).toEqual(none);
    expect(expectProblem(await t.get("/request-log/unauthenticated"), 404, "not-found")).toEqual(none);
    // SCIM is served as ever.
    expect((await scim(t, acme, "GET", "/Users")).status).toBe(200);
  });
}

describe("GET /organizations/{id}/request-log", POPULATED, () => {
  readApi(() => ({}));
});

describePostgres("GET /organizations/{id}/request-log on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(async () => {
    await schema?.drop();
  });
  describe("read API", POPULATED, () => {
    readApi(() => {
      if (!schema) throw new Error("the test schema was not created (see beforeAll)");
      return { postgres: { pool: schema.pool() } };
    });
  });
});
