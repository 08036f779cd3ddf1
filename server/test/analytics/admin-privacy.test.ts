/**
 * Issues 19 and 27: an admin learns nothing about admin users or organizations outside its scope —
 * not from inviting an e-mail that is another customer's admin user (answered, listed and audited
 * as a new person's invitation; accepting it adds the organization to that admin user), not from
 * a colleague's `organizationIds`. On the memory store, on SQLite (the express5-sqlite project)
 * and on PostgreSQL.
 */
import { afterAll, describe, expect, it } from "vitest";
import { memoryAuditTrail } from "../../../src/audit/memory-audit-trail.js";
import { hashToken } from "../../../src/auth/hash-token.js";
import { createTestSchema, describePostgres, type TestSchema } from "../../../src/store/sql/postgres-test-database.fixture.js";
import { POPULATED, expectProblem, type Json, type TestAppOptions } from "./analytics-harness.js";
import { adminWithKey, createWorld } from "./analytics-world.js";

/** `open` gives each case a world of its own: the worlds' admin e-mails would collide in one database. */
function privacyCases(open: () => Promise<TestAppOptions>): void {
  it("answers an invitation of another customer's admin user exactly as one of a new person (issue 27)", async () => {
    const trail = memoryAuditTrail();
    const w = await createWorld({ ...(await open()), router: { onAudit: trail } });
    // A pending invitation for B only; admin-b looks after B only. Neither is A's to see.
    await w.t.post("/admin-users/invite", { email: "pending-b@example.com", role: "viewer", organizationIds: [w.orgB.id] });
    const emails = ["fresh@example.com", "admin-b@example.com", "pending-b@example.com"];
    const seen = new Map<string, { id: string; code: string }>();
    const views: unknown[] = [];
    for (const email of emails) {
      const invited = await w.t.post("/admin-users/invite", { email, role: "admin", organizationIds: [w.orgA.id] }, w.keys.adminA);
      expect(invited.status, invited.text).toBe(201);
      const body = invited.body as Json;
      const id = String(body["id"]);
      expect(invited.headers["location"]).toMatch(new RegExp(`/admin-users/${id}$`));
      const invitation = w.t.invitations.at(-1);
      expect(invitation?.adminUser).toEqual({ ...body, invitationExpiresAt: invitation?.expiresAt });
      seen.set(email, { id, code: String(invitation?.code) });
      // What A reads back: the answer, the entry, the list, and a second invitation of the e-mail.
      const got = await w.t.get(`/admin-users/${id}`, w.keys.adminA);
      const listed = ((await w.t.get("/admin-users?status=invited", w.keys.adminA)).body as { data: Json[] }).data;
      const again = await w.t.post("/admin-users/invite", { email, role: "viewer", organizationIds: [w.orgA.id] }, w.keys.adminA);
      expectProblem(again, 409, "conflict");
      views.push(
        JSON.parse(
          JSON.stringify({
            answer: body,
            got: { status: got.status, body: got.body },
            listed: listed.filter((entry) => entry["id"] === id),
            again: again.body,
          })
            .replaceAll(id, "<id>")
            .replaceAll(email, "<email>"),
        ),
      );
    }
    expect(views[1]).toEqual(views[0]);
    expect(views[2]).toEqual(views[0]);
    // The audit trail records the three alike, each under its own id.
    const adminA = (await w.t.analytics.findApiKeyByHash(hashToken(w.keys.adminA)))?.id;
    const invites = (await trail.list(""))
      .filter((entry) => entry.operation === "analytics.inviteAdminUser" && entry.tokenId === adminA)
      .map(({ id: _id, at: _at, resourceId, ...entry }) => ({ ...entry, resourceId: resourceId === undefined ? undefined : "<id>" }));
    expect(invites.filter((entry) => entry.status === 201)).toHaveLength(3);
    expect(new Set(invites.map((entry) => JSON.stringify(entry))).size).toBe(2);
    // The operator, who sees everyone, is still told which admin user holds the e-mail.
    const operator = await w.t.post("/admin-users/invite", { email: "admin-b@example.com", role: "viewer", organizationIds: [w.orgA.id] });
    expectProblem(operator, 409, "conflict");
    expect(String((operator.body as Json)["detail"])).toContain(w.adminUsers.adminB);
  });

  it("merges an accepted invitation into the admin user that has its e-mail: its keys see the organization, no new key", async () => {
    const w = await createWorld(await open());
    await w.t.post("/admin-users/invite", { email: "admin-b@example.com", role: "admin", organizationIds: [w.orgA.id] }, w.keys.adminA);
    const offer = w.t.invitations.at(-1);
    expect((await w.t.get(`/organizations/${w.orgA.id}`, w.keys.adminB)).status).toBe(404);

    const accepted = await w.t.post("/invitations/accept", { code: offer?.code }, null);
    expect(accepted.status, accepted.text).toBe(200);
    const body = accepted.body as { adminUser: Json; apiKey?: string };
    expect(body.apiKey).toBeUndefined();
    expect(body.adminUser).toMatchObject({
      id: w.adminUsers.adminB,
      email: "admin-b@example.com",
      role: "admin",
      status: "active",
      organizationIds: [w.orgA.id, w.orgB.id].sort(),
    });
    // B's own key now reaches A, and A sees B's admin (not B's organization) where the offer was.
    expect((await w.t.get(`/organizations/${w.orgA.id}`, w.keys.adminB)).status).toBe(200);
    expect((await w.t.get(`/organizations/${w.orgB.id}`, w.keys.adminB)).status).toBe(200);
    expect((await w.t.get(`/admin-users/${String(offer?.adminUser.id)}`, w.keys.adminA)).status).toBe(404);
    const seenByA = await w.t.get(`/admin-users/${w.adminUsers.adminB}`, w.keys.adminA);
    expect((seenByA.body as Json)["organizationIds"]).toEqual([w.orgA.id]);
    // The code is spent.
    expectProblem(await w.t.post("/invitations/accept", { code: offer?.code }, null), 404, "not-found");
  });

  it("refuses an offer its admin user cannot take — the role viewer for an admin, organizations its inviter no longer holds — and keeps it pending", async () => {
    const w = await createWorld(await open());
    const inviteAsA = async (role: "admin" | "viewer") => {
      const invited = await w.t.post(
        "/admin-users/invite",
        { email: "admin-b@example.com", role, organizationIds: [w.orgA.id] },
        w.keys.adminA,
      );
      expect(invited.status, invited.text).toBe(201);
      return { id: String((invited.body as Json)["id"]), code: String(w.t.invitations.at(-1)?.code) };
    };
    // admin-b is an admin: a viewer offer would make it manage A.
    const viewerOffer = await inviteAsA("viewer");
    expectProblem(await w.t.post("/invitations/accept", { code: viewerOffer.code }, null), 409, "conflict");
    expect((await w.t.delete(`/admin-users/${viewerOffer.id}`, w.keys.adminA)).status).toBe(204);
    // An admin offer, then the operator takes A away from its inviter: accepting gives nothing.
    const adminOffer = await inviteAsA("admin");
    expect((await w.t.patch(`/admin-users/${w.adminUsers.adminA}`, { organizationIds: [w.orgB.id] })).status).toBe(200);
    expectProblem(await w.t.post("/invitations/accept", { code: adminOffer.code }, null), 409, "conflict");
    expect((await w.t.get(`/organizations/${w.orgA.id}`, w.keys.adminB)).status).toBe(404);
    // Given back, the same code works: a refusal leaves the offer pending.
    expect((await w.t.patch(`/admin-users/${w.adminUsers.adminA}`, { organizationIds: [w.orgA.id] })).status).toBe(200);
    expect((await w.t.post("/invitations/accept", { code: adminOffer.code }, null)).status).toBe(200);
    expect((await w.t.get(`/organizations/${w.orgA.id}`, w.keys.adminB)).status).toBe(200);
  });

  it("names the admin user an invitation collides with when the caller may see it", async () => {
    const w = await createWorld(await open());
    const refused = await w.t.post(
      "/admin-users/invite",
      { email: "viewer-a@example.com", role: "admin", organizationIds: [w.orgA.id] },
      w.keys.adminA,
    );
    expectProblem(refused, 409, "conflict");
    expect(String((refused.body as Json)["detail"])).toContain(w.adminUsers.viewerA);
  });

  it("shows a colleague's organizations and subtree grants only where the caller may see them", async () => {
    const w = await createWorld(await open());
    const both = await adminWithKey(w.t, "both@example.com", "admin", [w.orgA.id, w.orgB.id]);
    await w.t.patch(`/admin-users/${both.id}`, { subtreeOrganizationIds: [w.orgA.id, w.orgB.id] });

    const seenByA = await w.t.get(`/admin-users/${both.id}`, w.keys.adminA);
    expect(seenByA.status).toBe(200);
    expect((seenByA.body as Json)["organizationIds"]).toEqual([w.orgA.id]);
    expect((seenByA.body as Json)["subtreeOrganizationIds"]).toEqual([w.orgA.id]);
    const listedForA = (await w.t.get("/admin-users", w.keys.adminA)).body as { data: Json[] };
    const inList = listedForA.data.find((user) => user["id"] === both.id);
    expect(inList?.["organizationIds"]).toEqual([w.orgA.id]);
    expect(JSON.stringify(listedForA)).not.toContain(w.orgB.id);

    const seenByOperator = await w.t.get(`/admin-users/${both.id}`);
    expect((seenByOperator.body as Json)["organizationIds"]).toEqual([w.orgA.id, w.orgB.id].sort());
    // Still not A's to manage, and refusing says so without naming B.
    const refused = await w.t.patch(`/admin-users/${both.id}`, { role: "viewer" }, w.keys.adminA);
    expectProblem(refused, 403, "forbidden");
    expect(JSON.stringify(refused.body)).not.toContain(w.orgB.id);
  });
}

describe("admin privacy across customers", POPULATED, () => {
  privacyCases(async () => ({}));
});

describePostgres("admin privacy across customers on PostgreSQL", (url) => {
  const schemas: TestSchema[] = [];
  afterAll(async () => {
    for (const schema of schemas) await schema.drop();
  });
  describe("cases", POPULATED, () => {
    privacyCases(async () => {
      const schema = await createTestSchema(url);
      schemas.push(schema);
      return { postgres: { pool: schema.pool() } };
    });
  });
});
