/**
 * The fair share between organizations (issue 12, DESIGN §4b): an organization's expensive
 * requests (scans, sorts, deep pages, /Bulk) wait for its own earlier ones, never for another
 * organization's, and cheap lookups never wait at all. A store wrapper holds expensive lists open
 * until the test lets them finish, so every assertion is about order, never about time.
 */
import type request from "supertest";
import { describe, expect, it } from "vitest";
import type { ExpensiveWorkGate } from "../../src/http/expensive-work-gate.js";
import { fairShareGate } from "../../src/http/fair-share-gate.js";
import { memoryStore } from "../../src/store/memory/memory-store.js";
import type { ListRequest, ResourceStore } from "../../src/store/resource-store.js";
import { createTestApp, defaultStore, expectScimError, userBody, type TestApp } from "./harness.js";

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
  return filter?.kind === "compare" && filter.path.attribute.name === "title" && typeof filter.value === "string" ? filter.value : undefined;
}

interface HoldingStore {
  readonly store: ResourceStore;
  /** `start <label>` and `end <label>` of every labelled list, in the order they happened. */
  readonly log: string[];
  /** Lets the held list `label` finish. */
  release(label: string): void;
}

/**
 * `base`, except that a list filtered on `title eq "<label>"` (a scan: expensive) waits in the
 * store until released, and one labelled `boom` fails.
 */
function holdingStore(base: ResourceStore): HoldingStore {
  const log: string[] = [];
  const gates = new Map<string, () => void>();
  const store: ResourceStore = {
    ...(base.capabilities ? { capabilities: base.capabilities } : {}),
    create: (request) => base.create(request),
    get: (request) => base.get(request),
    update: (request) => base.update(request),
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
}

/** A gate that counts, in front of `inner`, how often each organization asked and was turned away. */
function countingGate(inner: ExpensiveWorkGate): CountingGate {
  const asked = new Map<string, number>();
  const away = new Map<string, number>();
  const bump = (counts: Map<string, number>, orgId: string): void => void counts.set(orgId, (counts.get(orgId) ?? 0) + 1);
  return {
    gate: {
      acquire(orgId, signal) {
        bump(asked, orgId);
        return inner.acquire(orgId, signal).catch((error: unknown) => {
          bump(away, orgId);
          throw error;
        });
      },
    },
    asked: (orgId) => asked.get(orgId) ?? 0,
    turnedAway: (orgId) => away.get(orgId) ?? 0,
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
  const globex = (await t.post(`${t.base("globex")}/Users`, userBody("bob", { title: "b" }), t.token.globex).expect(201)).body as { id: string };
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
    const t = await createTestApp({ store: held.store, fairShare: { gate: fairShareGate({ maxQueued: 0 }) } });
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
        attributes: { userName, name: { givenName: "Given", familyName: `Family${index}` }, emails: [{ value: userName, type: "work", primary: true }] },
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
