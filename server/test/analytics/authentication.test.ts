/**
 * Authentication and authorization of the analytics interface (issue 6): bearer API keys that are
 * not SCIM tokens and do not work as SCIM tokens, one 401 body for every failure, 403 for a known
 * caller without the right, and the public operations.
 */
import { describe, expect, it } from "vitest";
import { issueApiKey } from "../../src/analytics/api-keys.js";
import { POPULATED, createAnalyticsTestApp, expectProblem, type Json } from "./analytics-harness.js";
import { createWorld } from "./analytics-world.js";

describe("401", POPULATED, () => {
  it("is one body, with WWW-Authenticate, for a missing, malformed, unknown, SCIM or disabled key", async () => {
    const w = await createWorld();
    expect((await w.t.patch(`/admin-users/${w.adminUsers.viewerA}`, { status: "disabled" })).status).toBe(200);
    const attempts = [
      await w.t.send("GET", "/organizations", { key: null }),
      await w.t.send("GET", "/organizations", { key: null, headers: { Authorization: `Basic ${Buffer.from("a:b").toString("base64")}` } }),
      await w.t.send("GET", "/organizations", { key: null, headers: { Authorization: "Bearer" } }),
      await w.t.get("/organizations", "scimkit_ak_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
      await w.t.get("/organizations", w.orgA.scim.token),
      await w.t.get("/organizations", w.keys.viewerA),
      await w.t.get("/organizations", `${w.t.operatorKey}x`),
    ];
    const first = expectProblem(attempts[0] as never, 401, "unauthorized");
    for (const response of attempts) {
      expect(expectProblem(response, 401, "unauthorized")).toEqual(first);
      expect(response.headers["www-authenticate"]).toBe('Bearer realm="analytics"');
    }
  });

  it("comes before validation: a caller without a key learns nothing from a bad body or query", async () => {
    const w = await createWorld();
    expectProblem(await w.t.post("/organizations", { nonsense: true }, null), 401, "unauthorized");
    expectProblem(await w.t.get("/users?bogus=1", null), 401, "unauthorized");
    expectProblem(await w.t.get("/organizations/not-an-id", null), 401, "unauthorized");
  });

  it("accepts the scheme in any case", async () => {
    const w = await createWorld();
    const response = await w.t.send("GET", "/organizations", { key: null, headers: { Authorization: `bEaReR ${w.t.operatorKey}` } });
    expect(response.status).toBe(200);
  });
});

describe("keys and SCIM tokens are separate", POPULATED, () => {
  it("an analytics key never works on the SCIM router", async () => {
    const w = await createWorld();
    for (const key of [w.t.operatorKey, w.keys.adminA]) {
      const response = await w.t.send("GET", `/scim/Organizations/${w.orgA.id}/v2/Users`, { key });
      expect(response.status).toBe(401);
      expect((response.body as Json)["schemas"]).toEqual(["urn:ietf:params:scim:api:messages:2.0:Error"]);
    }
  });

  it("a SCIM token never works on the analytics router", async () => {
    const w = await createWorld();
    expectProblem(await w.t.get("/users", w.orgA.scim.token), 401, "unauthorized");
    expectProblem(await w.t.get(`/organizations/${w.orgA.id}`, w.orgA.scim.token), 401, "unauthorized");
  });

  it("an operator key issued later, or by another process, works at once", async () => {
    const t = await createAnalyticsTestApp();
    const { key } = await issueApiKey(t.analytics, { kind: "operator" });
    expect((await t.get("/organizations", key)).status).toBe(200);
  });
});

describe("403", POPULATED, () => {
  it("refuses every write of a viewer", async () => {
    const w = await createWorld();
    const writes = [
      await w.t.post("/organizations", { name: "New" }, w.keys.viewerA),
      await w.t.patch(`/organizations/${w.orgA.id}`, { name: "Renamed" }, w.keys.viewerA),
      await w.t.delete(`/organizations/${w.orgA.id}`, w.keys.viewerA),
      await w.t.post("/admin-users/invite", { email: "x@example.com", role: "viewer", organizationIds: [w.orgA.id] }, w.keys.viewerA),
      await w.t.patch(`/admin-users/${w.adminUsers.adminA}`, { role: "viewer" }, w.keys.viewerA),
      await w.t.delete(`/admin-users/${w.adminUsers.adminA}`, w.keys.viewerA),
    ];
    for (const response of writes) expectProblem(response, 403, "forbidden");
    expect(((await w.t.get(`/organizations/${w.orgA.id}`)).body as Json)["name"]).toBe("Acme");
    expect(((await w.t.get(`/admin-users/${w.adminUsers.adminA}`)).body as Json)["role"]).toBe("admin");
  });

  it("lets a viewer read everything of its organizations, reports included", async () => {
    const w = await createWorld();
    expect((await w.t.get(`/campaigns/${w.campaignA.id}/summary`, w.keys.viewerA)).status).toBe(200);
    expect((await w.t.get(`/campaigns/${w.campaignA.id}/users/bulk-report`, w.keys.viewerA)).status).toBe(202);
  });
});

describe("public operations", POPULATED, () => {
  it("serve the OpenAPI document and accept invitations without a key", async () => {
    const t = await createAnalyticsTestApp();
    const document = await t.get("/openapi.json", null);
    expect(document.status).toBe(200);
    expect((document.body as Json)["openapi"]).toBe("3.1.0");
    expectProblem(await t.post("/invitations/accept", { code: "x" }, null), 404, "not-found");
  });
});
