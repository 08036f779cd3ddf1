/**
 * A group PATCH that only adds or removes members (issue 29) is written as a membership delta
 * without reading or locking the group (`patch-membership.ts`): the same status, body, ETag,
 * events and audit entry as the read-modify-write it bypasses, which a matching `If-Match` still
 * takes; concurrent removals all land; anything else, a stale `If-Match` and a malformed member
 * operation answer as before. On this project's store (memory, or SQLite in `express5-sqlite`) and
 * on PostgreSQL.
 */
import type request from "supertest";
import { expect, it } from "vitest";
import type { AuditEntry } from "../../src/audit/audit-sink.js";
import type { ScimEvent } from "../../src/http/lifecycle-events/scim-event.js";
import type { ScimRouterOptions } from "../../src/http/scim-router-options.js";
import type { ResourceStore } from "../../src/store/resource-store.js";
import { createTestApp, defaultStore, describeOnEveryStore, expectScimError, type StoreFor, type TestApp } from "./harness.js";
import { createGroup, createUser, memberIdsOf, patchBody, withoutOrigin, type Json } from "./provisioning-helpers.js";

const UNKNOWN_ID = "0190b3a0-0000-7000-8000-00000000dead";

/** The app on `storeFor`'s store, counting the store's reads of one resource. */
interface CountedApp {
  readonly t: TestApp;
  /** `store.get` calls so far: the read-modify-write reads the group, the membership delta does not. */
  readonly reads: () => number;
  readonly audit: AuditEntry[];
}

async function countedApp(storeFor: StoreFor, options: Partial<ScimRouterOptions> = {}): Promise<CountedApp> {
  const inner: ResourceStore = (await storeFor()) ?? (await defaultStore());
  let reads = 0;
  const store: ResourceStore = {
    ...inner,
    get: (read) => {
      reads += 1;
      return inner.get(read);
    },
  };
  const audit: AuditEntry[] = [];
  const onAudit = {
    async record(entry: AuditEntry) {
      audit.push(entry);
    },
  };
  return { t: await createTestApp({ store, onAudit, ...options }), reads: () => reads, audit };
}

async function userIds(t: TestApp, count: number, prefix = "user"): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) ids.push(String((await createUser(t, `${prefix}${index}`))["id"]));
  return ids;
}

/** What one PATCH did, with what differs between two groups (id, name, times, versions) taken out. */
interface Observed {
  readonly status: number;
  readonly body: unknown;
  /** Whether the answer's ETag is the group's version before the PATCH. */
  readonly versionKept: boolean;
  /** Whether the answer's ETag is the group's version after it. */
  readonly etagCurrent: boolean;
  /** Whether the group's version after the PATCH is the one before it. */
  readonly storedVersionKept: boolean;
  readonly memberIds: readonly string[];
  readonly events: readonly unknown[];
  readonly audit: unknown;
  /** Reads of the group the PATCH made. */
  readonly reads: number;
}

function comparable(value: unknown, group: Json): unknown {
  if (value === null || typeof value !== "object") return value;
  const { id, displayName, meta, ...rest } = value as Json;
  return withoutOrigin({
    ...rest,
    ...(id === undefined ? {} : { id: id === group["id"] ? "<group>" : id }),
    ...(displayName === undefined ? {} : { displayName: "<name>" }),
    ...(meta === undefined
      ? {}
      : { meta: { ...meta, created: "<time>", lastModified: "<time>", version: "<version>", location: "<location>" } }),
  });
}

function comparableEvent(event: ScimEvent, group: Json): unknown {
  const { jti: _jti, sequence: _sequence, id, resource, memberIds, ...rest } = event;
  return {
    ...rest,
    id: id === group["id"] ? "<group>" : id,
    resource: comparable(resource, group),
    ...(memberIds ? { memberIds: [...memberIds].sort() } : {}),
  };
}

async function observe(app: CountedApp, group: Json, send: (path: string) => request.Test, query = ""): Promise<Observed> {
  const { t } = app;
  const id = String(group["id"]);
  const before = String((group["meta"] as Json)["version"]);
  t.events.length = 0;
  app.audit.length = 0;
  const reads = app.reads();
  const response = await send(`/Groups/${id}${query}`);
  const made = app.reads() - reads;
  const events = t.events.map((event) => comparableEvent(event, group));
  const audit = app.audit.map(({ at: _at, resourceId, ...entry }) => ({
    ...entry,
    resourceId: resourceId === id ? "<group>" : resourceId,
  }));
  const read = await t.get(`/Groups/${id}`);
  expect(read.status).toBe(200);
  return {
    status: response.status,
    body: response.status === 204 ? response.text : comparable(response.body, group),
    versionKept: response.headers["etag"] === before,
    etagCurrent: response.headers["etag"] === (read.body as Json)["meta"]["version"],
    storedVersionKept: (read.body as Json)["meta"]["version"] === before,
    memberIds: memberIdsOf(read.body as Json),
    events,
    audit,
    reads: made,
  };
}

/**
 * The PATCH `operations(ids)` on two like groups: without `If-Match` (the membership delta) and
 * with the group's current one (the read-modify-write, as every group PATCH was written before).
 */
async function bothWays(
  app: CountedApp,
  operations: (ids: readonly string[]) => Record<string, unknown>[],
  query = "",
): Promise<{ readonly delta: Observed; readonly general: Observed; readonly ids: readonly string[] }> {
  const ids = await userIds(app.t, 3, `u${Math.random().toString(36).slice(2, 8)}-`);
  const members = ids.slice(0, 2);
  const fast = await createGroup(app.t, `delta ${ids[0]}`, members);
  const general = await createGroup(app.t, `general ${ids[0]}`, members);
  const body = patchBody(...operations(ids));
  const delta = await observe(app, fast, (path) => app.t.patch(path, body), query);
  const version = String((general["meta"] as Json)["version"]);
  const viaRead = await observe(app, general, (path) => app.t.patch(path, body).set("If-Match", version), query);
  return { delta, general: viaRead, ids };
}

function expectSameAnswer({ delta, general }: { readonly delta: Observed; readonly general: Observed }): void {
  const { reads: deltaReads, ...deltaAnswer } = delta;
  const { reads: generalReads, ...generalAnswer } = general;
  expect(deltaAnswer).toEqual(generalAnswer);
  expect(deltaReads).toBe(0);
  expect(generalReads).toBeGreaterThan(0);
}

function checks(storeFor: StoreFor): void {
  const shapes: readonly [string, (ids: readonly string[]) => Record<string, unknown>[]][] = [
    ["add on members", (ids) => [{ op: "add", path: "members", value: [{ value: ids[2] }] }]],
    [
      "add on Members with an unknown id (members.ignored)",
      (ids) => [{ op: "Add", path: "Members", value: [{ value: ids[2] }, { value: UNKNOWN_ID }] }],
    ],
    ["remove by filter", (ids) => [{ op: "remove", path: `members[value eq "${ids[0]}"]` }]],
    ["remove by a value array", (ids) => [{ op: "remove", path: "members", value: [{ value: ids[0] }, { value: ids[1] }] }]],
    ["remove of a non-member", (ids) => [{ op: "remove", path: `members[value eq "${ids[2]}"]` }]],
    [
      "several member operations",
      (ids) => [
        { op: "add", path: "members", value: [{ value: ids[2] }] },
        { op: "remove", path: `members[value eq "${ids[0]}"]` },
      ],
    ],
  ];

  for (const [name, operations] of shapes) {
    it(`${name}: the read-modify-write's 204, ETag, members, events and audit entry, without reading the group`, async () => {
      const app = await countedApp(storeFor);
      const answers = await bothWays(app, operations);
      expectSameAnswer(answers);
      expect(answers.delta.status).toBe(204);
      expect(answers.delta.audit).toEqual([expect.objectContaining({ operation: "patch", outcome: "success", status: 200 })]);
    });

    it(`${name}: the read-modify-write's 200 body with the members asked for`, async () => {
      const app = await countedApp(storeFor);
      const answers = await bothWays(app, operations, "?attributes=members,displayName");
      expectSameAnswer(answers);
      expect(answers.delta.status).toBe(200);
    });
  }

  it("removing a non-member keeps the version and reports no event, as before", async () => {
    const app = await countedApp(storeFor);
    const { delta } = await bothWays(app, (ids) => [{ op: "remove", path: `members[value eq "${ids[2]}"]` }]);
    expect(delta.versionKept).toBe(true);
    expect(delta.storedVersionKept).toBe(true);
    expect(delta.events).toEqual([]);
  });

  it("the events name what the store did: added, removed, ignored", async () => {
    const app = await countedApp(storeFor);
    const { delta, ids } = await bothWays(app, (given) => [
      { op: "remove", path: `members[value eq "${given[0]}"]` },
      { op: "add", path: "members", value: [{ value: given[2] }, { value: UNKNOWN_ID }] },
    ]);
    expect(delta.events).toEqual([
      expect.objectContaining({ type: "group.members.added", memberIds: [ids[2]], method: "PATCH" }),
      expect.objectContaining({ type: "group.members.removed", memberIds: [ids[0]], method: "PATCH" }),
      expect.objectContaining({ type: "group.members.ignored", memberIds: [UNKNOWN_ID], method: "PATCH" }),
    ]);
    expect(delta.memberIds).toEqual([ids[1], ids[2]].sort());
  });

  it('with unknownMembers: "reject", an unknown id is the same 400 and nothing is written', async () => {
    const app = await countedApp(storeFor, { unknownMembers: "reject" });
    const answers = await bothWays(app, (ids) => [{ op: "add", path: "members", value: [{ value: ids[2] }, { value: UNKNOWN_ID }] }]);
    expectSameAnswer(answers);
    expect(answers.delta.status).toBe(400);
    expect(answers.delta.storedVersionKept).toBe(true);
    expect(answers.delta.memberIds).toEqual([...answers.ids.slice(0, 2)].sort());
    expect(answers.delta.events).toEqual([]);
  });

  it("a malformed member operation is the same 400 with the same detail, after the 404 of an unknown group", async () => {
    const { t } = await countedApp(storeFor);
    const [alice] = await userIds(t, 1);
    const group = await createGroup(t, "Malformed", [alice!]);
    const id = String(group["id"]);
    const version = String((group["meta"] as Json)["version"]);
    const bodies = [
      patchBody({ op: "add", path: "members", value: [{ display: "no id" }] }),
      patchBody({ op: "add", path: "members", value: [{ value: 7 }] }),
      patchBody({ op: "remove", path: 'members[value eq "a" and value eq "b"]' }),
      patchBody({ op: "remove", path: "members[value eq" }),
    ];
    for (const body of bodies) {
      const withoutIfMatch = await t.patch(`/Groups/${id}`, body);
      const withIfMatch = await t.patch(`/Groups/${id}`, body).set("If-Match", version);
      expect(withoutIfMatch.status, JSON.stringify(withoutIfMatch.body)).toBe(400);
      expect(withoutIfMatch.body).toEqual(withIfMatch.body);
      // The group is read before the operations are, as always: an unknown one is 404.
      expectScimError(await t.patch(`/Groups/${UNKNOWN_ID}`, body), 404);
    }
    expect(memberIdsOf((await t.get(`/Groups/${id}`)).body as Json)).toEqual([alice]);
    expectScimError(await t.patch(`/Groups/${UNKNOWN_ID}`, patchBody({ op: "remove", path: `members[value eq "${alice!}"]` })), 404);
    expectScimError(await t.patch(`/Groups/${UNKNOWN_ID}`, patchBody({ op: "add", path: "members", value: [{ value: alice }] })), 404);
  });

  it("50 concurrent removals of different members from one group all land, beside a concurrent rename", async () => {
    const { t, reads } = await countedApp(storeFor);
    const ids = await userIds(t, 50);
    const group = await createGroup(t, "Everyone", ids);
    const id = String(group["id"]);
    t.events.length = 0;
    const before = reads();
    const responses = await Promise.all([
      ...ids.map((member) => t.patch(`/Groups/${id}`, patchBody({ op: "remove", path: `members[value eq "${member}"]` }))),
      t.patch(`/Groups/${id}`, patchBody({ op: "replace", path: "displayName", value: "No one" })),
    ]);
    expect(
      responses.map((response) => response.status),
      JSON.stringify(responses.map((response) => response.body)),
    ).toEqual(responses.map(() => 204));
    // Only the rename read the group (again, when a removal wrote between its read and its write).
    expect(reads() - before).toBeGreaterThan(0);
    const read = (await t.get(`/Groups/${id}`)).body as Json;
    expect(memberIdsOf(read)).toEqual([]);
    expect(read["displayName"]).toBe("No one");
    const removed = t.events.filter((event) => event.type === "group.members.removed").flatMap((event) => event.memberIds ?? []);
    expect(removed.sort()).toEqual([...ids].sort());
    expect(t.events.filter((event) => event.type === "group.updated")).toHaveLength(1);
  });

  it("a PATCH of members and displayName is a read-modify-write, and both changes land", async () => {
    const app = await countedApp(storeFor);
    const { t } = app;
    const [alice, bob] = await userIds(t, 2);
    const group = await createGroup(t, "Mixed", [alice!]);
    const id = String(group["id"]);
    t.events.length = 0;
    const before = app.reads();
    const response = await t.patch(
      `/Groups/${id}`,
      patchBody({ op: "add", path: "members", value: [{ value: bob }] }, { op: "replace", path: "displayName", value: "Mixed up" }),
    );
    expect(response.status).toBe(204);
    expect(app.reads() - before).toBeGreaterThan(0);
    const read = (await t.get(`/Groups/${id}`)).body as Json;
    expect(read["displayName"]).toBe("Mixed up");
    expect(memberIdsOf(read)).toEqual([alice, bob].sort());
    expect(t.events.map((event) => event.type)).toEqual(["group.updated", "group.members.added"]);
  });

  it("an If-Match PATCH of members reads the group: a stale ETag is 412 and nothing is written", async () => {
    const app = await countedApp(storeFor);
    const { t } = app;
    const [alice, bob] = await userIds(t, 2);
    const group = await createGroup(t, "Guarded", [alice!]);
    const id = String(group["id"]);
    const stale = String((group["meta"] as Json)["version"]);
    const added = await t.patch(`/Groups/${id}`, patchBody({ op: "add", path: "members", value: [{ value: bob }] }));
    expect(added.status).toBe(204);
    expect(added.headers["etag"]).not.toBe(stale);
    const before = app.reads();
    expectScimError(
      await t.patch(`/Groups/${id}`, patchBody({ op: "remove", path: `members[value eq "${alice!}"]` })).set("If-Match", stale),
      412,
    );
    expect(app.reads() - before).toBeGreaterThan(0);
    const read = (await t.get(`/Groups/${id}`)).body as Json;
    expect(memberIdsOf(read)).toEqual([alice, bob].sort());
    expect(read["meta"]["version"]).toBe(added.headers["etag"]);
  });
}

describeOnEveryStore("a PATCH of members alone", checks);
