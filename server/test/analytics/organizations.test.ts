/**
 * Organizations (spec §4.6): list with a status filter, create with the SCIM base address and a
 * working SCIM token, get, rename and suspend (the SCIM tokens stop working and come back), and
 * delete with everything of the organization.
 */
import { describe, expect, it } from "vitest";
import {
  POPULATED,
  createAnalyticsTestApp,
  expectInvalidFields,
  expectProblem,
  scimUser,
  UNKNOWN,
  type Json,
} from "./analytics-harness.js";
import { createWorld, provision } from "./analytics-world.js";

describe("POST /organizations", POPULATED, () => {
  it("creates an active organization and returns its SCIM base address and a token that works there", async () => {
    const t = await createAnalyticsTestApp();
    const response = await t.post("/organizations", { name: "  Initech  " });
    expect(response.status).toBe(201);
    const body = response.body as { organization: Json; scim: { baseUrl: string; token: string } };
    const id = body.organization["id"] as string;
    expect(body.organization).toEqual({
      id,
      name: "Initech",
      status: "active",
      createdAt: "2026-03-01T09:00:00.000Z",
      updatedAt: "2026-03-01T09:00:00.000Z",
    });
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(response.headers["location"]).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/analytics/v1/organizations/${id}$`));
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(body.scim.baseUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/scim/Organizations/${id}/v2$`));

    const scimPath = new URL(body.scim.baseUrl).pathname;
    const created = await t.send("POST", `${scimPath}/Users`, {
      key: body.scim.token,
      body: scimUser("first"),
      contentType: "application/scim+json",
    });
    expect(created.status).toBe(201);
    const fetched = await t.get(`/organizations/${id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(body.organization);
  });

  it("creates an organization with a compatibility profile and an existing-user choice, refusing unknown ones", async () => {
    const t = await createAnalyticsTestApp();
    const response = await t.post("/organizations", { name: "Entra shop", compatibility: "entra", existingUsers: "link" });
    expect(response.status).toBe(201);
    const organization = (response.body as { organization: Json }).organization;
    expect(organization).toMatchObject({ compatibility: "entra", existingUsers: "link" });
    expect((await t.get(`/organizations/${organization["id"] as string}`)).body).toEqual(organization);
    expectInvalidFields(await t.post("/organizations", { name: "ok", compatibility: "Entra" }), ["/compatibility"]);
    expectInvalidFields(await t.post("/organizations", { name: "ok", existingUsers: null }), ["/existingUsers"]);
  });

  it("uses the host's scimBaseUrl when it gives one", async () => {
    const t = await createAnalyticsTestApp({ router: { scimBaseUrl: (orgId) => `https://scim.example.com/o/${orgId}` } });
    const response = await t.post("/organizations", { name: "Hooli" });
    const body = response.body as { organization: { id: string }; scim: { baseUrl: string } };
    expect(body.scim.baseUrl).toBe(`https://scim.example.com/o/${body.organization.id}`);
  });

  it("refuses invalid bodies naming the field", async () => {
    const t = await createAnalyticsTestApp();
    expectInvalidFields(await t.post("/organizations", {}), ["/name"]);
    expectInvalidFields(await t.post("/organizations", { name: "" }), ["/name"]);
    expectInvalidFields(await t.post("/organizations", { name: "   " }), ["/name"]);
    expectInvalidFields(await t.post("/organizations", { name: "x".repeat(201) }), ["/name"]);
    expectInvalidFields(await t.post("/organizations", { name: 5 }), ["/name"]);
    expectInvalidFields(await t.post("/organizations", { name: "ok", id: "a/b" }), ["/id"]);
    expectInvalidFields(await t.post("/organizations", [{ name: "ok" }]), [""]);
    expectInvalidFields(await t.post("/organizations"), [""]);
    expect((await t.get("/organizations")).body).toEqual({ data: [], nextCursor: null });
  });

  it("is the operator's: admin keys get 403, whatever their role", async () => {
    const w = await createWorld();
    expectProblem(await w.t.post("/organizations", { name: "Mine" }, w.keys.adminA), 403, "forbidden");
    expectProblem(await w.t.post("/organizations", { name: "Mine" }, w.keys.viewerA), 403, "forbidden");
    expect(((await w.t.get("/organizations")).body as { data: unknown[] }).data).toHaveLength(2);
  });
});

describe("GET /organizations", POPULATED, () => {
  it("lists every organization for the operator and its own for an admin", async () => {
    const w = await createWorld();
    const all = await w.t.get("/organizations");
    expect((all.body as { data: Json[] }).data.map((org) => org["name"])).toEqual(["Acme", "Globex"]);
    const mine = await w.t.get("/organizations", w.keys.adminA);
    expect((mine.body as { data: Json[] }).data.map((org) => org["id"])).toEqual([w.orgA.id]);
    const viewer = await w.t.get("/organizations", w.keys.viewerA);
    expect((viewer.body as { data: Json[] }).data.map((org) => org["id"])).toEqual([w.orgA.id]);
  });

  it("filters by status and refuses an unknown status naming the parameter", async () => {
    const w = await createWorld();
    expect((await w.t.patch(`/organizations/${w.orgB.id}`, { status: "suspended" })).status).toBe(200);
    const suspended = await w.t.get("/organizations?status=suspended");
    expect((suspended.body as { data: Json[] }).data.map((org) => org["id"])).toEqual([w.orgB.id]);
    const active = await w.t.get("/organizations?status=active");
    expect((active.body as { data: Json[] }).data.map((org) => org["id"])).toEqual([w.orgA.id]);
    expectInvalidFields(await w.t.get("/organizations?status=closed"), ["status"]);
  });
});

describe("GET /organizations/{id}", POPULATED, () => {
  it("answers 404 alike for an unknown id, a malformed id and another organization's id", async () => {
    const w = await createWorld();
    expect((await w.t.get(`/organizations/${w.orgA.id}`, w.keys.adminA)).status).toBe(200);
    const unknown = expectProblem(await w.t.get(`/organizations/${UNKNOWN}`), 404, "not-found");
    const foreign = expectProblem(await w.t.get(`/organizations/${w.orgB.id}`, w.keys.adminA), 404, "not-found");
    expect(foreign).toEqual(unknown);
    expectProblem(await w.t.get("/organizations/not-a-uuid"), 404, "not-found");
  });

  it("serves an organization the host registered under its SCIM path id", async () => {
    const t = await createAnalyticsTestApp();
    const at = "2026-01-01T00:00:00.000Z";
    await t.analytics.createOrganization({ id: "demo", name: "Demo organization", status: "active", createdAt: at, updatedAt: at });
    expect((await t.get("/organizations/demo")).body).toEqual({
      id: "demo",
      name: "Demo organization",
      status: "active",
      createdAt: at,
      updatedAt: at,
    });
    expectProblem(await t.get("/organizations/DEMO"), 404, "not-found");
    expect(((await t.get("/users?organizationId=demo")).body as { data: unknown[] }).data).toEqual([]);
    expect((await t.patch("/organizations/demo", { name: "Demo" })).status).toBe(200);
    const invited = await t.post("/admin-users/invite", { email: "demo@example.com", role: "viewer", organizationIds: ["demo"] });
    expect((invited.body as Json)["organizationIds"]).toEqual(["demo"]);
  });
});

describe("PATCH /organizations/{id}", POPULATED, () => {
  it("renames for the operator and for an admin of the organization", async () => {
    const w = await createWorld();
    w.t.clock.advance(60_000);
    const renamed = await w.t.patch(`/organizations/${w.orgA.id}`, { name: "Acme Corp" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: w.orgA.id, name: "Acme Corp", status: "active", updatedAt: "2026-03-01T09:01:00.000Z" });
    const byAdmin = await w.t.patch(`/organizations/${w.orgA.id}`, { name: "Acme Inc" }, w.keys.adminA);
    expect(byAdmin.status).toBe(200);
    expect((byAdmin.body as Json)["name"]).toBe("Acme Inc");
  });

  it("suspends: the organization's SCIM token gets 401 until it is reactivated", async () => {
    const w = await createWorld();
    const scimPath = `/scim/Organizations/${w.orgA.id}/v2/Users`;
    expect((await w.t.send("GET", scimPath, { key: w.orgA.scim.token })).status).toBe(200);
    const suspended = await w.t.patch(`/organizations/${w.orgA.id}`, { status: "suspended" });
    expect(suspended.status).toBe(200);
    expect((suspended.body as Json)["status"]).toBe("suspended");
    expect((await w.t.send("GET", scimPath, { key: w.orgA.scim.token })).status).toBe(401);
    expect((await w.t.send("GET", `/scim/Organizations/${w.orgB.id}/v2/Users`, { key: w.orgB.scim.token })).status).toBe(200);
    expect((await w.t.patch(`/organizations/${w.orgA.id}`, { status: "active" })).status).toBe(200);
    expect((await w.t.send("GET", scimPath, { key: w.orgA.scim.token })).status).toBe(200);
  });

  it("leaves status to the operator (403), refuses viewers (403) and other organizations (404)", async () => {
    const w = await createWorld();
    expectProblem(await w.t.patch(`/organizations/${w.orgA.id}`, { status: "suspended" }, w.keys.adminA), 403, "forbidden");
    expectProblem(await w.t.patch(`/organizations/${w.orgA.id}`, { name: "Viewer's" }, w.keys.viewerA), 403, "forbidden");
    expectProblem(await w.t.patch(`/organizations/${w.orgB.id}`, { name: "Taken over" }, w.keys.adminA), 404, "not-found");
    expectProblem(await w.t.patch(`/organizations/${UNKNOWN}`, { name: "Nobody" }), 404, "not-found");
    const b = await w.t.get(`/organizations/${w.orgB.id}`);
    expect((b.body as Json)["name"]).toBe("Globex");
    const a = await w.t.get(`/organizations/${w.orgA.id}`);
    expect(a.body).toMatchObject({ name: "Acme", status: "active" });
  });

  it("sets the SCIM compatibility profile and existing-user choice (an admin of the organization may), and null returns each to its default", async () => {
    const w = await createWorld();
    const set = await w.t.patch(`/organizations/${w.orgA.id}`, { compatibility: "okta", existingUsers: "link" }, w.keys.adminA);
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ id: w.orgA.id, compatibility: "okta", existingUsers: "link" });
    expect((await w.t.get(`/organizations/${w.orgA.id}`)).body).toMatchObject({ compatibility: "okta", existingUsers: "link" });
    const reset = await w.t.patch(`/organizations/${w.orgA.id}`, { compatibility: null });
    expect(reset.status).toBe(200);
    expect(reset.body).not.toHaveProperty("compatibility");
    expect(reset.body).toMatchObject({ existingUsers: "link" });
    expectProblem(await w.t.patch(`/organizations/${w.orgA.id}`, { compatibility: "strict" }, w.keys.viewerA), 403, "forbidden");
    expectInvalidFields(await w.t.patch(`/organizations/${w.orgA.id}`, { compatibility: "azure" }), ["/compatibility"]);
    expectInvalidFields(await w.t.patch(`/organizations/${w.orgA.id}`, { existingUsers: "merge" }), ["/existingUsers"]);
  });

  it("refuses invalid bodies naming the field", async () => {
    const w = await createWorld();
    expectInvalidFields(await w.t.patch(`/organizations/${w.orgA.id}`, {}), [""]);
    expectInvalidFields(await w.t.patch(`/organizations/${w.orgA.id}`, { status: "closed" }), ["/status"]);
    expectInvalidFields(await w.t.patch(`/organizations/${w.orgA.id}`, { name: "", colour: "red" }), ["/name", "/colour"]);
  });
});

describe("DELETE /organizations/{id}", POPULATED, () => {
  it("removes the organization, its learners, SCIM token, analytics data and admin users' access", async () => {
    const w = await createWorld();
    const deleted = await w.t.delete(`/organizations/${w.orgA.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expectProblem(await w.t.get(`/organizations/${w.orgA.id}`), 404, "not-found");
    expect((await w.t.send("GET", `/scim/Organizations/${w.orgA.id}/v2/Users`, { key: w.orgA.scim.token })).status).toBe(401);
    const users = await w.t.get("/users");
    expect((users.body as { data: Json[] }).data.map((user) => user["userName"])).toEqual(["dave"]);
    expectProblem(await w.t.get(`/campaigns/${w.campaignA.id}/summary`), 404, "not-found");
    expectProblem(await w.t.get(`/attack-simulations/${w.simulationA.id}/summary`), 404, "not-found");
    const admin = await w.t.get(`/admin-users/${w.adminUsers.adminA}`);
    expect((admin.body as Json)["organizationIds"]).toEqual([]);
    // Organization B is untouched.
    expect((await w.t.get(`/campaigns/${w.campaignB.id}/summary`)).status).toBe(200);
    expect((await w.t.send("GET", `/scim/Organizations/${w.orgB.id}/v2/Users`, { key: w.orgB.scim.token })).status).toBe(200);
  });

  it("is the operator's (403 for admins), and 404 for unknown ids or twice", async () => {
    const w = await createWorld();
    expectProblem(await w.t.delete(`/organizations/${w.orgA.id}`, w.keys.adminA), 403, "forbidden");
    expectProblem(await w.t.delete(`/organizations/${UNKNOWN}`), 404, "not-found");
    expect((await w.t.delete(`/organizations/${w.orgB.id}`)).status).toBe(204);
    expectProblem(await w.t.delete(`/organizations/${w.orgB.id}`), 404, "not-found");
    expect((await w.t.get(`/organizations/${w.orgA.id}`)).status).toBe(200);
  });

  it("leaves the learners of other organizations alone", async () => {
    const w = await createWorld();
    await provision(w.t, w.orgB, "erin");
    expect((await w.t.delete(`/organizations/${w.orgA.id}`)).status).toBe(204);
    const users = await w.t.get(`/users?organizationId=${w.orgB.id}`);
    expect((users.body as { data: Json[] }).data.map((user) => user["userName"])).toEqual(["dave", "erin"]);
  });
});
