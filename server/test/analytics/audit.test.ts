/**
 * `onAudit` of `createAnalyticsRouter`: every write of the analytics interface handed to the same
 * `AuditSink` as the SCIM router's, with its outcome, the key's id, `analytics.<operationId>` and
 * the organization it concerns (`""` when none), before the response is sent.
 */
import { describe, expect, it } from "vitest";
import type { AuditEntry, AuditSink } from "../../../src/audit/audit-sink.js";
import type { AuditRecord, AuditTrail } from "../../../src/audit/audit-trail.js";
import { memoryAuditTrail } from "../../../src/audit/memory-audit-trail.js";
import { hashToken } from "../../../src/auth/hash-token.js";
import { sqlAuditTrail } from "../../../src/store/sql/sql-audit-trail.js";
import type { SqlStore } from "../../../src/store/sql/sql-store.js";
import { POPULATED, createAnalyticsTestApp, expectProblem, settle, storeKind, type AnalyticsTestApp } from "./analytics-harness.js";
import { adminWithKey, createOrganization, createWorld } from "./analytics-world.js";

async function keyIdOf(t: AnalyticsTestApp, key: string): Promise<string | undefined> {
  return (await t.analytics.findApiKeyByHash(hashToken(key)))?.id;
}

/** The entries without their trail ids and times, oldest first. */
const plain = (records: readonly AuditRecord[]): Omit<AuditEntry, "at">[] =>
  [...records].reverse().map(({ id: _id, at: _at, ...entry }) => entry);

describe("onAudit", POPULATED, () => {
  it("records organization writes under the organization, with the key id and outcome", async () => {
    const trail = memoryAuditTrail();
    const t = await createAnalyticsTestApp({ router: { onAudit: trail } });
    const operator = await keyIdOf(t, t.operatorKey);
    const org = await createOrganization(t, "Acme");
    expect((await t.patch(`/organizations/${org.id}`, { name: "Acme Corp" })).status).toBe(200);
    expectProblem(await t.patch(`/organizations/${org.id}`, { name: "" }), 400, "invalid-request");
    // Reads and unauthenticated attempts leave no entry.
    expect((await t.get(`/organizations/${org.id}`)).status).toBe(200);
    expectProblem(await t.patch(`/organizations/${org.id}`, { name: "Nobody" }, null), 401, "unauthorized");
    expect((await t.delete(`/organizations/${org.id}`)).status).toBe(204);
    const common = { tokenId: operator, resourceType: "Organization", resourceId: org.id, via: "analytics", orgId: org.id };
    expect(plain(await trail.list(org.id))).toEqual([
      { ...common, operation: "analytics.createOrganization", outcome: "success", status: 201 },
      { ...common, operation: "analytics.updateOrganization", outcome: "success", status: 200 },
      { ...common, operation: "analytics.updateOrganization", outcome: "failure", status: 400 },
      { ...common, operation: "analytics.deleteOrganization", outcome: "success", status: 204 },
    ]);
    // A create refused before it named an organization is kept under "".
    expectProblem(await t.post("/organizations", { name: "" }), 400, "invalid-request");
    expect(plain(await trail.list(""))).toEqual([
      {
        orgId: "",
        tokenId: operator,
        operation: "analytics.createOrganization",
        resourceType: "Organization",
        outcome: "failure",
        status: 400,
        via: "analytics",
      },
    ]);
    expect(t.errors).toEqual([]);
  });

  it('records admin-user writes and accepted invitations under "", a viewer\'s refused write, and report starts under their organization', async () => {
    const trail = memoryAuditTrail();
    const w = await createWorld({ router: { onAudit: trail } });
    const operator = await keyIdOf(w.t, w.t.operatorKey);
    const viewer = await keyIdOf(w.t, w.keys.viewerA);
    const adminA = await keyIdOf(w.t, w.keys.adminA);
    const spanning = plain(await trail.list(""));
    // The world invited and accepted three admin users.
    expect(spanning.filter((entry) => entry.operation === "analytics.inviteAdminUser")).toHaveLength(3);
    expect(spanning.filter((entry) => entry.operation === "analytics.acceptInvitation")).toEqual(
      Object.values(w.adminUsers).map((id) => ({
        orgId: "",
        operation: "analytics.acceptInvitation",
        resourceType: "AdminUser",
        resourceId: id,
        outcome: "success",
        status: 200,
        via: "analytics",
      })),
    );
    expect(spanning[0]).toEqual({
      orgId: "",
      tokenId: operator,
      operation: "analytics.inviteAdminUser",
      resourceType: "AdminUser",
      resourceId: w.adminUsers.adminA,
      outcome: "success",
      status: 201,
      via: "analytics",
    });

    // A failed accept is public and unauthenticated: not recorded.
    expectProblem(await w.t.post("/invitations/accept", { code: "wrong" }, null), 404, "not-found");
    expectProblem(await w.t.patch(`/admin-users/${w.adminUsers.viewerA}`, { role: "admin" }, w.keys.viewerA), 403, "forbidden");
    expect((await w.t.patch(`/admin-users/${w.adminUsers.viewerA}`, { status: "disabled" }, w.keys.adminA)).status).toBe(200);
    expect((await w.t.delete(`/admin-users/${w.adminUsers.viewerA}`)).status).toBe(204);
    const admin = { orgId: "", resourceType: "AdminUser", resourceId: w.adminUsers.viewerA, via: "analytics" };
    expect(plain(await trail.list("")).slice(spanning.length)).toEqual([
      { ...admin, tokenId: viewer, operation: "analytics.updateAdminUser", outcome: "failure", status: 403 },
      { ...admin, tokenId: adminA, operation: "analytics.updateAdminUser", outcome: "success", status: 200 },
      { ...admin, tokenId: operator, operation: "analytics.deleteAdminUser", outcome: "success", status: 204 },
    ]);

    const started = await w.t.get(`/campaigns/${w.campaignA.id}/users/bulk-report`, w.keys.adminA);
    expect(started.status).toBe(202);
    await settle(w.t, (started.body as { operation: { id: string } }).operation.id);
    expect((await w.t.get(`/attack-simulations/${w.simulationB.id}/users/bulk-report`)).status).toBe(202);
    expect(plain(await trail.list(w.orgA.id)).at(-1)).toEqual({
      orgId: w.orgA.id,
      tokenId: adminA,
      operation: "analytics.createCampaignReport",
      resourceType: "Campaign",
      resourceId: w.campaignA.id,
      outcome: "success",
      status: 202,
      via: "analytics",
    });
    expect(plain(await trail.list(w.orgB.id)).at(-1)).toMatchObject({
      operation: "analytics.createSimulationReport",
      resourceType: "AttackSimulation",
      resourceId: w.simulationB.id,
      status: 202,
    });
    expect(w.t.errors).toEqual([]);
  });

  it("records a report start once: a viewer repeating the identical bulk-report request writes no further entry", async () => {
    const trail = memoryAuditTrail();
    const w = await createWorld({ router: { onAudit: trail } });
    const viewer = await keyIdOf(w.t, w.keys.viewerA);
    const reports = [`/campaigns/${w.campaignA.id}/users/bulk-report`, `/organizations/${w.orgA.id}/users/bulk-report`];
    const before = (await trail.list(w.orgA.id)).length;
    for (const path of reports) {
      const first = await w.t.get(path, w.keys.viewerA);
      expect(first.status).toBe(202);
      // Repeated at once (202 while it runs, 200 if it is done already) and once it is done (200): the same operation.
      expect([200, 202]).toContain((await w.t.get(path, w.keys.viewerA)).status);
      await settle(w.t, (first.body as { operation: { id: string } }).operation.id);
      for (let repeat = 0; repeat < 5; repeat += 1) expect((await w.t.get(path, w.keys.viewerA)).status).toBe(200);
    }
    const entries = plain(await trail.list(w.orgA.id)).slice(before);
    expect(entries).toEqual([
      expect.objectContaining({ tokenId: viewer, operation: "analytics.createCampaignReport", status: 202 }),
      expect.objectContaining({ tokenId: viewer, operation: "analytics.createOrganizationReport", resourceId: w.orgA.id, status: 202 }),
    ]);
    expect(w.t.errors).toEqual([]);
  });

  it("hands the entry to the sink before the response is sent, and a failing sink fails nothing", async () => {
    const seen: AuditEntry[] = [];
    let fail = false;
    const sink: AuditSink = {
      async record(entry) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (fail) throw new Error("audit store down");
        seen.push(entry);
      },
    };
    const t = await createAnalyticsTestApp({ router: { onAudit: sink } });
    await createOrganization(t, "Acme");
    expect(seen).toHaveLength(1);
    expect(Object.isFrozen(seen[0])).toBe(true);
    fail = true;
    const response = await t.post("/organizations", { name: "Globex" });
    expect(response.status).toBe(201);
    expect(t.errors).toEqual([new Error("audit store down")]);
  });

  it("leaves the SCIM side's entries and the analytics entries apart in one shared trail", async () => {
    const trail = memoryAuditTrail();
    const t = await createAnalyticsTestApp({ router: { onAudit: trail } });
    const org = await createOrganization(t, "Acme");
    await adminWithKey(t, "a@example.com", "admin", [org.id]);
    for (const record of [...(await trail.list(org.id)), ...(await trail.list(""))]) {
      expect(record.via).toBe("analytics");
      expect(record.operation.startsWith("analytics.")).toBe(true);
    }
  });

  it("keeps analytics entries in the store's reference trail too: memory, or sqlAuditTrail on SQLite", async () => {
    // The router is built before the store exists; the sink forwards to the trail opened after.
    let trail: AuditTrail | undefined;
    const t = await createAnalyticsTestApp({ router: { onAudit: { record: async (entry) => trail?.record(entry) } } });
    trail = storeKind === "sqlite" ? sqlAuditTrail((t.resources as SqlStore).db) : memoryAuditTrail();
    const org = await createOrganization(t, "Acme");
    await adminWithKey(t, "a@example.com", "admin", [org.id]);
    expect(plain(await trail.list(org.id)).map((entry) => entry.operation)).toEqual(["analytics.createOrganization"]);
    const spanning = plain(await trail.list(""));
    expect(spanning.map((entry) => [entry.operation, entry.orgId, entry.status])).toEqual([
      ["analytics.inviteAdminUser", "", 201],
      ["analytics.acceptInvitation", "", 200],
    ]);
    expect(spanning.map((entry) => entry.via)).toEqual(["analytics", "analytics"]);
  });
});
