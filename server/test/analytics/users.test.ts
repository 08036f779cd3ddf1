/**
 * Users (spec §4.6): the learners provisioned through SCIM — read from the SCIM data, so a change
 * through SCIM shows at once — filtered by organization, active and department, within the
 * organizations the caller may see.
 */
import { describe, expect, it } from "vitest";
import { POPULATED, expectInvalidFields, expectProblem, type Json } from "./analytics-harness.js";
import { createWorld } from "./analytics-world.js";

function userNames(body: unknown): string[] {
  return (body as { data: Json[] }).data.map((user) => user["userName"] as string);
}

describe("GET /users", POPULATED, () => {
  it("lists the learners of every organization for the operator, with the SCIM fields", async () => {
    const w = await createWorld();
    const response = await w.t.get("/users");
    expect(response.status).toBe(200);
    const body = response.body as { data: Json[]; nextCursor: unknown };
    expect(body.nextCursor).toBeNull();
    expect(body.data.map((user) => user["userName"]).sort()).toEqual(["alice", "bob", "carol", "dave"]);
    const alice = body.data.find((user) => user["userName"] === "alice");
    expect(alice).toMatchObject({
      id: w.users.alice,
      organizationId: w.orgA.id,
      displayName: "Learner alice",
      email: "alice@example.com",
      active: true,
      department: "Sales",
    });
  });

  it("shows an admin only its organizations' learners, and nothing of others even when asked by id", async () => {
    const w = await createWorld();
    expect(userNames((await w.t.get("/users", w.keys.viewerA)).body).sort()).toEqual(["alice", "bob", "carol"]);
    expect(userNames((await w.t.get(`/users?organizationId=${w.orgB.id}`, w.keys.viewerA)).body)).toEqual([]);
    expect(userNames((await w.t.get("/users", w.keys.adminB)).body)).toEqual(["dave"]);
  });

  it("filters by organization, active and department (case-insensitively), combined", async () => {
    const w = await createWorld();
    expect(userNames((await w.t.get(`/users?organizationId=${w.orgB.id}`)).body)).toEqual(["dave"]);
    expect(userNames((await w.t.get("/users?active=false")).body)).toEqual(["bob"]);
    expect(userNames((await w.t.get("/users?department=sales")).body).sort()).toEqual(["alice", "dave"]);
    expect(userNames((await w.t.get(`/users?department=SALES&organizationId=${w.orgA.id}&active=true`)).body)).toEqual(["alice"]);
  });

  it("reflects SCIM changes at once", async () => {
    const w = await createWorld();
    const path = `/scim/Organizations/${w.orgA.id}/v2/Users/${w.users.carol}`;
    const patch = {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "replace", path: "active", value: false }],
    };
    expect((await w.t.send("PATCH", path, { key: w.orgA.scim.token, body: patch, contentType: "application/scim+json" })).status).toBe(200);
    expect(userNames((await w.t.get("/users?active=false")).body).sort()).toEqual(["bob", "carol"]);
    expect((await w.t.send("DELETE", path, { key: w.orgA.scim.token })).status).toBe(204);
    expect(userNames((await w.t.get(`/users?organizationId=${w.orgA.id}`)).body).sort()).toEqual(["alice", "bob"]);
  });

  it("refuses invalid and unknown query parameters by name", async () => {
    const w = await createWorld();
    expectInvalidFields(await w.t.get("/users?active=yes"), ["active"]);
    expectInvalidFields(await w.t.get("/users?organizationId="), ["organizationId"]);
    expectInvalidFields(await w.t.get("/users?department="), ["department"]);
    expectInvalidFields(await w.t.get("/users?role=admin&sort=name"), ["role", "sort"]);
    expectInvalidFields(await w.t.get("/users?active=true&active=false"), ["active"]);
  });

  it("needs a key", async () => {
    const w = await createWorld();
    expectProblem(await w.t.get("/users", null), 401, "unauthorized");
  });
});
