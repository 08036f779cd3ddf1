/**
 * The organization tree over HTTP (issue 17): a parent set on create and changed by PATCH, cycles
 * and the depth bound refused with a detail that names them, a parent with children deleted only
 * with `?subtree=true` — then its divisions' SCIM tokens stop too — and provisioning that stays
 * independent: the same `userName` in a company and its division is two users.
 */
import { describe, expect, it } from "vitest";
import { MAX_ORGANIZATION_DEPTH } from "scimkit/analytics";
import {
  POPULATED,
  createAnalyticsTestApp,
  expectInvalidFields,
  expectProblem,
  scimUser,
  type AnalyticsTestApp,
  type Json,
} from "./analytics-harness.js";
import { adminWithKey, provision, type Org } from "./analytics-world.js";

/** Creates organization `id` under `parentId` (a root without); returns its SCIM credentials. */
async function create(t: AnalyticsTestApp, id: string, parentId?: string): Promise<Org> {
  const response = await t.post("/organizations", { name: id, id, ...(parentId === undefined ? {} : { parentId }) });
  expect(response.status, response.text).toBe(201);
  const body = response.body as { organization: Json; scim: { baseUrl: string; token: string } };
  expect(body.organization["parentId"]).toBe(parentId);
  return { id, scim: body.scim };
}

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
