/**
 * The fair share between organizations (issue 12, architecture §4b): an organization's expensive
 * requests (scans, sorts, deep pages, /Bulk) wait for its own earlier ones, never for another
 * organization's, and cheap lookups never wait at all. A store wrapper holds expensive lists open
 * until the test lets them finish, so every assertion is about order, never about time.
 */
import { once } from "node:events";
import { createServer, request as httpRequest, type ClientRequest } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type request from "supertest";
import { describe, expect, it } from "vitest";
import { expensiveWorkClassifier } from "../../src/http/fair-share/expensive-work-classifier.js";
import type { ExpensiveWorkGate } from "../../src/http/fair-share/expensive-work-gate.js";
import { fairShareGate } from "../../src/http/fair-share/fair-share-gate.js";
import { memoryStore } from "../../src/store/memory/memory-store.js";
import { sqlStore } from "../../src/store/sql/sql-store.js";
import type { ListRequest, ResourceStore } from "../../src/store/resource-store.js";
import { createTestApp, defaultStore, expectScimError, PATCH_SCHEMA, userBody, type TestApp } from "./harness.js";

const BULK_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:BulkRequest";

/** Waits, a few milliseconds at a time, until `condition` holds; fails the test if it never does. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 2000; attempt++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`never happened: ${what}`);
}

/** The `title eq "<label>"` value of a list request, which these tests use to name their lists. */
function labelOf(request: ListRequest): string | undefined {
  const filter = request.filter;
  return filter?.kind === "compare" && filter.path.attribute.name === "title" && typeof filter.value === "string"
    ? filter.value
    : undefined;
}

interface HoldingStore {
  readonly store: ResourceStore;
  /**
   * `start <label>` and `end <label>` of every labelled list, and `write <title>` and
   * `written <title>` of every update that sets a `title`, in the order they happened.
   */
  readonly log: string[];
  /** Lets the held list or write `label` finish. */
  release(label: string): void;
}

/** The `title` an update writes, if any. */
function titleOf(attributes: unknown): string | undefined {
  const title = (attributes as { title?: unknown } | undefined)?.title;
  return typeof title === "string" ? title : undefined;
}

/**
 * `base`, except that a list filtered on `title eq "<label>"` (a scan: expensive) waits in the
 * store until released, one labelled `boom` fails, and an update that sets `title` to
 * `hold <label>` waits until `label` is released.
 */
function holdingStore(base: ResourceStore): HoldingStore {
  const log: string[] = [];
  const gates = new Map<string, () => void>();
  const store: ResourceStore = {
    ...(base.capabilities ? { capabilities: base.capabilities } : {}),
    create: (request) => base.create(request),
    get: (request) => base.get(request),
    async update(request) {
      const title = titleOf(request.attributes);
      if (title === undefined) return base.update(request);
      log.push(`write ${title}`);
      if (title.startsWith("hold ")) await new Promise<void>((resolve) => gates.set(title.slice(5), resolve));
      const result = await base.update(request);
      log.push(`written ${title}`);
      return result;
    },
    delete: (request) => base.delete(request),
    async list(request) {
      const label = labelOf(request);
      if (label === undefined) return base.list(request);
      log.push(`start ${label}`);
      if (label === "boom") throw new Error("the store failed");
      await new Promise<void>((resolve) => gates.set(label, resolve));
      const result = await base.list(request);
      log.push(`end ${label}`);
      return result;
    },
  };
  return {
    store,
    log,
    release(label) {
      const open = gates.get(label);
      if (!open) throw new Error(`list ${label} is not held`);
      open();
    },
  };
}

interface CountingGate {
  readonly gate: ExpensiveWorkGate;
  /** How often `orgId` asked for a turn. */
  asked(orgId: string): number;
  /** How many of `orgId`'s requests the gate turned away (refused, or dropped on disconnect). */
  turnedAway(orgId: string): number;
  /** How many permits of `orgId` were granted and not yet released. */
  held(orgId: string): number;
}

/** A gate that counts, in front of `inner`, how often each organization asked and was turned away. */
function countingGate(inner: ExpensiveWorkGate): CountingGate {
  const asked = new Map<string, number>();
  const away = new Map<string, number>();
  const held = new Map<string, number>();
  const bump = (counts: Map<string, number>, orgId: string, by = 1): void => void counts.set(orgId, (counts.get(orgId) ?? 0) + by);
  return {
    gate: {
      acquire(orgId, signal, group) {
        bump(asked, orgId);
        return inner.acquire(orgId, signal, group).then(
          (permit) => {
            bump(held, orgId);
            return {
              release() {
                // Counts a release twice if the router ever made one: the test then sees -1.
                bump(held, orgId, -1);
                permit.release();
              },
            };
          },
          (error: unknown) => {
            bump(away, orgId);
            throw error;
          },
        );
      },
    },
    asked: (orgId) => asked.get(orgId) ?? 0,
    turnedAway: (orgId) => away.get(orgId) ?? 0,
    held: (orgId) => held.get(orgId) ?? 0,
  };
}

/** Starts a request now and gives its response when it comes. */
function start(test: request.Test): Promise<request.Response> {
  return test.then((response) => response);
}

function titled(label: string): string {
  return `/Users?filter=${encodeURIComponent(`title eq "${label}"`)}`;
}

async function seeded(t: TestApp): Promise<{ acme: string; globex: string }> {
  const acme = (await t.post("/Users", userBody("alice", { title: "a" })).expect(201)).body as { id: string };
  const globex = (await t.post(`${t.base("globex")}/Users`, userBody("bob", { title: "b" }), t.token.globex).expect(201)).body as {
    id: string;
  };
  return { acme: acme.id, globex: globex.id };
}

describe("fair share between organizations", () => {
  it("queues an organization's second expensive list behind its first, while another organization's expensive list and every cheap request proceed", async () => {
    const held = holdingStore(await defaultStore());
    const counting = countingGate(fairShareGate());
    const t = await createTestApp({ store: held.store, fairShare: { gate: counting.gate } });
    const ids = await seeded(t);

    const a1 = start(t.get(titled("a1")));
    await until(() => held.log.includes("start a1"), "acme's first list reaches the store");
    const a2 = start(t.post("/Users/.search", { filter: 'title eq "a2"' }));
    await until(() => counting.asked("acme") === 2, "acme's second list asks for a turn");

    // Another organization's expensive list runs beside acme's.
    const b1 = start(t.get(`${t.base("globex")}${titled("b1")}`, t.token.globex));
    await until(() => held.log.includes("start b1"), "globex's list reaches the store");

    // Cheap requests of both organizations are answered while both scans are held: acme's behind
    // neither its own running scan nor its queued one.
    await t.get(`/Users/${ids.acme}`).expect(200);
    const lookup = await t.get(`/Users?filter=${encodeURIComponent('userName eq "alice"')}`).expect(200);
    expect((lookup.body as { totalResults: number }).totalResults).toBe(1);
    await t.get("/Users?count=10").expect(200);
    await t.get(`${t.base("globex")}/Users/${ids.globex}`, t.token.globex).expect(200);
    expect(held.log).toEqual(["start a1", "start b1"]);

    held.release("a1");
    await until(() => held.log.includes("start a2"), "acme's second list runs once the first is done");
    held.release("a2");
    held.release("b1");
    const responses = await Promise.all([a1, a2, b1]);
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(held.log.indexOf("end a1")).toBeLessThan(held.log.indexOf("start a2"));
    expect(counting.asked("acme")).toBe(2);
    expect(counting.asked("globex")).toBe(1);
  });

  it("queues an organization's /Bulk behind its expensive list, and not another organization's", async () => {
    const held = holdingStore(await defaultStore());
    const counting = countingGate(fairShareGate());
    const t = await createTestApp({ store: held.store, fairShare: { gate: counting.gate } });
    await seeded(t);
    const bulk = (userName: string) => ({
      schemas: [BULK_SCHEMA],
      Operations: [{ method: "POST", path: "/Users", bulkId: "u", data: userBody(userName) }],
    });
    const finished: string[] = [];

    const a1 = start(t.get(titled("a1")));
    await until(() => held.log.includes("start a1"), "acme's list reaches the store");
    const acmeBulk = start(t.post("/Bulk", bulk("carol"))).then((response) => {
      finished.push("acme bulk");
      return response;
    });
    await until(() => counting.asked("acme") === 2, "acme's Bulk asks for a turn");
    await t.post(`${t.base("globex")}/Bulk`, bulk("dave"), t.token.globex).expect(200);
    finished.push("globex bulk");
    await t.get(`/Users?filter=${encodeURIComponent('userName eq "carol"')}`).expect(200, /"totalResults":0/);

    held.release("a1");
    expect((await acmeBulk).status).toBe(200);
    expect((await a1).status).toBe(200);
    expect(finished).toEqual(["globex bulk", "acme bulk"]);
    await t.get(`/Users?filter=${encodeURIComponent('userName eq "carol"')}`).expect(200, /"totalResults":1/);
  });

  it("refuses an expensive request beyond the queue bound with a 429 SCIM error and Retry-After; cheap ones still pass", async () => {
    const held = holdingStore(await defaultStore());
    // No duty cycle: with no place in the queue, the request after a1 would be refused during
    // a1's rest, which is not what this case is about.
    const t = await createTestApp({ store: held.store, fairShare: { gate: fairShareGate({ maxQueued: 0, share: 1 }) } });
    const ids = await seeded(t);

    const a1 = start(t.get(titled("a1")));
    await until(() => held.log.includes("start a1"), "acme's list reaches the store");
    const refused = await t.get("/Users?sortBy=userName");
    const { detail } = expectScimError(refused, 429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(detail).toMatch(/1 expensive request running and 0 waiting/);
    await t.get(`/Users/${ids.acme}`).expect(200);

    held.release("a1");
    expect((await a1).status).toBe(200);
    await t.get("/Users?sortBy=userName").expect(200);
  });

  it("drops a queued request whose client disconnected, so its place goes to the next one", async () => {
    const held = holdingStore(await defaultStore());
    const counting = countingGate(fairShareGate({ maxQueued: 1 }));
    const t = await createTestApp({ store: held.store, fairShare: { gate: counting.gate } });
    await seeded(t);

    const a1 = start(t.get(titled("a1")));
    await until(() => held.log.includes("start a1"), "acme's list reaches the store");
    const abandoned = t.get(titled("gone"));
    abandoned.end(() => {});
    await until(() => counting.asked("acme") === 2, "the abandoned list asks for a turn");
    abandoned.abort();
    await until(() => counting.turnedAway("acme") === 1, "the server drops the abandoned list");

    // The one place in the queue is free again: the next list waits there instead of a 429.
    const third = start(t.get(titled("a3")));
    await until(() => counting.asked("acme") === 3, "acme's third list asks for a turn");
    held.release("a1");
    await until(() => held.log.includes("start a3"), "the third list runs after the first");
    held.release("a3");
    expect((await third).status).toBe(200);
    expect((await a1).status).toBe(200);
    expect(held.log).not.toContain("start gone");
    expect(counting.turnedAway("acme")).toBe(1);
    expect(t.errors).toEqual([]);
  });

  it("releases an organization's turn when its expensive list fails", async () => {
    const held = holdingStore(await defaultStore());
    const t = await createTestApp({ store: held.store });
    await seeded(t);
    expectScimError(await t.get(titled("boom")), 500);
    expect(t.errors).toHaveLength(1);
    const next = start(t.get(titled("after")));
    await until(() => held.log.includes("start after"), "the next expensive list runs");
    held.release("after");
    expect((await next).status).toBe(200);
  });

  it("tells the gate of every authenticated request, cheap ones included, and of no unauthenticated one", async () => {
    const observed: string[] = [];
    const inner = fairShareGate();
    const gate: ExpensiveWorkGate = {
      acquire: (orgId, signal, group) => inner.acquire(orgId, signal, group),
      observe: (orgId) => void observed.push(orgId),
    };
    const t = await createTestApp({ fairShare: { gate } });
    const created = await t.post("/Users", userBody("observed")).expect(201);
    await t.get(`${t.base("globex")}/Users/${String(created.body.id)}`, t.token.globex).expect(404);
    await t.get("/Users", "not-a-token").expect(401);
    expect(observed).toEqual(["acme", "globex"]);
  });

  it("runs every list at once when fairShare is false", async () => {
    const held = holdingStore(await defaultStore());
    const t = await createTestApp({ store: held.store, fairShare: false });
    await seeded(t);
    const a1 = start(t.get(titled("a1")));
    const a2 = start(t.get(titled("a2")));
    await until(() => held.log.includes("start a1") && held.log.includes("start a2"), "both lists reach the store");
    held.release("a1");
    held.release("a2");
    expect((await Promise.all([a1, a2])).map((response) => response.status)).toEqual([200, 200]);
  });

  it("answers another organization's lookup during a scan of 50,000 users on the memory store, before the scan ends", async () => {
    const base = memoryStore();
    const scans: string[] = [];
    const store: ResourceStore = {
      ...base,
      async list(request) {
        scans.push(request.orgId);
        return base.list(request);
      },
    };
    const t = await createTestApp({ store });
    const bob = (await t.post(`${t.base("globex")}/Users`, userBody("bob"), t.token.globex).expect(201)).body as { id: string };
    const now = new Date().toISOString();
    for (let index = 0; index < 50_000; index++) {
      const userName = `user${index}@example.com`;
      await base.create({
        orgId: "acme",
        resourceType: "User",
        id: `00000000-0000-7000-8000-${String(index).padStart(12, "0")}`,
        now,
        attributes: {
          userName,
          name: { givenName: "Given", familyName: `Family${index}` },
          emails: [{ value: userName, type: "work", primary: true }],
        },
        uniqueKeys: [{ attribute: "userName", value: userName }],
        unknownMembers: "ignore",
      });
    }
    const answered: string[] = [];
    const scan = start(t.get(`/Users?filter=${encodeURIComponent('emails.value co "x"')}`)).then((response) => {
      answered.push("acme scan");
      return response;
    });
    await until(() => scans.includes("acme"), "acme's scan reaches the store");
    const lookup = start(t.get(`${t.base("globex")}/Users/${bob.id}`, t.token.globex)).then((response) => {
      answered.push("globex lookup");
      return response;
    });
    const [scanned, looked] = await Promise.all([scan, lookup]);
    expect(looked.status).toBe(200);
    expect(scanned.status).toBe(200);
    expect((scanned.body as { totalResults: number }).totalResults).toBe(50_000);
    expect(answered).toEqual(["globex lookup", "acme scan"]);
  }, 60_000);
});

/** The threshold these tests classify bodies with, so a large body stays a few KiB. */
const LARGE_BODY = 1024;

/** A PATCH that sets `title` and, padded past `LARGE_BODY` unless `small`, a long `nickName`. */
function titlePatch(title: string, size: "large" | "small" = "large"): Record<string, unknown> {
  return {
    schemas: [PATCH_SCHEMA],
    Operations: [
      { op: "replace", path: "title", value: title },
      ...(size === "large" ? [{ op: "replace", path: "nickName", value: "n".repeat(2 * LARGE_BODY) }] : []),
    ],
  };
}

/** An app whose gate counts, classifying bodies over `LARGE_BODY` bytes as expensive. */
async function largeBodyApp(
  options: { readonly maxQueued?: number; readonly bodyLimit?: number } = {},
): Promise<{ t: TestApp; held: HoldingStore; counting: CountingGate }> {
  const held = holdingStore(await defaultStore());
  // No duty cycle: these cases are about who holds the turn, not about the rest after it.
  const counting = countingGate(fairShareGate({ share: 1, ...(options.maxQueued === undefined ? {} : { maxQueued: options.maxQueued }) }));
  const t = await createTestApp({
    store: held.store,
    ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
    fairShare: { gate: counting.gate, classifier: expensiveWorkClassifier({ largeBody: LARGE_BODY }) },
  });
  return { t, held, counting };
}

/**
 * Sends the headers of a PATCH declaring `declared` bytes and `sent` of them, on a real socket,
 * and never the rest: the test ends the request by destroying it.
 */
async function partialPatch(
  t: TestApp,
  path: string,
  declared: number,
  sent: number,
): Promise<{ readonly request: ClientRequest; close(): Promise<void> }> {
  const server = t.app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  const request = httpRequest({
    host: "127.0.0.1",
    port,
    method: "PATCH",
    path: `${t.base()}${path}`,
    headers: { Authorization: `Bearer ${t.token.acme}`, "Content-Type": "application/scim+json", "Content-Length": String(declared) },
  });
  request.on("error", () => {});
  request.write("x".repeat(sent));
  return {
    request,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("fair share of large bodies, judged on the headers", () => {
  it("holds an organization's large write until its first one is done, while another organization and its own small writes proceed", async () => {
    const { t, held, counting } = await largeBodyApp();
    const ids = await seeded(t);
    const second = (await t.post("/Users", userBody("carol")).expect(201)).body as { id: string };

    const a1 = start(t.patch(`/Users/${ids.acme}`, titlePatch("hold a1")));
    await until(() => held.log.includes("write hold a1"), "acme's first large write reaches the store");
    const a2 = start(t.patch(`/Users/${ids.acme}`, titlePatch("a2")));
    await until(() => counting.asked("acme") === 2, "acme's second large write asks for a turn");

    // Another organization's large write, and lookups and a small write of both, go ahead.
    await t.patch(`${t.base("globex")}/Users/${ids.globex}`, titlePatch("b1"), t.token.globex).expect(200);
    await t.get(`${t.base("globex")}/Users/${ids.globex}`, t.token.globex).expect(200);
    await t.get(`/Users/${ids.acme}`).expect(200);
    await t.patch(`/Users/${second.id}`, titlePatch("small", "small")).expect(200);
    expect(counting.asked("acme")).toBe(2);
    expect(held.log).toEqual(["write hold a1", "write b1", "written b1", "write small", "written small"]);

    held.release("a1");
    const responses = await Promise.all([a1, a2]);
    expect(responses.map((response) => response.status)).toEqual([200, 200]);
    expect(held.log.indexOf("written hold a1")).toBeLessThan(held.log.indexOf("write a2"));
    expect(counting.held("acme")).toBe(0);
    expect(counting.held("globex")).toBe(0);
  });

  it("releases the turn once when a large write is refused: 400 after parsing, 413 on its header", async () => {
    const { t, counting } = await largeBodyApp({ maxQueued: 0, bodyLimit: 4 * LARGE_BODY });
    const ids = await seeded(t);
    const invalid = { schemas: [PATCH_SCHEMA], Operations: [{ op: "frobnicate", path: "nickName", value: "n".repeat(2 * LARGE_BODY) }] };
    expectScimError(await t.patch(`/Users/${ids.acme}`, invalid), 400);
    await until(() => counting.held("acme") === 0, "the refused write gives its turn back");
    const oversized = await t.patch(`/Users/${ids.acme}`, titlePatch("n".repeat(8 * LARGE_BODY)));
    expectScimError(oversized, 413);
    await until(() => counting.held("acme") === 0, "the oversized write gives its turn back");
    // With no queue, a turn not given back would make this a 429.
    await t.patch(`/Users/${ids.acme}`, titlePatch("after")).expect(200);
    expect(counting.asked("acme")).toBe(3);
    expect(counting.turnedAway("acme")).toBe(0);
    expect(counting.held("acme")).toBe(0);
  });

  it("releases the turn when the client disconnects mid-body, and drops a large write whose client left while it waited", async () => {
    const { t, held, counting } = await largeBodyApp({ maxQueued: 1 });
    const ids = await seeded(t);

    const reading = await partialPatch(t, `/Users/${ids.acme}`, 4 * LARGE_BODY, LARGE_BODY);
    await until(() => counting.held("acme") === 1, "the half-sent write holds acme's turn");
    reading.request.destroy();
    await until(() => counting.held("acme") === 0, "the turn comes back when the client leaves");
    await reading.close();

    const a1 = start(t.patch(`/Users/${ids.acme}`, titlePatch("hold a1")));
    await until(() => held.log.includes("write hold a1"), "acme's large write reaches the store");
    const queued = await partialPatch(t, `/Users/${ids.acme}`, 4 * LARGE_BODY, 0);
    await until(() => counting.asked("acme") === 3, "the second large write waits for a turn");
    queued.request.destroy();
    await until(() => counting.turnedAway("acme") === 1, "the server drops the abandoned write");
    await queued.close();

    held.release("a1");
    expect((await a1).status).toBe(200);
    await until(() => counting.held("acme") === 0, "every turn is back");
    expect(held.log).toEqual(["write hold a1", "written hold a1"]);
  });

  it("runs a large /Bulk under the turn its body took, without asking again", async () => {
    const { t, counting } = await largeBodyApp();
    const body = {
      schemas: [BULK_SCHEMA],
      Operations: [{ method: "POST", path: "/Users", bulkId: "u", data: userBody("dora", { nickName: "n".repeat(2 * LARGE_BODY) }) }],
    };
    const response = await t.post("/Bulk", body).expect(200);
    expect((response.body as { Operations: { status: string }[] }).Operations.map((operation) => operation.status)).toEqual(["201"]);
    expect(counting.asked("acme")).toBe(1);
    await until(() => counting.held("acme") === 0, "the turn is given back");
  });

  it("does not gate a small body, nor a large one when fairShare is false", async () => {
    const { t, counting } = await largeBodyApp();
    const ids = await seeded(t);
    await t.patch(`/Users/${ids.acme}`, titlePatch("small", "small")).expect(200);
    await t
      .post("/Bulk", { schemas: [BULK_SCHEMA], Operations: [{ method: "POST", path: "/Users", bulkId: "u", data: userBody("erin") }] })
      .expect(200);
    // The Bulk asked once, as Bulk work; the small PATCH never did.
    expect(counting.asked("acme")).toBe(1);

    const held = holdingStore(await defaultStore());
    const off = await createTestApp({ store: held.store, fairShare: false });
    const user = (await off.post("/Users", userBody("frank")).expect(201)).body as { id: string };
    const first = start(off.patch(`/Users/${user.id}`, titlePatch("hold f1")));
    await until(() => held.log.includes("write hold f1"), "the first large write reaches the store");
    const other = (await off.post("/Users", userBody("gina")).expect(201)).body as { id: string };
    await off.patch(`/Users/${other.id}`, titlePatch("g1")).expect(200);
    held.release("f1");
    expect((await first).status).toBe(200);
  });
});

/** A token of organization `orgId` in the app's token store. */
async function tokenOf(t: TestApp, orgId: string): Promise<string> {
  return (await t.tokens.issue(orgId, { label: "tests" })).token;
}

describe("fair share of organization trees, and capacity kept for cheap work", () => {
  it("bounds expensive work per group: the 9th list of one tree waits while another organization's list and every lookup proceed", async () => {
    const held = holdingStore(await defaultStore());
    const counting = countingGate(fairShareGate({ groupConcurrency: 8, maxRunning: 10, share: 1 }));
    const divisions = Array.from({ length: 9 }, (_, index) => `division${index + 1}`);
    const asked: string[] = [];
    const t = await createTestApp({
      store: held.store,
      fairShare: {
        gate: counting.gate,
        group: (orgId) => {
          asked.push(orgId);
          return orgId.startsWith("division") ? "holding" : orgId;
        },
      },
    });
    const ids = await seeded(t);
    const tokens = new Map<string, string>();
    for (const orgId of divisions) tokens.set(orgId, await tokenOf(t, orgId));
    const listOf = (orgId: string) => start(t.get(`${t.base(orgId)}${titled(orgId)}`, tokens.get(orgId)));

    const running = divisions.slice(0, 8).map(listOf);
    await until(
      () => divisions.slice(0, 8).every((orgId) => held.log.includes(`start ${orgId}`)),
      "eight lists of the tree reach the store",
    );
    const ninth = listOf("division9");
    await until(() => counting.asked("division9") === 1, "the tree's ninth list asks for a turn");

    // Another organization's expensive list runs beside the tree's eight; lookups never wait.
    const other = start(t.get(`${t.base("globex")}${titled("b1")}`, t.token.globex));
    await until(() => held.log.includes("start b1"), "globex's list reaches the store");
    await t.get(`${t.base("globex")}/Users/${ids.globex}`, t.token.globex).expect(200);
    await t.get(`${t.base("division9")}/Users?filter=${encodeURIComponent('userName eq "nobody"')}`, tokens.get("division9")).expect(200);
    expect(held.log).not.toContain("start division9");

    held.release("division1");
    await until(() => held.log.includes("start division9"), "the ninth list runs once one of the tree's is done");
    for (const orgId of divisions.slice(1)) held.release(orgId);
    held.release("b1");
    const responses = await Promise.all([...running, ninth, other]);
    expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 10 }, () => 200));
    expect(held.log.indexOf("end division1")).toBeLessThan(held.log.indexOf("start division9"));
    // Asked once per authenticated request, cheap ones included.
    expect(asked.filter((orgId) => orgId === "division9")).toHaveLength(2);
    expect(t.errors).toEqual([]);
  });

  it("keeps capacity for cheap work: with three expensive lists running, a fourth organization's waits and every lookup is answered", async () => {
    const held = holdingStore(await defaultStore());
    const counting = countingGate(fairShareGate({ share: 1 }));
    const t = await createTestApp({ store: held.store, fairShare: { gate: counting.gate } });
    const ids = await seeded(t);
    const orgs = ["acme", "globex", "initech", "umbrella"];
    const tokens = new Map<string, string>([
      ["acme", t.token.acme],
      ["globex", t.token.globex],
      ["initech", await tokenOf(t, "initech")],
      ["umbrella", await tokenOf(t, "umbrella")],
    ]);
    const listOf = (orgId: string) => start(t.get(`${t.base(orgId)}${titled(orgId)}`, tokens.get(orgId)));
    const lists = orgs.slice(0, 3).map(listOf);
    await until(() => orgs.slice(0, 3).every((orgId) => held.log.includes(`start ${orgId}`)), "three lists reach the store");
    const fourth = listOf("umbrella");
    await until(() => counting.asked("umbrella") === 1, "the fourth organization's list asks for a turn");
    await t.get(`/Users/${ids.acme}`).expect(200);
    await t.get(`${t.base("umbrella")}/Users?count=5`, tokens.get("umbrella")).expect(200);
    expect(held.log).not.toContain("start umbrella");

    held.release("globex");
    await until(() => held.log.includes("start umbrella"), "the fourth list runs once another is done");
    for (const orgId of ["acme", "initech", "umbrella"]) held.release(orgId);
    expect((await Promise.all([...lists, fourth])).map((response) => response.status)).toEqual([200, 200, 200, 200]);
  });

  it("answers 500 for onError when the group function fails, and never asks the gate", async () => {
    const counting = countingGate(fairShareGate());
    const t = await createTestApp({
      fairShare: {
        gate: counting.gate,
        group: async () => {
          throw new Error("the organization tree is unreachable");
        },
      },
    });
    expectScimError(await t.get("/Users?sortBy=userName"), 500);
    expect(t.errors).toHaveLength(1);
    expect(counting.asked("acme")).toBe(0);
  });
});

describe("a turn waited for too long", () => {
  it("answers a queued expensive list 429 with Retry-After once it waited maxWaitMs, and the queue goes on", async () => {
    const held = holdingStore(await defaultStore());
    const counting = countingGate(fairShareGate({ share: 1 }));
    const t = await createTestApp({ store: held.store, fairShare: { gate: counting.gate, maxWaitMs: 1 } });
    await seeded(t);
    const a1 = start(t.get(titled("a1")));
    await until(() => held.log.includes("start a1"), "acme's list reaches the store");
    // a1 is held until this answer came: the wait can only end by the bound.
    const waited = await t.get(titled("a2"));
    const { detail } = expectScimError(waited, 429);
    expect(Number(waited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(detail).toMatch(/waited 1 s for its turn/);
    expect(detail).toContain("fairShare.maxWaitMs");
    expect(counting.turnedAway("acme")).toBe(1);
    held.release("a1");
    expect((await a1).status).toBe(200);
    expect(held.log).not.toContain("start a2");
    expect(t.errors).toEqual([]);
  });

  it("answers a large write waiting unread for its turn 429, before the server's requestTimeout would answer 408", async () => {
    const { t, held, counting } = await largeBodyApp();
    const ids = await seeded(t);
    const a1 = start(t.patch(`/Users/${ids.acme}`, titlePatch("hold a1")));
    await until(() => held.log.includes("write hold a1"), "acme's first large write reaches the store");

    // Node answers 408 to a request whose body has not arrived within requestTimeout; this
    // write's body is never sent, so only the router's 429, at half that time, can come first.
    const server = createServer({ requestTimeout: 2_000, connectionsCheckingInterval: 50 }, t.app).listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    const queued = httpRequest({
      host: "127.0.0.1",
      port,
      method: "PATCH",
      path: `${t.base()}/Users/${ids.acme}`,
      headers: {
        Authorization: `Bearer ${t.token.acme}`,
        "Content-Type": "application/scim+json",
        "Content-Length": String(4 * LARGE_BODY),
      },
    });
    queued.on("error", () => {});
    const answered = new Promise<{ status: number; retryAfter: string | undefined; body: string }>((resolve) => {
      queued.on("response", (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, retryAfter: response.headers["retry-after"], body }));
      });
    });
    queued.flushHeaders();
    const answer = await answered;
    expect(answer.status).toBe(429);
    expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
    expect((JSON.parse(answer.body) as { detail: string }).detail).toMatch(/waited 1 s for its turn/);
    queued.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));

    held.release("a1");
    expect((await a1).status).toBe(200);
    await until(() => counting.held("acme") === 0, "every turn is back");
    expect(held.log).toEqual(["write hold a1", "written hold a1"]);
  });
});

describe("reads on a SQLite file never wait for the writer", () => {
  it("answers another organization's GET, its token's lastUsedAt due, while a write transaction holds the one writer", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scimkit-reads-"));
    const store = await sqlStore({ sqlite: join(dir, "reads.db") });
    try {
      const t = await createTestApp({ store, auth: store.tokens });
      const setup = (await store.tokens.issue("globex", { label: "setup" })).token;
      const bob = (await t.post(`${t.base("globex")}/Users`, userBody("bob"), setup).expect(201)).body as { id: string };
      // Never used: its first use records lastUsedAt, a write.
      const fresh = (await store.tokens.issue("globex", { label: "fresh" })).token;
      // The largest PATCH's write transaction, held open: the writer is busy until the test ends it.
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let entered: () => void = () => {};
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const writing = store.dialect.writeTransaction(store.db, async () => {
        entered();
        await held;
      });
      await inside;
      const order: string[] = [];
      const read = t.get(`${t.base("globex")}/Users/${bob.id}`, fresh).then((response) => {
        order.push(`read ${response.status}`);
      });
      await until(() => order.length > 0, "the read is answered while the writer is held");
      release();
      await writing;
      await read;
      expect(order).toEqual(["read 200"]);
      // The use is recorded once the writer is free, and shown by the token list.
      const listed = await store.tokens.list("globex");
      expect(listed.find((token) => token.label === "fresh")?.lastUsedAt).toBeDefined();
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
