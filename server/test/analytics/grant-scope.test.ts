/**
 * No admin grants a scope wider than its own (issue 27, item 4): not to itself, not to someone it
 * invites, and an operator's later move never turns a grant it could give into more than it held
 * — on the memory store, SQLite (`express5-sqlite`) and PostgreSQL.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createTestSchema, describePostgres, type TestSchema } from "../../../src/store/sql/postgres-test-database.fixture.js";
import {
  POPULATED,
  createAnalyticsTestApp,
  expectInvalidFields,
  expectProblem,
  type AnalyticsTestApp,
  type Json,
  type TestAppOptions,
} from "./analytics-harness.js";
import { createInTree as create, provision } from "./analytics-world.js";

/** Invites (by `inviterKey`, default the operator) and accepts an admin; its id and key. */
async function admin(
  t: AnalyticsTestApp,
  email: string,
  organizationIds: readonly string[],
  subtreeOrganizationIds: readonly string[] = [],
  inviterKey?: string,
): Promise<{ id: string; key: string }> {
  const invited = await t.post("/admin-users/invite", { email, role: "admin", organizationIds, subtreeOrganizationIds }, inviterKey);
  expect(invited.status, invited.text).toBe(201);
  const accepted = await t.post("/invitations/accept", { code: t.invitations.at(-1)?.code }, null);
  expect(accepted.status).toBe(200);
  const body = accepted.body as { adminUser: Json; apiKey: string };
  return { id: body.adminUser["id"] as string, key: body.apiKey };
}

const ids = (response: { readonly body: unknown }): string[] =>
  (response.body as { data: Json[] }).data.map((item) => (item["id"] ?? item["organizationId"]) as string).sort();

function grantCases(options: () => Promise<TestAppOptions>): void {
  it("an admin of one organization cannot grant itself that organization's subtree; a division moved under it stays out of reach", async () => {
    const t = await createAnalyticsTestApp(await options());
    await create(t, "globex");
    const division = await create(t, "initech-east");
    await provision(t, division, "learner@initech.example");
    const flat = await admin(t, "flat@globex.example", ["globex"]);
    // The request: answered 200 before, which the move below turned into the division's data.
    expectInvalidFields(await t.patch(`/admin-users/${flat.id}`, { subtreeOrganizationIds: ["globex"] }, flat.key), [
      "/subtreeOrganizationIds/0",
    ]);
    // Nor an organization outside its scope, alone or with a subtree.
    expectInvalidFields(await t.patch(`/admin-users/${flat.id}`, { organizationIds: ["globex", "initech-east"] }, flat.key), [
      "/organizationIds/1",
    ]);
    expect((await t.get(`/admin-users/${flat.id}`, flat.key)).body).not.toHaveProperty("subtreeOrganizationIds");
    expect((await t.patch("/organizations/initech-east", { parentId: "globex" })).status).toBe(200);
    expect(ids(await t.get("/organizations", flat.key))).toEqual(["globex"]);
    expectProblem(await t.get("/organizations/initech-east", flat.key), 404, "not-found");
    expect((await t.get("/users?organizationId=initech-east", flat.key)).body).toMatchObject({ data: [] });
    expectProblem(await t.post("/organizations/initech-east/tokens", { label: "stolen" }, flat.key), 404, "not-found");
    // Now that globex has a division, the same self-grant is refused the same way.
    expectInvalidFields(await t.patch(`/admin-users/${flat.id}`, { subtreeOrganizationIds: ["globex"] }, flat.key), [
      "/subtreeOrganizationIds/0",
    ]);
    // It may not move an organization either (only the operator does), so it cannot bring one under itself.
    expectProblem(await t.patch("/organizations/globex", { parentId: null }, flat.key), 403, "forbidden");
  });

  it("an admin cannot invite someone with a subtree it does not hold, and may with one it holds", async () => {
    const t = await createAnalyticsTestApp(await options());
    await create(t, "acme");
    await create(t, "acme-emea", "acme");
    await create(t, "globex");
    const flat = await admin(t, "flat@acme.example", ["acme", "globex"]);
    const invite = (key: string, email: string, organizationIds: readonly string[], subtreeOrganizationIds: readonly string[]) =>
      t.post("/admin-users/invite", { email, role: "admin", organizationIds, subtreeOrganizationIds }, key);
    // globex has no descendant today: holding it is still not holding what may be put under it.
    expectInvalidFields(await invite(flat.key, "friend@globex.example", ["globex"], ["globex"]), ["/subtreeOrganizationIds/0"]);
    expectInvalidFields(await invite(flat.key, "friend@acme.example", ["acme", "globex"], ["globex"]), ["/subtreeOrganizationIds/0"]);
    expect(t.invitations.map((invitation) => invitation.adminUser.email)).toEqual(["flat@acme.example"]);
    // Whoever holds a subtree may hand out it or any subtree below it, and organizations inside it.
    const cio = await admin(t, "cio@acme.example", ["acme"], ["acme"]);
    const regional = await invite(cio.key, "emea@acme.example", ["acme-emea"], ["acme-emea"]);
    expect(regional.status, regional.text).toBe(201);
    expect(regional.body).toMatchObject({ organizationIds: ["acme-emea"], subtreeOrganizationIds: ["acme-emea"] });
    const self = await t.patch(
      `/admin-users/${cio.id}`,
      { organizationIds: ["acme", "acme-emea"], subtreeOrganizationIds: ["acme", "acme-emea"] },
      cio.key,
    );
    expect(self.status, self.text).toBe(200);
    // …but not beside it.
    expectInvalidFields(await invite(cio.key, "x@globex.example", ["globex"], []), ["/organizationIds/0"]);
  });

  it("a grant given within the granter's subtree follows the organization the operator moves; the granter loses it", async () => {
    const t = await createAnalyticsTestApp(await options());
    await create(t, "acme");
    await create(t, "acme-emea", "acme");
    await create(t, "globex");
    const cio = await admin(t, "cio@acme.example", ["acme"], ["acme"]);
    const emea = await admin(t, "emea@acme.example", ["acme-emea"], ["acme-emea"], cio.key);
    expect((await t.patch("/organizations/acme-emea", { parentId: "globex" })).status).toBe(200);
    expect(ids(await t.get("/organizations", cio.key))).toEqual(["acme"]);
    // The moved division is no longer the CIO's to hand out, to anyone, itself included.
    expectInvalidFields(await t.patch(`/admin-users/${cio.id}`, { organizationIds: ["acme", "acme-emea"] }, cio.key), [
      "/organizationIds/1",
    ]);
    expectProblem(await t.patch(`/admin-users/${emea.id}`, { subtreeOrganizationIds: [] }, cio.key), 404, "not-found");
    expect(ids(await t.get("/organizations", emea.key))).toEqual(["acme-emea"]);
  });
}

describe("grants never reach past the granter's own scope", POPULATED, () => {
  grantCases(async () => ({}));
});

describePostgres("grants never reach past the granter's own scope on PostgreSQL", (url) => {
  const schemas: TestSchema[] = [];
  afterAll(async () => {
    for (const schema of schemas) await schema.drop();
  });
  describe("cases", POPULATED, () => {
    grantCases(async () => {
      const schema = await createTestSchema(url);
      schemas.push(schema);
      return { postgres: { pool: schema.pool() } };
    });
  });
});
