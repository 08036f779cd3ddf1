/**
 * `POST /Users` for a user who already exists (`existingUsers`, issue 15 item 3): 409 `uniqueness`
 * by default (RFC 7644 §3.3); with `"link"`, the existing user is replaced by the POSTed
 * representation and answered with 200, its ETag and Location, a `user.linked` event and an audit
 * entry. Races between POSTs of one new user give one 201 and 200s, in one process and across two
 * (two routers on one store), on the project's store and on PostgreSQL.
 */
import { describe, expect, it } from "vitest";
import type { AuditRecord } from "../../src/audit/audit-trail.js";
import { memoryAuditTrail } from "../../src/audit/memory-audit-trail.js";
import { ScimError } from "../../src/errors.js";
import type { ScimRouterOptions } from "../../src/http/scim-router-options.js";
import type { ResourceStore } from "../../src/store/resource-store.js";
import { describePostgres } from "../../src/store/sql/postgres-test-database.fixture.js";
import { GROUP_SCHEMA, createTestApp, defaultStore, expectScimError, postgresStores, userBody, type TestApp } from "./harness.js";
import { BULK_REQUEST_SCHEMA, type Json } from "./provisioning-helpers.js";

async function linkingApp(options: Partial<ScimRouterOptions> = {}): Promise<TestApp> {
  return createTestApp({ existingUsers: "link", ...options });
}

async function userIds(t: TestApp): Promise<string[]> {
  const response = await t.get("/Users?count=100").expect(200);
  return (response.body as Json)["Resources"].map((user: Json) => user["id"] as string);
}

interface LatentStore {
  readonly store: ResourceStore;
  /** Creates the store refused with 409 `uniqueness`: races lost at the database. */
  readonly refusedCreates: () => number;
}

/** The store with a database's latency on lookups and creates, so concurrent POSTs overlap. */
function latent(inner: ResourceStore, milliseconds = 10): LatentStore {
  const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, milliseconds));
  let refused = 0;
  const store: ResourceStore = {
    ...(inner.capabilities ? { capabilities: inner.capabilities } : {}),
    get: (request) => inner.get(request),
    update: (request) => inner.update(request),
    delete: (request) => inner.delete(request),
    list: async (request) => {
      const result = await inner.list(request);
      await pause();
      return result;
    },
    create: async (request) => {
      await pause();
      try {
        return await inner.create(request);
      } catch (error) {
        if (error instanceof ScimError && error.scimType === "uniqueness") refused += 1;
        throw error;
      }
    },
  };
  return { store, refusedCreates: () => refused };
}

/** Sends `count` POSTs of one new user at once, alternating between `apps`; returns the statuses sorted. */
async function racePosts(apps: readonly TestApp[], userName: string, count = 10): Promise<number[]> {
  const responses = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      (apps[index % apps.length] as TestApp).post("/Users", userBody(index % 2 === 0 ? userName : userName.toUpperCase())),
    ),
  );
  for (const response of responses) expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
  return responses.map((response) => response.status).sort((a, b) => a - b);
}

describe("POST /Users of an existing user, default (conflict)", () => {
  it("answers 409 uniqueness, as RFC 7644 §3.3 prescribes", async () => {
    const t = await createTestApp();
    await t.post("/Users", userBody("bjensen")).expect(201);
    expectScimError(await t.post("/Users", userBody("BJensen")), 409, "uniqueness");
    expect(await userIds(t)).toHaveLength(1);
  });

  it("refuses an option that is neither a policy nor a function when the router is built", async () => {
    await expect(createTestApp({ existingUsers: "merge" as never })).rejects.toThrow(/existingUsers/);
  });
});

describe("POST /Users of an existing user, with existingUsers: link", () => {
  it("replaces the user found by userName (any case, any Unicode form) and answers 200 with its id, ETag and Location", async () => {
    const t = await linkingApp();
    const created = await t.post("/Users", userBody("Ångström", { nickName: "Ång", externalId: "e-1" })).expect(201);
    const id = (created.body as Json)["id"] as string;
    t.events.length = 0;

    const linked = await t.post("/Users", userBody("A\u030Angstro\u0308m".toLowerCase(), { title: "Physicist" })).expect(200);
    const body = linked.body as Json;
    expect(body["id"]).toBe(id);
    expect(body["title"]).toBe("Physicist");
    // A POST carries the whole resource: what it leaves out goes, as with PUT (RFC 7644 §3.5.1).
    expect(body).not.toHaveProperty("nickName");
    expect(body).not.toHaveProperty("externalId");
    expect(linked.headers["location"]).toBe(body["meta"]["location"]);
    expect(String(linked.headers["location"])).toMatch(new RegExp(`/Users/${id}$`));
    const read = await t.get(`/Users/${id}`).expect(200);
    expect(linked.headers["etag"]).toBe(read.headers["etag"]);
    expect(linked.headers["etag"]).not.toBe(created.headers["etag"]);
    expect(await userIds(t)).toEqual([id]);
    expect(t.events.map((event) => event.type)).toEqual(["user.linked"]);
    expect(t.events[0]?.id).toBe(id);
    expect(t.events[0]?.resource["title"]).toBe("Physicist");
  });

  it("finds the user by externalId and renames it", async () => {
    const t = await linkingApp();
    const id = ((await t.post("/Users", userBody("old.name", { externalId: "00u1" })).expect(201)).body as Json)["id"];
    const linked = await t.post("/Users", userBody("new.name", { externalId: "00u1" })).expect(200);
    expect(linked.body).toMatchObject({ id, userName: "new.name", externalId: "00u1" });
    expect(await userIds(t)).toEqual([id]);
  });

  it("answers 409 uniqueness naming both users when userName and externalId find different ones, and writes nothing", async () => {
    const t = await linkingApp();
    const first = ((await t.post("/Users", userBody("first", { externalId: "x-1" })).expect(201)).body as Json)["id"] as string;
    const second = ((await t.post("/Users", userBody("second", { externalId: "x-2" })).expect(201)).body as Json)["id"] as string;
    const before = (await t.get(`/Users/${first}`)).headers["etag"];
    t.events.length = 0;
    const { detail } = expectScimError(await t.post("/Users", userBody("first", { externalId: "x-2" })), 409, "uniqueness");
    expect(detail).toContain(first);
    expect(detail).toContain(second);
    expect(detail).toContain('userName "first"');
    expect(detail).toContain('externalId "x-2"');
    expect((await t.get(`/Users/${first}`)).headers["etag"]).toBe(before);
    expect(t.events).toEqual([]);
  });

  it("creates with 201 when nobody matches", async () => {
    const t = await linkingApp();
    await t.post("/Users", userBody("someone", { externalId: "e-1" })).expect(201);
    await t.post("/Users", userBody("someone.else", { externalId: "e-2" })).expect(201);
    expect(await userIds(t)).toHaveLength(2);
  });

  it("reports deactivation with the link, and links even when nothing changes (same version, an event still)", async () => {
    const t = await linkingApp();
    const created = await t.post("/Users", userBody("bjensen")).expect(201);
    t.events.length = 0;
    await t.post("/Users", userBody("bjensen", { active: false })).expect(200);
    expect(t.events.map((event) => event.type)).toEqual(["user.linked", "user.deactivated"]);

    t.events.length = 0;
    const first = await t.post("/Users", userBody("bjensen", { active: false })).expect(200);
    const again = await t.post("/Users", userBody("bjensen", { active: false })).expect(200);
    expect(again.headers["etag"]).toBe(first.headers["etag"]);
    expect(again.headers["etag"]).not.toBe(created.headers["etag"]);
    expect(t.events.map((event) => event.type)).toEqual(["user.linked", "user.linked"]);
  });

  it("honours If-Match on a linking POST, and the pre-link ETag is stale afterwards", async () => {
    const t = await linkingApp();
    const created = await t.post("/Users", userBody("bjensen")).expect(201);
    const id = (created.body as Json)["id"] as string;
    const etag = String(created.headers["etag"]);

    expectScimError(await t.post("/Users", userBody("bjensen", { title: "x" })).set("If-Match", 'W/"stale"'), 412);
    expect((await t.get(`/Users/${id}`).expect(200)).body).not.toHaveProperty("title");

    const linked = await t
      .post("/Users", userBody("bjensen", { title: "Boss" }))
      .set("If-Match", etag)
      .expect(200);
    expect(linked.body).toMatchObject({ id, title: "Boss" });
    expectScimError(await t.put(`/Users/${id}`, userBody("bjensen")).set("If-Match", etag), 412);
    await t.put(`/Users/${id}`, userBody("bjensen")).set("If-Match", String(linked.headers["etag"])).expect(200);
  });

  it("keeps the validation of a POST: a bad body is 400 and links nothing", async () => {
    const t = await linkingApp();
    await t.post("/Users", userBody("bjensen")).expect(201);
    expectScimError(await t.post("/Users", userBody("bjensen", { active: "perhaps" })), 400, "invalidValue");
  });

  it("never links groups: an existing displayName stays 409 uniqueness", async () => {
    const t = await linkingApp();
    await t.post("/Groups", { schemas: [GROUP_SCHEMA], displayName: "Admins" }).expect(201);
    expectScimError(await t.post("/Groups", { schemas: [GROUP_SCHEMA], displayName: "admins" }), 409, "uniqueness");
    expect(t.events.map((event) => event.type)).toEqual(["group.created"]);
  });

  it("chooses per organization through a function", async () => {
    const t = await createTestApp({ existingUsers: (orgId) => (orgId === "acme" ? "link" : "conflict") });
    await t.post("/Users", userBody("bjensen")).expect(201);
    await t.post("/Users", userBody("bjensen")).expect(200);
    await t.post(`${t.base("globex")}/Users`, userBody("bjensen"), t.token.globex).expect(201);
    expectScimError(await t.post(`${t.base("globex")}/Users`, userBody("bjensen"), t.token.globex), 409, "uniqueness");
  });

  it("records the link in the audit trail: a create with status 200 and the existing user's id", async () => {
    const trail = memoryAuditTrail();
    const t = await linkingApp({ onAudit: trail });
    const id = ((await t.post("/Users", userBody("bjensen")).expect(201)).body as Json)["id"];
    await t.post("/Users", userBody("bjensen")).expect(200);
    const entries = [...(await trail.list("acme", { limit: 10 }))]
      .reverse()
      .map(({ operation, resourceId, status, outcome }: AuditRecord) => ({
        operation,
        resourceId,
        status,
        outcome,
      }));
    expect(entries).toEqual([
      { operation: "create", resourceId: id, status: 201, outcome: "success" },
      { operation: "create", resourceId: id, status: 200, outcome: "success" },
    ]);
  });

  it("links in /Bulk POST operations, and a bulkId reference resolves to the linked user", async () => {
    const trail = memoryAuditTrail();
    const t = await linkingApp({ onAudit: trail });
    const id = ((await t.post("/Users", userBody("bjensen")).expect(201)).body as Json)["id"] as string;
    const response = await t
      .post("/Bulk", {
        schemas: [BULK_REQUEST_SCHEMA],
        Operations: [
          { method: "POST", path: "/Users", bulkId: "u", data: userBody("BJENSEN", { title: "Linked" }) },
          { method: "POST", path: "/Users", bulkId: "n", data: userBody("newcomer") },
          {
            method: "POST",
            path: "/Groups",
            bulkId: "g",
            data: { schemas: [GROUP_SCHEMA], displayName: "G", members: [{ value: "bulkId:u" }] },
          },
        ],
      })
      .expect(200);
    const [linked, created, group] = (response.body as Json)["Operations"] as Json[];
    expect(linked).toMatchObject({ status: "200", bulkId: "u" });
    expect(String(linked?.["location"])).toMatch(new RegExp(`/Users/${id}$`));
    expect(linked?.["version"]).toBe((await t.get(`/Users/${id}`)).headers["etag"]);
    expect(created?.["status"]).toBe("201");
    expect(group?.["status"]).toBe("201");
    const groupId = String(group?.["location"]).split("/").pop();
    const members = ((await t.get(`/Groups/${groupId}`).expect(200)).body as Json)["members"] as Json[];
    expect(members.map((member) => member["value"])).toEqual([id]);
    expect(((await t.get(`/Users/${id}`)).body as Json)["title"]).toBe("Linked");
    const bulkEntries = (await trail.list("acme", { limit: 10 })).filter((entry) => entry.via === "bulk" && entry.bulkId === "u");
    expect(bulkEntries).toMatchObject([{ operation: "create", status: 200, resourceId: id }]);
  });
});

describe("concurrent POSTs of one new user", () => {
  it("with link, in one process: one 201, the others 200, one user", async () => {
    const { store, refusedCreates } = latent(await defaultStore());
    const t = await linkingApp({ store });
    expect(await racePosts([t], "racer")).toEqual([...Array.from({ length: 9 }, () => 200), 201]);
    expect(await userIds(t)).toHaveLength(1);
    // The POSTs waited for each other (one lock per userName), so none reached the store's uniqueness.
    expect(refusedCreates()).toBe(0);
  });

  it("with link, across two routers on one store (two processes): one 201, the others 200, one user", async () => {
    const { store, refusedCreates } = latent(await defaultStore());
    const apps = [await linkingApp({ store }), await linkingApp({ store })];
    expect(await racePosts(apps, "racer")).toEqual([...Array.from({ length: 9 }, () => 200), 201]);
    expect(await userIds(apps[0] as TestApp)).toHaveLength(1);
    // The other router's create lost at the store's uniqueness, looked again and linked.
    expect(refusedCreates()).toBeGreaterThan(0);
    expect(apps.flatMap((app) => app.errors)).toEqual([]);
  });

  it("with conflict: one 201, the others 409 uniqueness", async () => {
    const { store } = latent(await defaultStore());
    const apps = [await createTestApp({ store }), await createTestApp({ store })];
    expect(await racePosts(apps, "racer")).toEqual([201, ...Array.from({ length: 9 }, () => 409)]);
  });
});

describePostgres("concurrent POSTs of one new user on PostgreSQL", (url) => {
  const openStore = postgresStores(url);

  it("with link, across two store instances (two processes): one 201, the others 200, one user", async () => {
    const apps = [await linkingApp({ store: await openStore() }), await linkingApp({ store: await openStore() })];
    expect(await racePosts(apps, "pg-racer", 12)).toEqual([...Array.from({ length: 11 }, () => 200), 201]);
    expect(await userIds(apps[0] as TestApp)).toHaveLength(1);
  });

  it("links by userName and answers 409 for two matches, as on the other stores", async () => {
    const t = await linkingApp({ store: await openStore() });
    const id = ((await t.post("/Users", userBody("PG.User", { externalId: "pg-1" })).expect(201)).body as Json)["id"];
    await t.post("/Users", userBody("pg.other", { externalId: "pg-2" })).expect(201);
    expect((await t.post("/Users", userBody("pg.user", { externalId: "pg-1" })).expect(200)).body).toMatchObject({ id });
    expectScimError(await t.post("/Users", userBody("pg.user", { externalId: "pg-2" })), 409, "uniqueness");
  });
});
