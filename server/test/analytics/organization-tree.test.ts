/**
 * The organization tree over HTTP (issue 17): a parent set on create and changed by PATCH, cycles
 * and the depth bound refused with a detail that names them, a parent with children deleted only
 * with `?subtree=true` — then its divisions' SCIM tokens stop too — and provisioning that stays
 * independent: the same `userName` in a company and its division is two users.
 */
import { describe, expect, it } from "vitest";
import { MAX_ORGANIZATION_DEPTH } from "@scimkit/server";
import {
  POPULATED,
  createAnalyticsTestApp,
  expectInvalidFields,
  expectProblem,
  scimUser,
  settle,
  type AnalyticsTestApp,
  type Json,
} from "./analytics-harness.js";
import { adminWithKey, createInTree as create, provision, type Org } from "./analytics-world.js";

/** A company with two divisions. */
async function company(t: AnalyticsTestApp) {
  const acme = await create(t, "acme");
  return { acme, emea: await create(t, "acme-emea", acme.id), amer: await create(t, "acme-amer", acme.id) };
}

const ids = (response: { readonly body: unknown }): string[] =>
  (response.body as { data: Json[] }).data.map((item) => item["id"] as string);

describe("the organization tree", POPULATED, () => {
  it("creates organizations under a parent, shows parentId and lists the children of one", async () => {
    const t = await createAnalyticsTestApp();
    await company(t);
    expect((await t.get("/organizations/acme-emea")).body).toMatchObject({ id: "acme-emea", parentId: "acme" });
    expect((await t.get("/organizations/acme")).body).not.toHaveProperty("parentId");
    expect(ids(await t.get("/organizations?parentId=acme"))).toEqual(["acme-amer", "acme-emea"]);
    expect(ids(await t.get("/organizations?parentId=acme-emea"))).toEqual([]);
  });

  it("refuses an unknown parent (400 on /parentId), a cycle and a chain too deep (409 naming them)", async () => {
    const t = await createAnalyticsTestApp();
    await company(t);
    expectInvalidFields(await t.post("/organizations", { name: "Orphan", parentId: "nobody" }), ["/parentId"]);
    expectInvalidFields(await t.patch("/organizations/acme", { parentId: "nobody" }), ["/parentId"]);
    expectInvalidFields(await t.post("/organizations", { name: "Bad", parentId: "a/b" }), ["/parentId"]);
    const cycle = expectProblem(await t.patch("/organizations/acme", { parentId: "acme-emea" }), 409, "conflict");
    expect(cycle.detail).toContain("acme → acme-emea → acme");
    expectProblem(await t.patch("/organizations/acme", { parentId: "acme" }), 409, "conflict");
    let parent = "acme-emea";
    for (let level = 3; level <= MAX_ORGANIZATION_DEPTH; level += 1) parent = (await create(t, `level-${level}`, parent)).id;
    const deep = expectProblem(await t.post("/organizations", { name: "Too deep", parentId: parent }), 409, "conflict");
    expect(deep.detail).toContain(`at most ${MAX_ORGANIZATION_DEPTH}`);
    expect(ids(await t.get("/organizations?parentId=acme"))).toEqual(["acme-amer", "acme-emea"]);
  });

  it("moves an organization with PATCH parentId (null: a root); only the operator may", async () => {
    const t = await createAnalyticsTestApp();
    const { amer } = await company(t);
    const admin = await adminWithKey(t, "amer@example.com", "admin", [amer.id]);
    expectProblem(await t.patch("/organizations/acme-amer", { parentId: null }, admin.key), 403, "forbidden");
    const moved = await t.patch("/organizations/acme-amer", { parentId: "acme-emea" });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: "acme-amer", parentId: "acme-emea" });
    const root = await t.patch("/organizations/acme-amer", { parentId: null });
    expect(root.status).toBe(200);
    expect(root.body).not.toHaveProperty("parentId");
    expect(ids(await t.get("/organizations?parentId=acme"))).toEqual(["acme-emea"]);
  });

  it("refuses to delete a parent with children, saying how many and how; ?subtree=true deletes them all", async () => {
    const t = await createAnalyticsTestApp();
    const { acme, emea, amer } = await company(t);
    await provision(t, emea, "ada");
    const refused = expectProblem(await t.delete("/organizations/acme"), 409, "conflict");
    expect(refused.detail).toContain("2 child organizations");
    expect(refused.detail).toContain("?subtree=true");
    expect((await t.get("/organizations/acme-emea")).status).toBe(200);
    expect((await t.send("GET", `/scim/Organizations/${emea.id}/v2/Users`, { key: emea.scim.token })).status).toBe(200);
    expect((await t.delete("/organizations/acme?subtree=false")).status).toBe(409);
    expectInvalidFields(await t.delete("/organizations/acme?subtree=yes"), ["subtree"]);

    expect((await t.delete("/organizations/acme?subtree=true")).status).toBe(204);
    for (const org of [acme, emea, amer]) {
      expectProblem(await t.get(`/organizations/${org.id}`), 404, "not-found");
      expect((await t.send("GET", `/scim/Organizations/${org.id}/v2/Users`, { key: org.scim.token })).status).toBe(401);
    }
    expect((await t.get("/users")).body).toMatchObject({ data: [] });
  });
});

describe("provisioning in a tree stays independent", POPULATED, () => {
  it("the same userName in a company and its division is two users, each seen only with its own token", async () => {
    const t = await createAnalyticsTestApp();
    const { acme, emea } = await company(t);
    const inAcme = await provision(t, acme, "ada@acme.example", { displayName: "Ada (HQ)" });
    const inEmea = await provision(t, emea, "ada@acme.example", { displayName: "Ada (EMEA)" });
    expect(inEmea).not.toBe(inAcme);
    // Uniqueness is per organization: the name is taken again only in the same one.
    const again = await t.send("POST", `/scim/Organizations/${emea.id}/v2/Users`, {
      key: emea.scim.token,
      body: scimUser("ada@acme.example"),
      contentType: "application/scim+json",
    });
    expect(again.status).toBe(409);
    const seen = async (org: Org, token: string) =>
      t.send("GET", `/scim/Organizations/${org.id}/v2/Users?filter=${encodeURIComponent('userName eq "ada@acme.example"')}`, {
        key: token,
      });
    const fromAcme = await seen(acme, acme.scim.token);
    expect((fromAcme.body as { Resources: Json[] }).Resources.map((user) => [user["id"], user["displayName"]])).toEqual([
      [inAcme, "Ada (HQ)"],
    ]);
    const fromEmea = await seen(emea, emea.scim.token);
    expect((fromEmea.body as { Resources: Json[] }).Resources.map((user) => [user["id"], user["displayName"]])).toEqual([
      [inEmea, "Ada (EMEA)"],
    ]);
    // A parent's token is no key to its division, nor the other way round.
    expect((await seen(emea, acme.scim.token)).status).toBe(401);
    expect((await seen(acme, emea.scim.token)).status).toBe(401);
    // Deleting the division's user leaves the company's.
    expect((await t.send("DELETE", `/scim/Organizations/${emea.id}/v2/Users/${inEmea}`, { key: emea.scim.token })).status).toBe(204);
    expect((await t.send("GET", `/scim/Organizations/${acme.id}/v2/Users/${inAcme}`, { key: acme.scim.token })).status).toBe(200);
  });
});

/** A company with two divisions, a team under EMEA, a learner in each, and subtree admins of the company and of EMEA. */
async function scopedCompany(t: AnalyticsTestApp) {
  const orgs = await company(t);
  const team = await create(t, "acme-emea-sec", orgs.emea.id);
  for (const [org, userName] of [
    [orgs.acme, "hq"],
    [orgs.emea, "emea"],
    [orgs.amer, "amer"],
    [team, "sec"],
  ] as const)
    await provision(t, org, userName);
  const invite = async (email: string, organizationIds: readonly string[], subtreeOrganizationIds: readonly string[]) => {
    const invited = await t.post("/admin-users/invite", { email, role: "admin", organizationIds, subtreeOrganizationIds });
    expect(invited.status, invited.text).toBe(201);
    const accepted = await t.post("/invitations/accept", { code: t.invitations.at(-1)?.code }, null);
    expect(accepted.status).toBe(200);
    const body = accepted.body as { adminUser: Json; apiKey: string };
    return { user: body.adminUser, key: body.apiKey };
  };
  const acmeAdmin = await invite("cio@acme.example", ["acme"], ["acme"]);
  const emeaAdmin = await invite("emea@acme.example", ["acme-emea"], ["acme-emea"]);
  return { ...orgs, team, acmeAdmin, emeaAdmin };
}

const userNames = (response: { readonly body: unknown }): string[] =>
  (response.body as { data: Json[] }).data.map((user) => user["userName"] as string).sort();

describe("admins of a subtree", POPULATED, () => {
  it("see and manage their organization's descendants, and nothing above or beside", async () => {
    const t = await createAnalyticsTestApp();
    const { acmeAdmin, emeaAdmin } = await scopedCompany(t);
    expect(acmeAdmin.user).toMatchObject({ organizationIds: ["acme"], subtreeOrganizationIds: ["acme"] });
    expect(ids(await t.get("/organizations", acmeAdmin.key))).toEqual(["acme", "acme-amer", "acme-emea", "acme-emea-sec"]);
    expect(userNames(await t.get("/users", acmeAdmin.key))).toEqual(["amer", "emea", "hq", "sec"]);
    expect(ids(await t.get("/organizations", emeaAdmin.key))).toEqual(["acme-emea", "acme-emea-sec"]);
    expect(userNames(await t.get("/users", emeaAdmin.key))).toEqual(["emea", "sec"]);
    for (const hidden of ["acme", "acme-amer"]) {
      expectProblem(await t.get(`/organizations/${hidden}`, emeaAdmin.key), 404, "not-found");
      expect((await t.get(`/users?organizationId=${hidden}`, emeaAdmin.key)).body).toMatchObject({ data: [] });
    }
    // Managing a descendant: renaming it and issuing SCIM tokens there (and not beside).
    expect((await t.patch("/organizations/acme-emea-sec", { name: "Security" }, emeaAdmin.key)).status).toBe(200);
    const issued = await t.post("/organizations/acme-emea-sec/tokens", { label: "EMEA security IdP" }, emeaAdmin.key);
    expect(issued.status, issued.text).toBe(201);
    expect(ids(await t.get("/organizations/acme-emea-sec/tokens", emeaAdmin.key)).length).toBe(2);
    expectProblem(await t.post("/organizations/acme-amer/tokens", { label: "x" }, emeaAdmin.key), 404, "not-found");
    expectProblem(await t.get("/organizations/acme/tokens", emeaAdmin.key), 404, "not-found");
    // Admin users: the company's admin sees the division's; the division's admin does not see the company's.
    const seenByEmea = (await t.get("/admin-users", emeaAdmin.key)).body as { data: Json[] };
    expect(seenByEmea.data.map((user) => user["email"])).toEqual(["emea@acme.example"]);
    const seenByAcme = (await t.get("/admin-users", acmeAdmin.key)).body as { data: Json[] };
    expect(seenByAcme.data.map((user) => user["email"]).sort()).toEqual(["cio@acme.example", "emea@acme.example"]);
    expectProblem(await t.delete(`/admin-users/${acmeAdmin.user["id"] as string}`, emeaAdmin.key), 404, "not-found");
  });

  it("see a division created or moved under their organization from the next request on, and lose one moved away", async () => {
    const t = await createAnalyticsTestApp();
    const { emeaAdmin } = await scopedCompany(t);
    await create(t, "acme-emea-fin", "acme-emea");
    expect(ids(await t.get("/organizations", emeaAdmin.key))).toEqual(["acme-emea", "acme-emea-fin", "acme-emea-sec"]);
    expect((await t.patch("/organizations/acme-emea-sec", { parentId: "acme-amer" })).status).toBe(200);
    expect(ids(await t.get("/organizations", emeaAdmin.key))).toEqual(["acme-emea", "acme-emea-fin"]);
    expectProblem(await t.get("/organizations/acme-emea-sec", emeaAdmin.key), 404, "not-found");
  });

  it("grant a subtree only where they see all of it, and only of the organizations granted", async () => {
    const t = await createAnalyticsTestApp();
    const { emeaAdmin } = await scopedCompany(t);
    // The EMEA admin may grant EMEA's subtree, or its team alone.
    const granted = await t.post(
      "/admin-users/invite",
      { email: "sec@acme.example", role: "viewer", organizationIds: ["acme-emea-sec"], subtreeOrganizationIds: ["acme-emea-sec"] },
      emeaAdmin.key,
    );
    expect(granted.status).toBe(201);
    expect(granted.body).toMatchObject({ organizationIds: ["acme-emea-sec"], subtreeOrganizationIds: ["acme-emea-sec"] });
    expectInvalidFields(
      await t.post(
        "/admin-users/invite",
        { email: "x@acme.example", role: "admin", organizationIds: ["acme-emea"], subtreeOrganizationIds: ["acme"] },
        emeaAdmin.key,
      ),
      ["/subtreeOrganizationIds/0"],
    );
    // An admin of EMEA alone (no subtree) may not hand out EMEA's subtree: it does not see the team.
    const invited = await t.post("/admin-users/invite", { email: "flat@acme.example", role: "admin", organizationIds: ["acme-emea"] });
    expect(invited.status).toBe(201);
    const flat = await t.post("/invitations/accept", { code: t.invitations.at(-1)?.code }, null);
    const flatKey = (flat.body as { apiKey: string }).apiKey;
    expect(ids(await t.get("/organizations", flatKey))).toEqual(["acme-emea"]);
    expectInvalidFields(
      await t.post(
        "/admin-users/invite",
        { email: "y@acme.example", role: "admin", organizationIds: ["acme-emea"], subtreeOrganizationIds: ["acme-emea"] },
        flatKey,
      ),
      ["/subtreeOrganizationIds/0"],
    );
    // …nor manage the subtree admin of EMEA, who sees more than it does.
    expectProblem(await t.patch(`/admin-users/${emeaAdmin.user["id"] as string}`, { role: "viewer" }, flatKey), 403, "forbidden");
    // PATCH: subtree grants follow organizationIds unless given.
    const id = (invited.body as Json)["id"] as string;
    const patched = await t.patch(`/admin-users/${id}`, { subtreeOrganizationIds: ["acme-emea"] });
    expect(patched.body).toMatchObject({ organizationIds: ["acme-emea"], subtreeOrganizationIds: ["acme-emea"] });
    expect(ids(await t.get("/organizations", flatKey))).toEqual(["acme-emea", "acme-emea-sec"]);
    const cleared = await t.patch(`/admin-users/${id}`, { subtreeOrganizationIds: [] });
    expect(cleared.body).not.toHaveProperty("subtreeOrganizationIds");
  });
});

describe("a cascading suspension", POPULATED, () => {
  it("suspends every descendant, whose SCIM tokens answer 401, and resumes them the same way", async () => {
    const t = await createAnalyticsTestApp();
    const { acme, emea, amer } = await company(t);
    const other = await create(t, "other");
    const status = async (org: Org) => (await t.send("GET", `/scim/Organizations/${org.id}/v2/Users`, { key: org.scim.token })).status;
    expectInvalidFields(await t.patch("/organizations/acme", { cascade: true }), ["/cascade"]);
    const suspended = await t.patch("/organizations/acme", { status: "suspended", cascade: true });
    expect(suspended.body).toMatchObject({ id: "acme", status: "suspended" });
    for (const org of [acme, emea, amer]) expect(await status(org), org.id).toBe(401);
    expect(await status(other)).toBe(200);
    expect((await t.get("/organizations/acme-emea")).body).toMatchObject({ status: "suspended" });
    // Without cascade only the organization itself changes.
    expect((await t.patch("/organizations/acme", { status: "active" })).status).toBe(200);
    expect([await status(acme), await status(emea)]).toEqual([200, 401]);
    expect((await t.patch("/organizations/acme", { status: "active", cascade: true })).status).toBe(200);
    for (const org of [acme, emea, amer]) expect(await status(org), org.id).toBe(200);
  });
});

describe("lists across a subtree", POPULATED, () => {
  it("?organizationId=…&subtree=true reads the organization and its descendants the caller sees, each row naming its organization", async () => {
    const t = await createAnalyticsTestApp();
    const { emeaAdmin } = await scopedCompany(t);
    for (const orgId of ["acme", "acme-emea-sec", "acme-amer"])
      await t.recorder.createCampaign(orgId, { name: `Essentials ${orgId}`, startsAt: "2026-03-02T00:00:00.000Z" });
    const emeaUsers = (await t.get("/users?organizationId=acme-emea&subtree=true")).body as { data: Json[] };
    expect(emeaUsers.data.map((user) => [user["organizationId"], user["userName"]])).toEqual([
      ["acme-emea", "emea"],
      ["acme-emea-sec", "sec"],
    ]);
    expect(userNames(await t.get("/users?organizationId=acme&subtree=true"))).toEqual(["amer", "emea", "hq", "sec"]);
    expect(userNames(await t.get("/users?organizationId=acme"))).toEqual(["hq"]);
    // Nothing through an organization the caller may not see, even where it sees descendants.
    expect((await t.get("/users?organizationId=acme&subtree=true", emeaAdmin.key)).body).toMatchObject({ data: [] });
    expect(userNames(await t.get("/users?organizationId=acme-emea&subtree=true", emeaAdmin.key))).toEqual(["emea", "sec"]);
    const campaigns = (await t.get("/campaigns?organizationId=acme-emea&subtree=true")).body as { data: Json[] };
    expect(campaigns.data.map((campaign) => campaign["organizationId"])).toEqual(["acme-emea-sec"]);
    const all = (await t.get("/campaigns?organizationId=acme&subtree=true")).body as { data: Json[] };
    expect(all.data.map((campaign) => campaign["organizationId"]).sort()).toEqual(["acme", "acme-amer", "acme-emea-sec"]);
    expectInvalidFields(await t.get("/users?organizationId=acme&subtree=maybe"), ["subtree"]);
  });
});

describe("GET /organizations/{id}/summary", POPULATED, () => {
  it("gives an organization's figures, across its visible subtree on request, counting a person once by work e-mail when asked", async () => {
    const t = await createAnalyticsTestApp();
    const { emea, emeaAdmin } = await scopedCompany(t);
    // The company's "hq" learner again in EMEA, from EMEA's own tenant: same work e-mail.
    await provision(t, emea, "hq.emea", { emails: [{ value: "HQ@example.com", type: "work" }] });
    const zero = { learners: 0, activeLearners: 0, enrolled: 0, completed: 0, overdue: 0, sent: 0, clicked: 0, reported: 0 };
    const own = await t.get("/organizations/acme/summary");
    expect(own.status).toBe(200);
    expect(own.body).toEqual({
      organizationId: "acme",
      organizations: [{ ...zero, organizationId: "acme", learners: 1, activeLearners: 1 }],
      totals: { ...zero, learners: 1, activeLearners: 1 },
      asOf: "2026-03-01T09:00:00.000Z",
    });
    const tree = (await t.get("/organizations/acme/summary?subtree=true&people=true")).body as Json & { organizations: Json[] };
    expect(tree.organizations.map((row) => [row["organizationId"], row["learners"]])).toEqual([
      ["acme", 1],
      ["acme-amer", 1],
      ["acme-emea", 2],
      ["acme-emea-sec", 1],
    ]);
    expect(tree["totals"]).toMatchObject({ learners: 5, activeLearners: 5 });
    expect(tree["people"]).toEqual({ learners: 4, activeLearners: 4 });
    expect((await t.get("/organizations/acme/summary?subtree=true")).body).not.toHaveProperty("people");
    // The EMEA admin: its subtree only; the company is not found.
    const emeaTree = (await t.get("/organizations/acme-emea/summary?subtree=true", emeaAdmin.key)).body as { organizations: Json[] };
    expect(emeaTree.organizations.map((row) => row["organizationId"])).toEqual(["acme-emea", "acme-emea-sec"]);
    expectProblem(await t.get("/organizations/acme/summary?subtree=true", emeaAdmin.key), 404, "not-found");
    expectProblem(await t.get("/organizations/acme-amer/summary", emeaAdmin.key), 404, "not-found");
  });
});

describe("GET /organizations/{id}/users/bulk-report", POPULATED, () => {
  it("reports every learner of the subtree, each row naming its organization; 403 for an admin who does not see all of it", async () => {
    const t = await createAnalyticsTestApp();
    const { emeaAdmin } = await scopedCompany(t);
    const started = await t.get("/organizations/acme-emea/users/bulk-report", emeaAdmin.key);
    expect(started.status).toBe(202);
    const id = (started.body as { operation: Json }).operation["id"] as string;
    expect(await settle(t, id, emeaAdmin.key)).toMatchObject({ status: "succeeded", progress: { done: 2, total: 2 } });
    const rows = (await t.get(`/operations/${id}/result`, emeaAdmin.key)).body as Json[];
    expect(rows.map((row) => [row["organizationId"], row["userName"]])).toEqual([
      ["acme-emea", "emea"],
      ["acme-emea-sec", "sec"],
    ]);
    const csv = await t.get(`/operations/${id}/result?format=csv`, emeaAdmin.key);
    expect(csv.text.split("\r\n")[0]).toBe("organizationId,userId,userName,displayName,email,department,active");
    expectProblem(await t.get("/organizations/acme/users/bulk-report", emeaAdmin.key), 404, "not-found");
    // An admin of EMEA alone does not see its team: no report of the subtree.
    const flat = await adminWithKey(t, "flat@acme.example", "viewer", ["acme-emea"]);
    expectProblem(await t.get("/organizations/acme-emea/users/bulk-report", flat.key), 403, "forbidden");
    const whole = await t.get("/organizations/acme/users/bulk-report");
    const all = await settle(t, (whole.body as { operation: Json }).operation["id"] as string);
    expect(all).toMatchObject({ status: "succeeded", progress: { done: 4 } });
  });
});
