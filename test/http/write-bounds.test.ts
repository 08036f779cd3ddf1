/**
 * Issue 12's request shapes (architecture §4b: one tenant never stops another) through the router, on
 * the default write limits: each is answered correctly or refused with the SCIM error naming the
 * bound and the value, writing nothing; an accepted one large enough to matter lets a cheap GET of
 * another organization, started after it, be answered before it finishes.
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import type { ResourceStore } from "../../src/store/resource-store.js";
import { memoryStore } from "../../src/store/memory/memory-store.js";
import { sqlStore } from "../../src/store/sql/sql-store.js";
import { createScimRouter } from "../../src/http/create-scim-router.js";
import type { ScimRouterOptions } from "../../src/http/scim-router-options.js";
import { createTokenStore } from "../../src/auth/hashed-token-store.js";
import { ENTERPRISE_SCHEMA, GROUP_SCHEMA, PATCH_SCHEMA, USER_SCHEMA, createTestApp, expectScimError, type TestApp } from "./harness.js";
import { BULK_REQUEST_SCHEMA, createUser, withoutOrigin, type Json } from "./provisioning-helpers.js";

/** The harness's store for this project, with a hook told of each call the router makes to it. */
async function observedStore(onCall: (method: string, request: Json) => void): Promise<ResourceStore> {
  const store = process.env["SCIMKIT_HTTP_STORE"] === "sqlite" ? await sqlStore({ sqlite: ":memory:" }) : memoryStore();
  return new Proxy(store, {
    get(target, key, receiver) {
      const member: unknown = Reflect.get(target, key, receiver);
      if (typeof member !== "function") return member;
      return (...args: unknown[]) => {
        onCall(String(key), (args[0] ?? {}) as Json);
        return (member as (...parameters: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** What the race needs: the app on a real socket, and a signal when the big request reaches the store. */
interface Race {
  readonly t: TestApp;
  /** Resolves once a store call for organization acme matches, after `arm()`. */
  readonly reached: Promise<void>;
  arm(): void;
  /** Sends a request to the listening app over a kept-alive connection; the body as JSON text. */
  send(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: Json }>;
  close(): Promise<void>;
}

/**
 * The harness's app, listening on one socket with connections kept alive, so that a cheap request
 * sent mid-race needs a few turns of the event loop, not the new server supertest starts each time.
 */
async function raceApp(when: (method: string, request: Json) => boolean, options: Partial<ScimRouterOptions> = {}): Promise<Race> {
  let armed = false;
  let signal: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => {
    signal = resolve;
  });
  const store = await observedStore((method, request) => {
    if (armed && request["orgId"] === "acme" && when(method, request)) signal();
  });
  const t = await createTestApp({ store, ...options });
  const server = createServer(t.app).listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const send = async (method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text === "" ? {} : JSON.parse(text)) as Json };
  };
  // Two connections open and idle: one for the big request, one for the cheap GET.
  await Promise.all([
    send("GET", `${t.base("globex")}/Users?count=1`, t.token.globex),
    send("GET", `${t.base("globex")}/Users?count=1`, t.token.globex),
  ]);
  return {
    t,
    reached,
    arm: () => void (armed = true),
    send,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/**
 * Sends the big request, and once it has reached the store a cheap GET of organization globex;
 * returns the order in which the two were answered, and the big response.
 */
async function raceCheapGet(
  race: Race,
  method: string,
  path: string,
  body: unknown,
): Promise<{ order: string[]; response: { status: number; body: Json } }> {
  const order: string[] = [];
  // Serialized before the race: the test's own work is not the server's.
  const text = JSON.stringify(body);
  race.arm();
  const big = race.send(method, `${race.t.base()}${path}`, race.t.token.acme, text).then((response) => {
    order.push("big");
    return response;
  });
  await race.reached;
  const cheap = race.send("GET", `${race.t.base("globex")}/Users?count=1`, race.t.token.globex).then((response) => {
    expect(response.status).toBe(200);
    order.push("cheap GET");
  });
  const [response] = await Promise.all([big, cheap]);
  return { order, response };
}

function emails(count: number, prefix = "e"): Json[] {
  return Array.from({ length: count }, (_, index) => ({
    value: `${prefix}${index}@x.io`,
    type: "work",
    ...(index === 0 ? { primary: true } : {}),
  }));
}

function userWith(userName: string, values: Json[]): Json {
  return { schemas: [USER_SCHEMA], userName, emails: values };
}

async function userNamed(t: TestApp, userName: string): Promise<Json | undefined> {
  const response = await t.get(`/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`).expect(200);
  return ((response.body as Json)["Resources"] as Json[])[0];
}

describe("a user with 10,000 e-mails (over maxValues)", () => {
  it("is refused with 400 invalidValue naming the attribute, the count and the limit, and nothing is stored", async () => {
    const t = await createTestApp();
    const refused = expectScimError(await t.post("/Users", userWith("big", emails(10_000))), 400, "invalidValue");
    expect(refused.detail).toBe("emails: holds 10000 values; the limit is 1000 (maxValues)");
    expect(await userNamed(t, "big")).toBeUndefined();
  });

  it("is refused on PUT too, leaving the user as it was", async () => {
    const t = await createTestApp();
    const created = await createUser(t, "bjensen");
    expectScimError(await t.put(`/Users/${created["id"]}`, userWith("bjensen", emails(1_001))), 400, "invalidValue");
    expect(withoutOrigin((await t.get(`/Users/${created["id"]}`).expect(200)).body)).toEqual(withoutOrigin(created));
  });
});

describe("12,000 operations on a user at the 1,000 e-mail bound", () => {
  it("are refused with 413 naming maxPatchOperations and the count, and the user is unchanged", async () => {
    const t = await createTestApp();
    const created = (await t.post("/Users", userWith("big", emails(1_000))).expect(201)).body as Json;
    const operations = Array.from({ length: 12_000 }, (_, index) => ({
      op: "replace",
      path: `emails[value eq "e${index % 1_000}@x.io"].type`,
      value: "home",
    }));
    const refused = expectScimError(await t.patch(`/Users/${created["id"]}`, { schemas: [PATCH_SCHEMA], Operations: operations }), 413);
    expect(refused.detail).toBe("The PATCH request has 12000 operations; the limit is 10000 (maxPatchOperations).");
    expect(withoutOrigin((await t.get(`/Users/${created["id"]}`).expect(200)).body)).toEqual(withoutOrigin(created));
  });
});

describe("10,000 value-filter operations on a user of 1,000 e-mails (both at their bounds)", () => {
  it("are applied, each e-mail taking the type of the last operation naming it, and another organization's GET started after is answered first", async () => {
    const race = await raceApp((method) => method === "get");
    const created = (await race.t.post("/Users", userWith("big", emails(1_000))).expect(201)).body as Json;
    const operations = Array.from({ length: 10_000 }, (_, index) => ({
      op: "replace",
      path: `emails[value eq "e${index % 1_000}@x.io"].type`,
      value: `t${index}`,
    }));
    const { order, response } = await raceCheapGet(race, "PATCH", `/Users/${created["id"]}`, {
      schemas: [PATCH_SCHEMA],
      Operations: operations,
    });
    await race.close();
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(order).toEqual(["cheap GET", "big"]);
    const patched = (response.body as Json)["emails"] as Json[];
    expect(patched.map((email) => email["type"])).toEqual(Array.from({ length: 1_000 }, (_, index) => `t${9_000 + index}`));
    expect(patched.map((email) => email["value"])).toEqual(emails(1_000).map((email) => email["value"]));
    expect(patched.filter((email) => email["primary"] === true)).toEqual([{ value: "e0@x.io", type: "t9000", primary: true }]);
  });
});

describe("the issue's own shape, with writeLimits raised to admit it", () => {
  it("applies 12,000 operations to a user of 10,000 e-mails, and another organization's GET started after is answered first", async () => {
    const race = await raceApp((method) => method === "get", {
      writeLimits: { maxValues: 10_000, maxPatchOperations: 12_000 },
      bodyLimit: "2mb",
    });
    const created = (await race.t.post("/Users", userWith("big", emails(10_000))).expect(201)).body as Json;
    const operations = Array.from({ length: 12_000 }, (_, index) => ({
      op: "replace",
      path: `emails[value eq "e${index % 10_000}@x.io"].type`,
      value: `t${index}`,
    }));
    const { order, response } = await raceCheapGet(race, "PATCH", `/Users/${created["id"]}`, {
      schemas: [PATCH_SCHEMA],
      Operations: operations,
    });
    await race.close();
    expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(200);
    expect(order).toEqual(["cheap GET", "big"]);
    const types = ((response.body as Json)["emails"] as Json[]).map((email) => email["type"]);
    // e0…e1999 were named twice (by operations i and 10,000 + i), the rest once.
    expect(types).toEqual(Array.from({ length: 10_000 }, (_, index) => `t${index < 2_000 ? 10_000 + index : index}`));
  });
});

describe("add emails with 9,999 values, with maxValues raised to admit it", () => {
  it("adds each value not yet present once, found by hash: duplicates in the request and of the stored value are not added", async () => {
    const t = await createTestApp({ writeLimits: { maxValues: 10_000 } });
    const created = (await t.post("/Users", userWith("bjensen", [{ value: "a0@x.io", type: "work", primary: true }])).expect(201))
      .body as Json;
    // a0…a7998, then a0…a999 again: 7,999 new values in 9,999.
    const values = [...emails(7_999, "a"), ...emails(2_000, "a")].map(({ primary: _primary, type: _type, ...email }) => email);
    const added = await t.patch(`/Users/${created["id"]}`, {
      schemas: [PATCH_SCHEMA],
      Operations: [{ op: "add", path: "emails", value: values }],
    });
    expect(added.status, JSON.stringify(added.body).slice(0, 300)).toBe(200);
    const stored = (added.body as Json)["emails"] as Json[];
    expect(stored).toHaveLength(7_999);
    expect(stored[0]).toEqual({ value: "a0@x.io", type: "work", primary: true });
    expect(new Set(stored.map((email) => email["value"])).size).toBe(7_999);
  });
});

describe("add emails with 9,999 values (over maxValues)", () => {
  it("is refused with 400 invalidValue naming the count and the limit, and the user is unchanged", async () => {
    const t = await createTestApp();
    const created = await createUser(t, "bjensen");
    const values = emails(9_999, "a").map(({ primary: _primary, ...email }) => email);
    const refused = expectScimError(
      await t.patch(`/Users/${created["id"]}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path: "emails", value: values }] }),
      400,
      "invalidValue",
    );
    expect(refused.detail).toBe("Operations[0]: emails: carries 9999 values; the limit is 1000 (maxValues)");
    expect(withoutOrigin((await t.get(`/Users/${created["id"]}`).expect(200)).body)).toEqual(withoutOrigin(created));
  });

  it("up to the bound is added once each, values already present are not added twice, and one value more is refused", async () => {
    const t = await createTestApp();
    const created = await createUser(t, "bjensen");
    const values = [...emails(999, "a"), ...emails(999, "a")].map(({ primary: _primary, ...email }) => email).slice(0, 1_000);
    const added = await t.patch(`/Users/${created["id"]}`, {
      schemas: [PATCH_SCHEMA],
      Operations: [{ op: "add", path: "emails", value: values }],
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(((added.body as Json)["emails"] as Json[]).length).toBe(1_000);
    const over = expectScimError(
      await t.patch(`/Users/${created["id"]}`, {
        schemas: [PATCH_SCHEMA],
        Operations: [{ op: "add", path: "emails", value: [{ value: "one-more@x.io" }] }],
      }),
      400,
      "invalidValue",
    );
    expect(over.detail).toBe("Operations[0]: emails: would hold 1001 values; the limit is 1000 (maxValues)");
    expect(((await t.get(`/Users/${created["id"]}`).expect(200)).body as Json)["emails"]).toHaveLength(1_000);
  });
});

describe("a /Bulk of 1,000 POSTs whose bulkId references chain in reverse order", () => {
  it("creates every user with its reference resolved, and another organization's GET started after is answered first", async () => {
    const race = await raceApp((method) => method === "create");
    const { t } = race;
    const count = 1_000;
    const operations = Array.from({ length: count }, (_, index) => ({
      method: "POST",
      path: "/Users",
      bulkId: `b${index}`,
      data: {
        schemas: [USER_SCHEMA],
        userName: `chain${index}`,
        ...(index + 1 < count ? { [ENTERPRISE_SCHEMA]: { manager: { value: `bulkId:b${index + 1}` } } } : {}),
      },
    }));
    const { order, response } = await raceCheapGet(race, "POST", "/Bulk", { schemas: [BULK_REQUEST_SCHEMA], Operations: operations });
    await race.close();
    expect(response.status).toBe(200);
    expect(order).toEqual(["cheap GET", "big"]);
    const results = (response.body as Json)["Operations"] as Json[];
    expect(results.map((result) => result["status"])).toEqual(Array.from({ length: count }, () => "201"));
    const idOf = (index: number): string => String(results[index]!["location"]).split("/").pop()!;
    for (const index of [0, 1, 499, 998]) {
      const user = (await t.get(`/Users/${idOf(index)}`).expect(200)).body as Json;
      expect(user[ENTERPRISE_SCHEMA]["manager"]["value"]).toBe(idOf(index + 1));
    }
    expect(((await t.get(`/Users/${idOf(count - 1)}`).expect(200)).body as Json)[ENTERPRISE_SCHEMA]).toBeUndefined();
  });
});

describe("maxMembers: group members named by one request", () => {
  const members = (count: number) => Array.from({ length: count }, (_, index) => ({ value: `member-${index}` }));

  it("accepts exactly the limit on POST, PUT and PATCH, and refuses one more with 413 naming it, writing nothing", async () => {
    const t = await createTestApp({ writeLimits: { maxMembers: 3 } });
    const group = { schemas: [GROUP_SCHEMA], displayName: "Guides" };
    const created = (await t.post("/Groups", { ...group, members: members(3) }).expect(201)).body as Json;
    expect(expectScimError(await t.post("/Groups", { ...group, displayName: "Other", members: members(4) }), 413).detail).toBe(
      "The request names 4 members; the limit is 3 (maxMembers).",
    );
    await t.put(`/Groups/${created["id"]}`, { ...group, members: members(3) }).expect(200);
    expectScimError(await t.put(`/Groups/${created["id"]}`, { ...group, members: members(4) }), 413);
    const patch = (count: number) => ({ schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path: "members", value: members(count) }] });
    expect([200, 204]).toContain((await t.patch(`/Groups/${created["id"]}`, patch(3))).status);
    const before = withoutOrigin((await t.get(`/Groups/${created["id"]}`).expect(200)).body as Json);
    expect(expectScimError(await t.patch(`/Groups/${created["id"]}`, patch(4)), 413).detail).toBe(
      "Operations[0]: the request names 4 members; the limit is 3 (maxMembers).",
    );
    expect(withoutOrigin((await t.get(`/Groups/${created["id"]}`).expect(200)).body as Json)).toEqual(before);
    const others = await t.get(`/Groups?filter=${encodeURIComponent('displayName eq "Other"')}`).expect(200);
    expect((others.body as Json)["totalResults"]).toBe(0);
  });
});

describe("writeLimits", () => {
  it("apply as configured: one operation over a lowered maxPatchOperations is refused", async () => {
    const t = await createTestApp({ writeLimits: { maxPatchOperations: 2, maxValues: 2 } });
    const created = await createUser(t, "bjensen");
    const nick = (value: string) => ({ op: "replace", path: "nickName", value });
    await t.patch(`/Users/${created["id"]}`, { schemas: [PATCH_SCHEMA], Operations: [nick("a"), nick("b")] }).expect(200);
    expect(
      expectScimError(
        await t.patch(`/Users/${created["id"]}`, { schemas: [PATCH_SCHEMA], Operations: [nick("a"), nick("b"), nick("c")] }),
        413,
      ).detail,
    ).toMatch(/the limit is 2 \(maxPatchOperations\)/);
    expectScimError(await t.post("/Users", userWith("three", emails(3))), 400, "invalidValue");
  });

  it("must be positive integers when the router is built", () => {
    const auth = createTokenStore();
    expect(() => createScimRouter({ store: memoryStore(), auth, writeLimits: { maxValues: 0 } })).toThrow(
      /writeLimits.maxValues must be a positive integer/,
    );
    expect(() => createScimRouter({ store: memoryStore(), auth, writeLimits: { maxPatchOperations: 1.5 } })).toThrow(
      /writeLimits.maxPatchOperations must be a positive integer/,
    );
    expect(() => createScimRouter({ store: memoryStore(), auth, writeLimits: { maxMembers: -1 } })).toThrow(
      /writeLimits.maxMembers must be a positive integer/,
    );
  });
});

/**
 * A bound is checked before the work it bounds (issue 27, point 11): a request over a write limit
 * is refused on its shape, before the resource is read, locked or any value normalized. The store
 * is told of every call the router makes, so "no work" is "no call", not a duration.
 */
describe("a write over a limit is refused before any work", () => {
  async function watched(options: Partial<ScimRouterOptions> = {}): Promise<{ t: TestApp; calls: string[]; arm(): void }> {
    let armed = false;
    const calls: string[] = [];
    const store = await observedStore((method, request) => {
      if (armed) calls.push(`${method} ${String(request["orgId"])}`);
    });
    const t = await createTestApp({ store, ...options });
    return { t, calls, arm: () => void (armed = true) };
  }

  it("refuses a PATCH adding 9,999 e-mails with 400 naming maxValues, without reading the user", async () => {
    const { t, calls, arm } = await watched();
    const created = await createUser(t, "bjensen");
    arm();
    const body = { schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path: "emails", value: emails(9_999, "a") }] };
    const refused = expectScimError(await t.patch(`/Users/${created["id"]}`, body), 400, "invalidValue");
    expect(refused.detail).toBe("Operations[0]: emails: carries 9999 values; the limit is 1000 (maxValues)");
    expect(calls).toEqual([]);
  });

  it("refuses 2,000 operations that each add one e-mail, at the one that carries the 1,001st, without reading the user", async () => {
    const { t, calls, arm } = await watched();
    const created = await createUser(t, "bjensen");
    arm();
    const operations = emails(2_000, "a").map((email) => ({ op: "add", path: "emails", value: [email] }));
    const refused = expectScimError(await t.patch(`/Users/${created["id"]}`, { schemas: [PATCH_SCHEMA], Operations: operations }), 400);
    expect(refused.detail).toBe(
      "Operations[1000]: emails: carries, with the operations before it, 1001 values; the limit is 1000 (maxValues)",
    );
    expect(calls).toEqual([]);
    // A replace starts the count again: 900 then 900 is within the limit.
    const replaced = [
      { op: "add", path: "emails", value: emails(900, "b") },
      { op: "replace", path: "emails", value: emails(900, "c") },
    ];
    await t.patch(`/Users/${created["id"]}`, { schemas: [PATCH_SCHEMA], Operations: replaced }).expect(200);
  });

  it("refuses a path-less PATCH carrying 1,001 phone numbers, without reading the user", async () => {
    const { t, calls, arm } = await watched();
    const created = await createUser(t, "bjensen");
    arm();
    const phoneNumbers = Array.from({ length: 1_001 }, (_, index) => ({ value: `+1555${index}`, type: "work" }));
    const body = { schemas: [PATCH_SCHEMA], Operations: [{ op: "add", value: { phoneNumbers } }] };
    expectScimError(await t.patch(`/Users/${created["id"]}`, body), 400, "invalidValue");
    expect(calls).toEqual([]);
  });

  it("refuses a PATCH naming 20,001 members with 413 naming maxMembers, without reading the group", async () => {
    const { t, calls, arm } = await watched({ bodyLimit: "4mb" });
    const group = (await t.post("/Groups", { schemas: [GROUP_SCHEMA], displayName: "all" }).expect(201)).body as Json;
    arm();
    const members = Array.from({ length: 20_001 }, (_, index) => ({ value: `m${index}` }));
    const body = { schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path: "members", value: members }] };
    const refused = expectScimError(await t.patch(`/Groups/${group["id"]}`, body), 413);
    expect(refused.detail).toBe("Operations[0]: the request names 20001 members; the limit is 20000 (maxMembers).");
    expect(calls).toEqual([]);
  });

  it("refuses the same PATCH inside /Bulk before reading the user, and runs the next operation", async () => {
    const { t, calls, arm } = await watched({ bodyLimit: "4mb", bulk: { maxPayloadSize: 4_000_000 } });
    const created = await createUser(t, "bjensen");
    arm();
    const response = await t
      .post("/Bulk", {
        schemas: [BULK_REQUEST_SCHEMA],
        Operations: [
          {
            method: "PATCH",
            path: `/Users/${created["id"]}`,
            data: { schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path: "emails", value: emails(9_999, "a") }] },
          },
          { method: "POST", path: "/Users", bulkId: "next", data: userWith("next", emails(1)) },
        ],
      })
      .expect(200);
    const statuses = ((response.body as Json)["Operations"] as Json[]).map((operation) => operation["status"]);
    expect(statuses).toEqual(["400", "201"]);
    expect(calls.filter((call) => call.startsWith("get ") || call.startsWith("update "))).toEqual([]);
  });
});
