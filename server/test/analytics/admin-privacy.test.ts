/**
 * Issue 19: an admin learns nothing about admin users or organizations outside its scope — not
 * from an invitation that collides with another customer's admin, not from a colleague's
 * `organizationIds`. On the memory store, on SQLite (the express5-sqlite project) and on
 * PostgreSQL.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createTestSchema, describePostgres, type TestSchema } from "../../../src/store/sql/postgres-test-database.fixture.js";
import { POPULATED, expectProblem, type Json, type TestAppOptions } from "./analytics-harness.js";
import { adminWithKey, createWorld } from "./analytics-world.js";

/** `open` gives each case a world of its own: the worlds' admin e-mails would collide in one database. */
function privacyCases(open: () => Promise<TestAppOptions>): void {
  it("answers an invitation colliding with another customer's admin as any refused one: no id, no date", async () => {
    const w = await createWorld(await open());
    // admin-b looks after B only; a pending invitation for B only too.
    await w.t.post("/admin-users/invite", { email: "pending-b@example.com", role: "viewer", organizationIds: [w.orgB.id] });
    const pendingB = w.t.invitations.at(-1)?.adminUser;
    const details: string[] = [];
    for (const email of ["admin-b@example.com", "pending-b@example.com"]) {
      const refused = await w.t.post("/admin-users/invite", { email, role: "viewer", organizationIds: [w.orgA.id] }, w.keys.adminA);
      expectProblem(refused, 409, "conflict");
      const detail = String((refused.body as Json)["detail"]);
      expect(detail).not.toContain(w.adminUsers.adminB);
      expect(detail).not.toContain(String(pendingB?.id));
      expect(detail).not.toMatch(/\d{4}-\d{2}-\d{2}/);
      details.push(detail.replace(email, "<email>"));
    }
    // An active admin and a pending invitation are told apart by nothing.
    expect(details[0]).toBe(details[1]);
    // The operator, who sees both, is still told which admin user holds the e-mail.
    const operator = await w.t.post("/admin-users/invite", { email: "admin-b@example.com", role: "viewer", organizationIds: [w.orgA.id] });
    expectProblem(operator, 409, "conflict");
    expect(String((operator.body as Json)["detail"])).toContain(w.adminUsers.adminB);
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
