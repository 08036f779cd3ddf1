/**
 * Lifecycle events (`onEvent`), delivered after the store has committed, and error rendering:
 * unknown errors are a bare 500 reported to `onError`; bad input of any kind is a 4xx SCIM error,
 * never a 500.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import type { ScimEvent } from "../../src/http/lifecycle-events/scim-event.js";
import { specProfile } from "../../src/scim/schema/resource-profile.js";
import { memoryStore } from "../../src/store/memory/memory-store.js";
import type { ResourceStore, StoredResource } from "../../src/store/resource-store.js";
import type { TokenVerifier } from "../../src/auth/token-verifier.js";
import { GROUP_SCHEMA, PATCH_SCHEMA, createTestApp, expectScimError, userBody, type TestApp } from "./harness.js";

interface Resource {
  readonly id: string;
  readonly meta: { readonly version: string };
}

function patch(...operations: Record<string, unknown>[]): Record<string, unknown> {
  return { schemas: [PATCH_SCHEMA], Operations: operations };
}

function types(events: readonly ScimEvent[]): string[] {
  return events.map((event) => event.type);
}

async function createUser(t: TestApp, userName: string): Promise<string> {
  return ((await t.post("/Users", userBody(userName)).expect(201)).body as Resource).id;
}

async function createGroup(t: TestApp, displayName: string, members: string[] = []): Promise<string> {
  const body = { schemas: [GROUP_SCHEMA], displayName, members: members.map((value) => ({ value })) };
  return ((await t.post("/Groups", body).expect(201)).body as Resource).id;
}

describe("user lifecycle events", () => {
  it("reports created, updated, deactivated, activated and deleted with the organization and resource", async () => {
    const t = await createTestApp();
    const id = await createUser(t, "ann");
    expect(types(t.events)).toEqual(["user.created"]);
    expect(t.events[0]).toMatchObject({ orgId: "acme", resourceType: "User", id, resource: { id, userName: "ann" } });

    t.events.length = 0;
    await t.patch(`/Users/${id}`, patch({ op: "replace", path: "displayName", value: "Ann" })).expect(200);
    expect(types(t.events)).toEqual(["user.updated"]);
    expect(t.events[0]?.resource).toMatchObject({ displayName: "Ann" });

    t.events.length = 0;
    await t.put(`/Users/${id}`, userBody("ann", { displayName: "Ann B" })).expect(200);
    expect(types(t.events)).toEqual(["user.updated"]);

    t.events.length = 0;
    await t.patch(`/Users/${id}`, patch({ op: "replace", path: "active", value: false })).expect(200);
    expect(types(t.events).sort()).toEqual(["user.deactivated", "user.updated"]);
    expect(t.events.find((e) => e.type === "user.deactivated")).toMatchObject({ id, orgId: "acme", resource: { active: false } });

    t.events.length = 0;
    await t.patch(`/Users/${id}`, patch({ op: "replace", path: "active", value: true })).expect(200);
    expect(types(t.events).sort()).toEqual(["user.activated", "user.updated"]);
    expect(t.events.find((e) => e.type === "user.activated")).toMatchObject({ id, resource: { active: true } });

    t.events.length = 0;
    await t.delete(`/Users/${id}`).expect(204);
    expect(types(t.events)).toEqual(["user.deleted"]);
    expect(t.events[0]).toMatchObject({ id, orgId: "acme", resource: { id, userName: "ann" } });
  });

  it("reports deactivation through Okta's path-less replace and a PUT with active false", async () => {
    const t = await createTestApp();
    const id = await createUser(t, "bob");
    t.events.length = 0;
    await t.patch(`/Users/${id}`, patch({ op: "replace", value: { active: false } })).expect(200);
    expect(types(t.events)).toContain("user.deactivated");
    t.events.length = 0;
    await t.put(`/Users/${id}`, userBody("bob", { active: true })).expect(200);
    expect(types(t.events)).toContain("user.activated");
    t.events.length = 0;
    await t.put(`/Users/${id}`, userBody("bob", { active: false })).expect(200);
    expect(types(t.events)).toContain("user.deactivated");
  });

  it("reports nothing for a write that changes nothing, or fails", async () => {
    const t = await createTestApp();
    const id = await createUser(t, "carl");
    t.events.length = 0;
    await t.patch(`/Users/${id}`, patch({ op: "replace", path: "active", value: true })).expect(200);
    expectScimError(await t.post("/Users", userBody("carl")), 409);
    expectScimError(await t.patch(`/Users/${id}`, patch({ op: "replace", path: "active", value: true })).set("If-Match", 'W/"stale"'), 412);
    expectScimError(await t.delete("/Users/missing"), 404);
    expect(t.events).toEqual([]);
  });

  it("reports nothing for a PATCH whose only change is not kept (a password; an attribute the profile drops)", async () => {
    // PATCH's change flag is judged on what will be stored (profile pruning, no writeOnly values).
    const t = await createTestApp({ profile: specProfile });
    const id = await createUser(t, "dana");
    const before = (await t.get(`/Users/${id}`).expect(200)).body as Resource;
    t.events.length = 0;
    await t.patch(`/Users/${id}`, patch({ op: "replace", path: "password", value: "hunter2" })).expect(200);
    await t.patch(`/Users/${id}`, patch({ op: "replace", path: "title", value: "Tour guide" })).expect(200);
    expect(t.events).toEqual([]);
    expect(((await t.get(`/Users/${id}`).expect(200)).body as Resource).meta.version).toBe(before.meta.version);
  });

  it("reports events in the organization of the path", async () => {
    const t = await createTestApp();
    await t.post(`${t.base("globex")}/Users`, userBody("gina"), t.token.globex).expect(201);
    expect(t.events).toHaveLength(1);
    expect(t.events[0]).toMatchObject({ type: "user.created", orgId: "globex" });
  });
});

describe("group lifecycle events", () => {
  it("reports created, updated, members added, members removed and deleted", async () => {
    const t = await createTestApp();
    const alice = await createUser(t, "alice");
    const bob = await createUser(t, "bob");
    t.events.length = 0;

    const id = await createGroup(t, "Admins");
    expect(types(t.events)).toEqual(["group.created"]);
    expect(t.events[0]).toMatchObject({ orgId: "acme", resourceType: "Group", id, resource: { displayName: "Admins" } });

    t.events.length = 0;
    await t.patch(`/Groups/${id}`, patch({ op: "replace", path: "displayName", value: "Administrators" })).expect(204);
    expect(types(t.events)).toEqual(["group.updated"]);
    expect(t.events[0]?.resource).toMatchObject({ displayName: "Administrators" });

    t.events.length = 0;
    await t.patch(`/Groups/${id}`, patch({ op: "add", path: "members", value: [{ value: alice }, { value: bob }] })).expect(204);
    expect(types(t.events)).toEqual(["group.members.added"]);
    expect([...(t.events[0]?.memberIds ?? [])].sort()).toEqual([alice, bob].sort());
    expect(t.events[0]).toMatchObject({ id, orgId: "acme" });

    t.events.length = 0;
    await t.patch(`/Groups/${id}`, patch({ op: "remove", path: `members[value eq "${alice}"]` })).expect(204);
    expect(types(t.events)).toEqual(["group.members.removed"]);
    expect(t.events[0]?.memberIds).toEqual([alice]);

    t.events.length = 0;
    await t.delete(`/Groups/${id}`).expect(204);
    expect(types(t.events)).toEqual(["group.deleted"]);
    expect(t.events[0]).toMatchObject({ id, resource: { displayName: "Administrators" } });
  });

  it("reports members.ignored for a member id that is not a resource of the organization", async () => {
    const t = await createTestApp();
    const alice = await createUser(t, "alice");
    const id = await createGroup(t, "Admins");
    t.events.length = 0;
    await t.patch(`/Groups/${id}`, patch({ op: "add", path: "members", value: [{ value: alice }, { value: "no-such-user" }] })).expect(204);
    expect(types(t.events).sort()).toEqual(["group.members.added", "group.members.ignored"]);
    expect(t.events.find((e) => e.type === "group.members.added")?.memberIds).toEqual([alice]);
    expect(t.events.find((e) => e.type === "group.members.ignored")?.memberIds).toEqual(["no-such-user"]);
  });

  it("reports members.ignored when a group is created with an unknown member", async () => {
    const t = await createTestApp();
    t.events.length = 0;
    await createGroup(t, "Ghosts", ["no-such-user"]);
    expect(types(t.events)).toContain("group.members.ignored");
    expect(t.events.find((e) => e.type === "group.members.ignored")?.memberIds).toEqual(["no-such-user"]);
  });

  it("tells the host who the members of a group created with members are", async () => {
    const t = await createTestApp();
    const alice = await createUser(t, "alice");
    t.events.length = 0;
    await createGroup(t, "Founders", [alice]);
    // The group.created resource is rendered without members, so the initial members must reach the
    // host as a members.added event; otherwise a host granting access by group never hears of alice.
    const created = t.events.find((e) => e.type === "group.created");
    const createdMembers = (created?.resource["members"] as { value: string }[] | undefined)?.map((m) => m.value);
    const added = t.events.find((e) => e.type === "group.members.added")?.memberIds;
    expect(createdMembers ?? added).toEqual([alice]);
  });

  it("reports added and removed members of a PUT that replaces the members", async () => {
    const t = await createTestApp();
    const alice = await createUser(t, "alice");
    const bob = await createUser(t, "bob");
    const id = await createGroup(t, "Admins");
    await t.patch(`/Groups/${id}`, patch({ op: "add", path: "members", value: [{ value: alice }] })).expect(204);
    t.events.length = 0;
    await t.put(`/Groups/${id}`, { schemas: [GROUP_SCHEMA], displayName: "Admins", members: [{ value: bob }] }).expect(200);
    expect(t.events.find((e) => e.type === "group.members.added")?.memberIds).toEqual([bob]);
    expect(t.events.find((e) => e.type === "group.members.removed")?.memberIds).toEqual([alice]);
    expect(types(t.events)).not.toContain("group.updated");
  });
});

describe("event delivery after commit", () => {
  it("lets the listener read every change from the store", async () => {
    const store = memoryStore();
    const seen: { type: string; stored: StoredResource | undefined }[] = [];
    const t = await createTestApp({
      store,
      onEvent: async (event) => {
        const stored = await store.get({
          orgId: event.orgId,
          resourceType: event.resourceType,
          id: event.id,
          members: event.resourceType === "Group",
        });
        seen.push({ type: event.type, stored });
      },
    });
    const alice = await createUser(t, "alice");
    await t.patch(`/Users/${alice}`, patch({ op: "replace", path: "displayName", value: "Alice" })).expect(200);
    await t.patch(`/Users/${alice}`, patch({ op: "replace", path: "active", value: false })).expect(200);
    const group = await createGroup(t, "Admins");
    await t.patch(`/Groups/${group}`, patch({ op: "add", path: "members", value: [{ value: alice }] })).expect(204);
    await t.patch(`/Groups/${group}`, patch({ op: "remove", path: "members", value: [{ value: alice }] })).expect(204);
    await t.delete(`/Groups/${group}`).expect(204);
    await t.delete(`/Users/${alice}`).expect(204);

    const find = (type: string) => seen.filter((entry) => entry.type === type);
    expect(find("user.created")[0]?.stored?.attributes["userName"]).toBe("alice");
    expect(find("user.updated")[0]?.stored?.attributes["displayName"]).toBe("Alice");
    expect(find("user.deactivated")[0]?.stored?.attributes["active"]).toBe(false);
    expect(find("group.created")[0]?.stored?.attributes["displayName"]).toBe("Admins");
    expect(find("group.members.added")[0]?.stored?.members?.map((m) => m.value)).toEqual([alice]);
    expect(find("group.members.removed")[0]?.stored?.members ?? []).toEqual([]);
    expect(find("group.deleted")[0]?.stored).toBeUndefined();
    expect(find("user.deleted")[0]?.stored).toBeUndefined();
    expect(seen).toHaveLength(9);
  });

  it("does not fail the request when the listener throws, and reports the error to onError", async () => {
    const failure = new Error("listener broke");
    const t = await createTestApp({
      onEvent: () => {
        throw failure;
      },
    });
    const created = await t.post("/Users", userBody("ann")).expect(201);
    const id = (created.body as Resource).id;
    await t.get(`/Users/${id}`).expect(200);
    await t.patch(`/Users/${id}`, patch({ op: "replace", path: "active", value: false })).expect(200);
    await t.delete(`/Users/${id}`).expect(204);
    // created, updated, deactivated, deleted: each failure reported, none reached a client.
    expect(t.errors).toEqual([failure, failure, failure, failure]);
  });

  it("does not fail the request when an async listener rejects", async () => {
    const t = await createTestApp({ onEvent: async () => Promise.reject(new Error("async listener broke")) });
    await t.post("/Groups", { schemas: [GROUP_SCHEMA], displayName: "G" }).expect(201);
    expect(t.errors).toHaveLength(1);
    expect((t.errors[0] as Error).message).toBe("async listener broke");
    const list = (await t.get("/Groups").expect(200)).body as { totalResults: number };
    expect(list.totalResults).toBe(1);
  });
});

describe("unknown errors", () => {
  function explodingStore(method: "get" | "list"): ResourceStore {
    const inner = memoryStore();
    return {
      create: (r) => inner.create(r),
      get: method === "get" ? () => Promise.reject(new Error("db exploded: secret")) : (r) => inner.get(r),
      list: method === "list" ? () => Promise.reject(new Error("db exploded: secret")) : (r) => inner.list(r),
      update: (r) => inner.update(r),
      delete: (r) => inner.delete(r),
    };
  }

  it("answers a failing store.get with a bare 500 and reports the error", async () => {
    const t = await createTestApp({ store: explodingStore("get") });
    const response = await t.get("/Users/some-id");
    expectScimError(response, 500);
    expect(response.text).not.toContain("secret");
    expect(response.text).not.toContain("db exploded");
    expect(response.text).not.toMatch(/at .*\.ts:\d+|node_modules|Error:/);
    expect(t.errors).toHaveLength(1);
    expect((t.errors[0] as Error).message).toBe("db exploded: secret");
  });

  it("answers a failing store.list with a bare 500 on GET and on .search", async () => {
    const t = await createTestApp({ store: explodingStore("list") });
    for (const response of [await t.get("/Users?filter=userName%20eq%20%22x%22"), await t.post("/Groups/.search", {})]) {
      expectScimError(response, 500);
      expect(response.text).not.toContain("secret");
      expect(Object.keys(response.body as object).sort()).toEqual(["detail", "schemas", "status"]);
    }
    expect(t.errors).toHaveLength(2);
    expect(t.errors.every((error) => (error as Error).message === "db exploded: secret")).toBe(true);
  });

  it("answers a failing store inside PATCH, PUT and DELETE with a bare 500", async () => {
    const t = await createTestApp({ store: explodingStore("get") });
    for (const response of [
      await t.patch("/Users/x", patch({ op: "replace", path: "active", value: false })),
      await t.put("/Users/x", userBody("x")),
      await t.delete("/Users/x"),
    ]) {
      expectScimError(response, 500);
      expect(response.text).not.toContain("secret");
    }
    expect(t.errors).toHaveLength(3);
  });

  it("answers a verifier that throws with a bare 500, not a 401", async () => {
    const auth: TokenVerifier = { verify: () => Promise.reject(new Error("token db down: secret")) };
    const t = await createTestApp({ auth });
    const response = await t.get("/Users");
    expectScimError(response, 500);
    expect(response.text).not.toContain("secret");
    expect(t.errors).toHaveLength(1);
  });

  it("passes the request to onError", async () => {
    const reported: { error: unknown; path: string | undefined }[] = [];
    const t = await createTestApp({
      store: explodingStore("get"),
      onError: (error, req) => reported.push({ error, path: req?.originalUrl }),
    });
    await t.get("/Users/abc").expect(500);
    expect(reported).toHaveLength(1);
    expect(reported[0]?.path).toBe("/scim/Organizations/acme/v2/Users/abc");
  });
});

describe("nothing else yields a 500", () => {
  const longId = "x".repeat(5000);
  const getPaths = [
    "/Users/garbage-id",
    "/Users/%00",
    "/Users/..%2F..%2Fetc%2Fpasswd",
    "/Users/%E0%A4%A",
    "/Users/%",
    "/Groups/%E0%A4%A",
    "/Schemas/%E0%A4%A",
    "/ResourceTypes/%ZZ",
    `/Users/${longId}`,
    "/Users/'%20OR%201=1--",
    "/Users?count=abc",
    "/Users?count=-5",
    "/Users?count=1e400",
    "/Users?count=99999999999999999999999",
    "/Users?startIndex=-5",
    "/Users?startIndex=abc",
    "/Users?startIndex=99999999999999999999999",
    "/Users?startIndex=1.5",
    "/Users?count=1&count=2",
    "/Users?filter=((((",
    "/Users?filter=))))",
    "/Users?filter=userName%20eq",
    "/Users?filter=userName%20zz%20%22x%22",
    "/Users?filter=nosuch%20eq%20%22x%22",
    `/Users?filter=${encodeURIComponent('emails[type eq "work"')}`,
    `/Users?filter=${encodeURIComponent(`${"(".repeat(200)}userName eq "x"${")".repeat(200)}`)}`,
    `/Users?filter=${encodeURIComponent(`userName eq "${"y".repeat(12000)}"`)}`,
    "/Users?filter=%E0%A4%A",
    "/Users?attributes=%00,!!,@@,urn:",
    "/Users?attributes=name.givenName.extra",
    "/Users?excludedAttributes=((),$ref,meta.nope",
    "/Users?attributes=urn:ietf:params:scim:schemas:core:2.0:User:",
    "/Users/garbage?attributes=%E2%98%83,..",
    "/Users?sortBy=nosuch",
    "/Users?sortBy=emails",
    "/Users?sortBy=userName&sortOrder=sideways",
    "/Users?cursor=not-a-cursor",
    "/Users?cursor=%00%01",
    "/Users?cursor=abc&startIndex=1",
    "/Groups?filter=members%5Bvalue%20eq%5D",
    "/Groups?sortBy=members",
    "/NoSuchEndpoint",
    "/Users/a/b/c",
    "/Bulk",
    "/Users/.search",
    "/ServiceProviderConfig/extra",
    "/Schemas/urn:nope",
    "/ResourceTypes/Nope",
  ];

  for (const path of getPaths) {
    it(`answers GET ${path.slice(0, 80)} with a 4xx (or a 200), never a 500`, async () => {
      const t = await createTestApp();
      await createUser(t, "ann");
      const response = await request(t.app).get(`${t.base()}${path}`).set("Authorization", `Bearer ${t.token.acme}`);
      expect(response.status, response.text).toBeLessThan(500);
      if (response.status >= 400) expectScimError(response, response.status);
      expect(t.errors).toEqual([]);
    });
  }

  const methodCalls: readonly { readonly method: "put" | "patch" | "delete" | "post"; readonly path: string; readonly body?: string }[] = [
    { method: "put", path: "/Users", body: JSON.stringify(userBody("x")) },
    { method: "patch", path: "/Users", body: "{}" },
    { method: "delete", path: "/Users" },
    { method: "delete", path: "/Groups" },
    { method: "post", path: "/Users/some-id", body: "{}" },
    { method: "post", path: "/ServiceProviderConfig", body: "{}" },
    { method: "put", path: "/Schemas", body: "{}" },
    { method: "delete", path: "/ResourceTypes/User" },
    { method: "patch", path: "/Bulk", body: "{}" },
    { method: "put", path: "/Users/%E0%A4%A", body: JSON.stringify(userBody("x")) },
    { method: "patch", path: "/Users/%E0%A4%A", body: "{}" },
    { method: "delete", path: "/Users/%E0%A4%A" },
    { method: "patch", path: "/Users/nope", body: JSON.stringify(patch({ op: "replace", path: "active", value: false })) },
    { method: "patch", path: "/Users/nope", body: '{"Operations":"x"}' },
    { method: "post", path: "/Users", body: '{"schemas":"x","userName":{"a":1}}' },
    { method: "post", path: "/Users", body: `{"userName":"${"n".repeat(5000)}","schemas":["urn:ietf:params:scim:schemas:core:2.0:User"]}` },
    {
      method: "post",
      path: "/Users",
      body: '{"__proto__":{"polluted":true},"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"p"}',
    },
    { method: "post", path: "/Users/.search", body: '{"filter":42,"count":"x"}' },
    { method: "post", path: "/Users/.search", body: '{"filter":"(((("}' },
    { method: "post", path: "/Users/.search", body: '{"startIndex":-5,"count":-1,"attributes":[1,2]}' },
    {
      method: "post",
      path: "/Groups",
      body: '{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"displayName":"g","members":[{"value":42}]}',
    },
    {
      method: "post",
      path: "/Groups",
      body: '{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"displayName":"g","members":"x"}',
    },
    {
      method: "post",
      path: "/Bulk",
      body: '{"Operations":[{"method":"GET","path":"/Users"},{"method":"POST","path":"/Nope","data":{}},{"method":"DELETE","path":"%E0%A4%A"}]}',
    },
    { method: "post", path: "/Bulk", body: '{"Operations":[{"method":"PATCH","path":"/Users/bulkId:missing","data":{}}]}' },
    { method: "post", path: "/Bulk", body: '{"Operations":"nope"}' },
  ];

  for (const call of methodCalls) {
    it(`answers ${call.method.toUpperCase()} ${call.path.slice(0, 60)} ${call.body ? call.body.slice(0, 60) : ""} with a 4xx (or 2xx), never a 500`, async () => {
      const t = await createTestApp();
      await createUser(t, "ann");
      let test = request(t.app)[call.method](`${t.base()}${call.path}`).set("Authorization", `Bearer ${t.token.acme}`);
      if (call.body !== undefined) test = test.set("Content-Type", "application/scim+json").send(call.body);
      const response = await test;
      expect(response.status, response.text).toBeLessThan(500);
      if (response.status >= 400) expectScimError(response, response.status);
      expect(t.errors).toEqual([]);
      expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    });
  }

  it("answers an unsupported method on a collection with a 4xx and stores nothing", async () => {
    const t = await createTestApp();
    const response = await t.put("/Users", userBody("x"));
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expectScimError(response, response.status);
    const list = (await t.get("/Users").expect(200)).body as { totalResults: number };
    expect(list.totalResults).toBe(0);
  });

  it("answers a malformed %-escape in an id with a 400 SCIM error", async () => {
    const t = await createTestApp();
    expectScimError(await t.get("/Users/%E0%A4%A"), 400);
    expectScimError(await t.delete("/Users/%E0%A4%A"), 400);
  });

  it("answers an organization id over the length limit with a 4xx", async () => {
    const t = await createTestApp();
    const response = await request(t.app)
      .get(`${t.base("o".repeat(300))}/Users`)
      .set("Authorization", `Bearer ${t.token.acme}`);
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(t.errors).toEqual([]);
  });

  it("answers a malformed %-escape in the organization id with a 4xx", async () => {
    const t = await createTestApp();
    const response = await request(t.app).get("/scim/Organizations/%E0%A4%A/v2/Users").set("Authorization", `Bearer ${t.token.acme}`);
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(t.errors).toEqual([]);
  });
});
