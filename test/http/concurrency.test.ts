/**
 * Concurrent writes through HTTP (architecture §3, §4b): writes to one resource serialize in a process,
 * and a write that lost a race to another process is re-read and re-applied, so without `If-Match`
 * every concurrent write succeeds and none is lost, and a 409 only ever means `uniqueness`; with
 * `If-Match`, the losers get 412. Run on the project's store (memory or SQLite), on a memory store
 * with a database's latency, and on PostgreSQL with one and with two store instances.
 */
import { describe, expect, it } from "vitest";
import { ScimError } from "../../src/errors.js";
import { memoryStore } from "../../src/store/memory/memory-store.js";
import type { ResourceStore } from "../../src/store/resource-store.js";
import { describePostgres } from "../../src/store/sql/postgres-test-database.fixture.js";
import { GROUP_SCHEMA, createTestApp, userBody, type TestApp, postgresStores } from "./harness.js";
import { createGroup, createUser, memberIdsOf, patchBody, type Json } from "./provisioning-helpers.js";

interface LatentStore {
  readonly store: ResourceStore;
  /** Writes the store refused because the expected version was stale (412). */
  readonly conflicts: () => number;
}

/**
 * The memory store with the latency of a database: reads answer a few milliseconds after they
 * read, and writes start a few milliseconds late. The memory store alone finishes each request's
 * read-modify-write within one turn of the event loop, so concurrent requests would never
 * overlap; with the latency they all read the same version before any of them writes.
 */
function latentStore(milliseconds = 15): LatentStore {
  const inner = memoryStore();
  const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, milliseconds));
  let conflicts = 0;
  const store: ResourceStore = {
    ...(inner.capabilities ? { capabilities: inner.capabilities } : {}),
    create: (request) => inner.create(request),
    list: (request) => inner.list(request),
    delete: (request) => inner.delete(request),
    get: async (request) => {
      const found = await inner.get(request);
      await pause();
      return found;
    },
    update: async (request) => {
      await pause();
      try {
        return await inner.update(request);
      } catch (error) {
        if (error instanceof ScimError && error.status === 412) conflicts += 1;
        throw error;
      }
    },
  };
  return { store, conflicts: () => conflicts };
}

async function latentApp(): Promise<{ t: TestApp; conflicts: () => number }> {
  const latent = latentStore();
  return { t: await createTestApp({ store: latent.store }), conflicts: latent.conflicts };
}

describe("concurrent PATCH requests", () => {
  it("30 concurrent add-member PATCHes to one group, each a different user: all 204 and 30 members", async () => {
    const { t } = await latentApp();
    const group = await createGroup(t, "Everyone");
    const userIds: string[] = [];
    for (let index = 0; index < 30; index += 1) userIds.push(String((await createUser(t, `user${index}`))["id"]));

    const responses = await Promise.all(
      userIds.map((id) => t.patch(`/Groups/${String(group["id"])}`, patchBody({ op: "add", path: "members", value: [{ value: id }] }))),
    );
    expect(responses.map((response) => response.status)).toEqual(userIds.map(() => 204));
    for (const response of responses) expect(response.headers["etag"]).toMatch(/^W\/".+"$/);

    const read = await t.get(`/Groups/${String(group["id"])}`);
    expect(read.status).toBe(200);
    const members = memberIdsOf(read.body as Json);
    expect(members).toHaveLength(30);
    expect(members).toEqual([...userIds].sort());
    // Each delta made a version of its own: 30 distinct ETags, the group's current one among them.
    expect(new Set(responses.map((response) => response.headers["etag"])).size).toBe(30);
    expect(responses.map((response) => response.headers["etag"])).toContain(read.headers["etag"]);
  });

  it("concurrent add and remove PATCHes on one group leave exactly the expected members", async () => {
    const { t } = await latentApp();
    const initial: string[] = [];
    for (let index = 0; index < 10; index += 1) initial.push(String((await createUser(t, `old${index}`))["id"]));
    const added: string[] = [];
    for (let index = 0; index < 10; index += 1) added.push(String((await createUser(t, `new${index}`))["id"]));
    const group = (await t.post("/Groups", { schemas: [GROUP_SCHEMA], displayName: "Mixed", members: initial.map((value) => ({ value })) }))
      .body as Json;

    const responses = await Promise.all([
      ...added.map((id) => t.patch(`/Groups/${String(group["id"])}`, patchBody({ op: "add", path: "members", value: [{ value: id }] }))),
      ...initial.map((id) => t.patch(`/Groups/${String(group["id"])}`, patchBody({ op: "remove", path: `members[value eq "${id}"]` }))),
    ]);
    expect(responses.every((response) => response.status === 204)).toBe(true);
    expect(memberIdsOf((await t.get(`/Groups/${String(group["id"])}`)).body as Json)).toEqual([...added].sort());
  });

  it("concurrent PATCHes of different attributes of one user all take effect", async () => {
    const { t, conflicts } = await latentApp();
    const user = await createUser(t, "alice");
    const id = String(user["id"]);
    const changes: Record<string, string> = {
      displayName: "Alice Liddell",
      nickName: "Al",
      title: "Engineer",
      profileUrl: "https://example.com/alice",
      locale: "en-GB",
      timezone: "Europe/London",
    };
    const responses = await Promise.all(
      Object.entries(changes).map(([path, value]) => t.patch(`/Users/${id}`, patchBody({ op: "replace", path, value }))),
    );
    expect(responses.map((response) => response.status)).toEqual(Object.keys(changes).map(() => 200));
    for (const [index, [path, value]] of Object.entries(changes).entries()) {
      // Each response shows at least its own change.
      expect((responses[index]!.body as Json)[path]).toBe(value);
    }
    const read = await t.get(`/Users/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ userName: "alice", ...changes });
    // Serialized in the process: no write reached the store with a stale version.
    expect(conflicts()).toBe(0);
  });

  it("the two-attribute case: concurrent displayName and nickName PATCHes both stick, repeatedly", async () => {
    const { t, conflicts } = await latentApp();
    for (let round = 0; round < 10; round += 1) {
      const user = await createUser(t, `user${round}`);
      const id = String(user["id"]);
      const [first, second] = await Promise.all([
        t.patch(`/Users/${id}`, patchBody({ op: "replace", path: "displayName", value: `Display ${round}` })),
        t.patch(`/Users/${id}`, patchBody({ op: "add", path: "nickName", value: `Nick ${round}` })),
      ]);
      expect(first!.status).toBe(200);
      expect(second!.status).toBe(200);
      expect((await t.get(`/Users/${id}`)).body).toMatchObject({ displayName: `Display ${round}`, nickName: `Nick ${round}` });
    }
    expect(conflicts()).toBe(0);
  });

  it("concurrent PATCHes with the same If-Match: exactly one wins, the others get 412", async () => {
    const { t } = await latentApp();
    const user = await createUser(t, "alice");
    const id = String(user["id"]);
    const version = String((user["meta"] as Json)["version"]);
    const responses = await Promise.all(
      ["a", "b", "c", "d", "e"].map((value) =>
        t.patch(`/Users/${id}`, patchBody({ op: "replace", path: "nickName", value })).set("If-Match", version),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 412, 412, 412, 412]);
    const winner = responses.find((response) => response.status === 200)!;
    expect(((await t.get(`/Users/${id}`)).body as Json)["nickName"]).toBe((winner.body as Json)["nickName"]);
  });
});

const WRITERS = 20;

/** A PATCH that adds the e-mail of writer `index`, so the final user shows whether any was lost. */
function addEmail(index: number): Json {
  return patchBody({ op: "add", path: "emails", value: [{ value: `writer${index}@example.com`, type: "other" }] });
}

function emailsOf(user: Json): string[] {
  return ((user["emails"] ?? []) as Json[]).map((email) => String(email["value"])).sort();
}

/** The e-mails a user created with `userBody(userName)` has after every writer's PATCH. */
function expectedEmails(userName: string): string[] {
  return [`${userName}@example.com`, ...Array.from({ length: WRITERS }, (_, index) => `writer${index}@example.com`)].sort();
}

/**
 * 20 concurrent PATCHes and then 20 concurrent PUTs of one user, none with `If-Match`, spread over
 * `apps` (several apps on one database stand for several processes): all succeed, no PATCH is
 * lost, the user ends as one PUT left it, and nothing answered 409.
 */
async function expectConcurrentWritesSucceed(apps: readonly TestApp[], userName = "racer"): Promise<void> {
  const [first] = apps;
  if (!first) throw new Error("no app");
  const user = await createUser(first, userName);
  const id = String(user["id"]);
  const appOf = (index: number): TestApp => apps[index % apps.length] ?? first;

  const patches = await Promise.all(Array.from({ length: WRITERS }, (_, index) => appOf(index).patch(`/Users/${id}`, addEmail(index))));
  expect(
    patches.map((response) => response.status),
    JSON.stringify(patches.map((response) => response.body)),
  ).toEqual(patches.map(() => 200));
  for (const [index, response] of patches.entries()) expect(emailsOf(response.body as Json)).toContain(`writer${index}@example.com`);
  expect(emailsOf((await first.get(`/Users/${id}`)).body as Json)).toEqual(expectedEmails(userName));

  const puts = await Promise.all(
    Array.from({ length: WRITERS }, (_, index) =>
      appOf(index).put(`/Users/${id}`, userBody(userName, { nickName: `put${index}`, title: `title${index}` })),
    ),
  );
  expect(
    puts.map((response) => response.status),
    JSON.stringify(puts.map((response) => response.body)),
  ).toEqual(puts.map(() => 200));
  for (const [index, response] of puts.entries()) expect(response.body).toMatchObject({ nickName: `put${index}`, title: `title${index}` });
  const final = (await first.get(`/Users/${id}`)).body as Json;
  // A PUT replaces the whole resource (RFC 7644 §3.5.1): the last one applied wins, whole.
  const winner = Number(String(final["nickName"]).replace("put", ""));
  expect(final).toMatchObject({ nickName: `put${winner}`, title: `title${winner}` });
  expect(emailsOf(final)).toEqual([`${userName}@example.com`]);
}

describe("20 concurrent writes to one user without If-Match", () => {
  it("all succeed and all their changes land, on this project's store", async () => {
    await expectConcurrentWritesSucceed([await createTestApp()]);
  });

  it("all succeed and all their changes land, on a store with a database's latency", async () => {
    const { t, conflicts } = await latentApp();
    await expectConcurrentWritesSucceed([t]);
    expect(conflicts()).toBe(0);
  });

  it("with the same If-Match, exactly one of 20 wins and the others get 412, not 409", async () => {
    const { t } = await latentApp();
    const user = await createUser(t, "alice");
    const version = String((user["meta"] as Json)["version"]);
    const responses = await Promise.all(
      Array.from({ length: WRITERS }, (_, index) => t.patch(`/Users/${String(user["id"])}`, addEmail(index)).set("If-Match", version)),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, ...Array.from({ length: WRITERS - 1 }, () => 412)]);
  });
});

describePostgres("20 concurrent writes to one user on PostgreSQL", (url) => {
  const openStore = postgresStores(url);

  it("one store: all succeed and all their changes land", async () => {
    await expectConcurrentWritesSucceed([await createTestApp({ store: await openStore() })]);
  });

  it("two store instances on one schema (two processes): all succeed and all their changes land", async () => {
    const store = await openStore();
    // Each app has its own router, so its own lock: only the database orders the two.
    const apps = [await createTestApp({ store }), await createTestApp({ store: await openStore() })];

    await expectConcurrentWritesSucceed(apps, "racer2");
  });
});
