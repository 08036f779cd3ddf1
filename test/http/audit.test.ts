/**
 * The audit trail (issue 7): every write an authenticated client attempts — through the resource
 * endpoints and each operation of /Bulk — reaches the `onAudit` sink with its organization, token
 * id, operation, resource type and id, time and outcome, failures included, before the response.
 * In the `express5-sqlite` project the sink is `sqlAuditTrail` on the same SQLite database.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import type { AuditEntry, AuditSink } from "../../src/audit/audit-sink.js";
import type { AuditRecord, AuditTrail } from "../../src/audit/audit-trail.js";
import { memoryAuditTrail } from "../../src/audit/memory-audit-trail.js";
import { tokenBucketLimiter } from "../../src/http/rate-limits/token-bucket-limiter.js";
import type { ScimRouterOptions } from "../../src/http/scim-router-options.js";
import { memoryStore } from "../../src/store/memory/memory-store.js";
import { sqlAuditTrail } from "../../src/store/sql/sql-audit-trail.js";
import { sqlStore } from "../../src/store/sql/sql-store.js";
import { GROUP_SCHEMA, PATCH_SCHEMA, createTestApp, expectScimError, userBody, type TestApp } from "./harness.js";

const BULK_REQUEST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:BulkRequest";
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Audited {
  readonly t: TestApp;
  readonly trail: AuditTrail;
  /** acme's token record id: the `tokenId` of acme's entries. */
  readonly acmeTokenId: string;
  /** acme's entries, oldest first, without the trail's ids. */
  entries(orgId?: string): Promise<Omit<AuditRecord, "id">[]>;
}

/** The test app with an audit trail on the same storage as its store. */
async function auditedApp(options: Partial<ScimRouterOptions> = {}): Promise<Audited> {
  const sql = process.env["SCIMKIT_HTTP_STORE"] === "sqlite" ? await sqlStore({ sqlite: ":memory:" }) : undefined;
  const trail = sql ? sqlAuditTrail(sql.db) : memoryAuditTrail();
  const t = await createTestApp({ store: sql ?? memoryStore(), onAudit: trail, ...options });
  const [record] = await t.tokens.list("acme");
  if (!record) throw new Error("acme has no token");
  return {
    t,
    trail,
    acmeTokenId: record.id,
    async entries(orgId = "acme") {
      const records = await trail.list(orgId, { limit: 1000 });
      return records.map(({ id: _id, ...entry }) => entry).reverse();
    },
  };
}

function idOf(response: request.Response): string {
  return (response.body as { id: string }).id;
}

describe("audit trail of the resource endpoints", () => {
  it("records each successful write with organization, token id, operation, resource type and id, time and outcome", async () => {
    const { t, acmeTokenId, entries } = await auditedApp();
    const started = new Date().toISOString();
    const user = idOf(await t.post("/Users", userBody("alice")).expect(201));
    await t.put(`/Users/${user}`, userBody("alice", { displayName: "Alice" })).expect(200);
    await t.patch(`/Users/${user}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "active", value: false }] }).expect(200);
    const group = idOf(await t.post("/Groups", { schemas: [GROUP_SCHEMA], displayName: "Staff" }).expect(201));
    // A group PATCH answers 204; the entry records the operation's own status.
    await t
      .patch(`/Groups/${group}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path: "members", value: [{ value: user }] }] })
      .expect(204);
    await t.delete(`/Users/${user}`).expect(204);
    const finished = new Date().toISOString();

    const kept = await entries();
    const common = { orgId: "acme", tokenId: acmeTokenId, outcome: "success", via: "request" };
    expect(kept.map(({ at: _at, ...entry }) => entry)).toEqual([
      { ...common, operation: "create", resourceType: "User", resourceId: user, status: 201 },
      { ...common, operation: "replace", resourceType: "User", resourceId: user, status: 200 },
      { ...common, operation: "patch", resourceType: "User", resourceId: user, status: 200 },
      { ...common, operation: "create", resourceType: "Group", resourceId: group, status: 201 },
      { ...common, operation: "patch", resourceType: "Group", resourceId: group, status: 200 },
      { ...common, operation: "delete", resourceType: "User", resourceId: user, status: 204 },
    ]);
    for (const entry of kept) {
      expect(entry.at).toMatch(ISO_TIME);
      expect(entry.at >= started && entry.at <= finished).toBe(true);
    }
  });

  it("records failed writes with their status and scimType, whether the store, the validator or the body parser refused them", async () => {
    const { t, acmeTokenId, entries } = await auditedApp({ bodyLimit: 4096 });
    const user = idOf(await t.post("/Users", userBody("bob")).expect(201));
    const version = (await t.get(`/Users/${user}`).expect(200)).body.meta.version as string;
    await t.patch(`/Users/${user}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "title", value: "x" }] }).expect(200);

    expectScimError(await t.post("/Users", userBody("BOB")), 409, "uniqueness");
    expectScimError(await t.post("/Users", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"] }), 400, "invalidValue");
    expectScimError(await t.put("/Users/no-such-id", userBody("carol")), 404);
    expectScimError(await t.patch(`/Users/${user}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "frobnicate" }] }), 400);
    expectScimError(await t.delete(`/Users/${user}`).set("If-Match", version), 412);
    expectScimError(await t.post("/Groups", "{ not json"), 400, "invalidSyntax");
    expectScimError(await t.put(`/Users/${user}`, userBody("bob", { displayName: "x".repeat(5000) })), 413);
    expectScimError(await t.delete("/Groups/%E0%A4%A"), 400);

    const failures = (await entries()).slice(2);
    const common = { orgId: "acme", tokenId: acmeTokenId, outcome: "failure", via: "request" };
    expect(failures.map(({ at: _at, ...entry }) => entry)).toEqual([
      { ...common, operation: "create", resourceType: "User", status: 409, scimType: "uniqueness" },
      { ...common, operation: "create", resourceType: "User", status: 400, scimType: "invalidValue" },
      { ...common, operation: "replace", resourceType: "User", resourceId: "no-such-id", status: 404 },
      { ...common, operation: "patch", resourceType: "User", resourceId: user, status: 400, scimType: expect.any(String) },
      { ...common, operation: "delete", resourceType: "User", resourceId: user, status: 412 },
      { ...common, operation: "create", resourceType: "Group", status: 400, scimType: "invalidSyntax" },
      { ...common, operation: "replace", resourceType: "User", resourceId: user, status: 413 },
      // An id that is not correctly %-encoded is not kept: it names nothing.
      { ...common, operation: "delete", resourceType: "Group", status: 400, scimType: "invalidSyntax" },
    ]);
  });

  it("records nothing for reads, for unknown endpoints, for unauthenticated requests and for rate-limited ones", async () => {
    // A burst of 12 on a clock that never moves: the 13th authenticated request is refused.
    const { t, entries } = await auditedApp({ rateLimit: tokenBucketLimiter({ requestsPerSecond: 1, burst: 12, now: () => 0 }) });
    const user = idOf(await t.post("/Users", userBody("dave")).expect(201));
    await t.get(`/Users/${user}`).expect(200);
    await t.get("/Users").expect(200);
    await t.post("/Users/.search", { filter: 'userName eq "dave"' }).expect(200);
    await t.get("/Schemas").expect(200);
    expectScimError(await t.post("/Widgets", { name: "x" }), 404);
    expectScimError(await t.put("/Users", userBody("dave")), 404);
    // Refused before authentication: not counted by the limiter, not recorded.
    expectScimError(await request(t.app).delete(`${t.base()}/Users/${user}`), 401);
    expectScimError(await t.delete(`/Users/${user}`, "scimkit_wrong"), 401);
    expectScimError(await t.delete(`/Users/${user}`, t.token.globex), 401);
    // Requests 8 to 12: one delete that works, four of a user no longer there.
    await t.delete(`/Users/${user}`).expect(204);
    for (let i = 0; i < 4; i += 1) expectScimError(await t.delete(`/Users/${user}`), 404);
    expectScimError(await t.delete(`/Users/${user}`), 429);
    expectScimError(await t.post("/Users", userBody("dave")), 429);
    expect((await entries()).map((entry) => [entry.operation, entry.status])).toEqual([
      ["create", 201],
      ["delete", 204],
      ["delete", 404],
      ["delete", 404],
      ["delete", 404],
      ["delete", 404],
    ]);
    expect(await entries("globex")).toEqual([]);
  });

  it("names the token used: each of an organization's tokens has its own id", async () => {
    const { t, acmeTokenId, entries } = await auditedApp();
    const second = await t.tokens.issue("acme", { label: "second" });
    await t.post("/Users", userBody("erin")).expect(201);
    await t.post("/Users", userBody("frank"), second.token).expect(201);
    expect((await entries()).map((entry) => entry.tokenId)).toEqual([acmeTokenId, second.record.id]);
    expect(second.record.id).not.toBe(acmeTokenId);
  });

  it("hands the entry to the sink before the response is sent", async () => {
    const seen: AuditEntry[] = [];
    const slow: AuditSink = {
      async record(entry) {
        await new Promise((resolve) => setTimeout(resolve, 30));
        seen.push(entry);
      },
    };
    const t = await createTestApp({ onAudit: slow });
    await t.post("/Users", userBody("gina")).expect(201);
    expect(seen).toHaveLength(1);
    expect(Object.isFrozen(seen[0])).toBe(true);
  });

  it("never fails or undoes a write because the sink failed: the failure goes to onError", async () => {
    const failing: AuditSink = {
      record: () => Promise.reject(new Error("audit storage down")),
    };
    const t = await createTestApp({ onAudit: failing });
    const created = await t.post("/Users", userBody("hank")).expect(201);
    await t.get(`/Users/${idOf(created)}`).expect(200);
    expectScimError(await t.post("/Users", userBody("hank")), 409, "uniqueness");
    expect(t.errors.map((error) => (error as Error).message)).toEqual(["audit storage down", "audit storage down"]);
  });
});

describe("audit trail of /Bulk", () => {
  it("records each operation, success or failure, with its bulkId and the id it resolved to", async () => {
    const { t, acmeTokenId, entries } = await auditedApp();
    const existing = idOf(await t.post("/Users", userBody("ivan")).expect(201));
    const response = await t
      .post("/Bulk", {
        schemas: [BULK_REQUEST_SCHEMA],
        Operations: [
          { method: "POST", path: "/Users", bulkId: "u", data: userBody("judy") },
          {
            method: "POST",
            path: "/Groups",
            bulkId: "g",
            data: { schemas: [GROUP_SCHEMA], displayName: "Team", members: [{ value: "bulkId:u" }] },
          },
          {
            method: "PATCH",
            path: "/Groups/bulkId:g",
            data: { schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path: "members", value: [{ value: existing }] }] },
          },
          { method: "PUT", path: `/Users/${existing}`, data: userBody("ivan", { displayName: "Ivan" }) },
          { method: "POST", path: "/Users", bulkId: "dup", data: userBody("JUDY") },
          { method: "DELETE", path: "/Users/no-such-id" },
          { method: "PATCH", path: "/Users/bulkId:missing", data: { schemas: [PATCH_SCHEMA], Operations: [] } },
          // Not a write: refused by validation and not in the trail.
          { method: "GET", path: "/Users" },
          { method: "DELETE", path: `/Users/${existing}` },
        ],
      })
      .expect(200);
    const results = (response.body as { Operations: { status: string; location?: string }[] }).Operations;
    const judy = results[0]!.location!.split("/").at(-1)!;
    const team = results[1]!.location!.split("/").at(-1)!;

    const bulk = (await entries()).slice(1);
    const common = { orgId: "acme", tokenId: acmeTokenId, via: "bulk" };
    expect(bulk.map(({ at: _at, ...entry }) => entry)).toEqual([
      { ...common, operation: "create", resourceType: "User", resourceId: judy, outcome: "success", status: 201, bulkId: "u" },
      { ...common, operation: "create", resourceType: "Group", resourceId: team, outcome: "success", status: 201, bulkId: "g" },
      { ...common, operation: "patch", resourceType: "Group", resourceId: team, outcome: "success", status: 200 },
      { ...common, operation: "replace", resourceType: "User", resourceId: existing, outcome: "success", status: 200 },
      { ...common, operation: "create", resourceType: "User", outcome: "failure", status: 409, scimType: "uniqueness", bulkId: "dup" },
      { ...common, operation: "delete", resourceType: "User", resourceId: "no-such-id", outcome: "failure", status: 404 },
      { ...common, operation: "patch", resourceType: "User", outcome: "failure", status: 409, scimType: "invalidValue" },
      { ...common, operation: "delete", resourceType: "User", resourceId: existing, outcome: "success", status: 204 },
    ]);
    for (const entry of bulk) expect(entry.at).toMatch(ISO_TIME);
  });

  it("records a Bulk request refused as a whole as one bulk entry", async () => {
    const { t, acmeTokenId, entries } = await auditedApp({ bulk: { maxOperations: 1 } });
    const two = [
      { method: "POST", path: "/Users", bulkId: "a", data: userBody("kim") },
      { method: "POST", path: "/Users", bulkId: "b", data: userBody("lee") },
    ];
    expectScimError(await t.post("/Bulk", { schemas: [BULK_REQUEST_SCHEMA], Operations: two }), 413);
    expectScimError(await t.post("/Bulk", "[not json"), 400, "invalidSyntax");
    expectScimError(await t.post("/Bulk", { schemas: [BULK_REQUEST_SCHEMA] }), 400, "invalidSyntax");
    const common = { orgId: "acme", tokenId: acmeTokenId, operation: "bulk", outcome: "failure", via: "bulk" };
    expect((await entries()).map(({ at: _at, ...entry }) => entry)).toEqual([
      { ...common, status: 413 },
      { ...common, status: 400, scimType: "invalidSyntax" },
      { ...common, status: 400, scimType: "invalidSyntax" },
    ]);
  });

  it("keeps each organization's Bulk entries to itself", async () => {
    const { t, entries } = await auditedApp();
    const acmeUser = idOf(await t.post("/Users", userBody("mia")).expect(201));
    await t
      .post(
        `${t.base("globex")}/Bulk`,
        { schemas: [BULK_REQUEST_SCHEMA], Operations: [{ method: "DELETE", path: `/Users/${acmeUser}` }] },
        t.token.globex,
      )
      .expect(200);
    expect((await entries()).map((entry) => entry.operation)).toEqual(["create"]);
    const [foreign] = await entries("globex");
    expect(foreign).toMatchObject({
      orgId: "globex",
      operation: "delete",
      resourceId: acmeUser,
      outcome: "failure",
      status: 404,
      via: "bulk",
    });
  });
});
