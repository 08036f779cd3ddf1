/**
 * The event backlog has a bound (issue 27, MEDIUM 8): a receiver that lags — a push receiver that
 * is down, a poll receiver that never polls — no longer keeps every event of its organization in
 * the outbox. `prune` drops what is beyond the newest `backlog.maxEvents` or older than
 * `backlog.maxAgeMs` whoever lags, moves the receivers behind past it, counts the events in
 * `dropped` and says so in `lastError`; and one poll returns at most `poll.maxEvents` SETs and
 * `poll.maxBytes` bytes whatever it asks for. On memory, SQLite and PostgreSQL.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  type EventReceiverStore,
  eventSigningKeys,
  memoryEventReceiverStore,
  memorySigningKeyRepository,
  type SecurityEventDeliveryOptions,
  securityEventDelivery,
} from "scimkit/events";
import type { EventOutbox } from "scimkit/store";
import { memoryStore } from "scimkit/memory";
import { sqlEventReceiverStore, sqlStore } from "scimkit/sql";
import { createTestSchema, describePostgres, type TestSchema } from "../../src/store/sql/postgres-test-database.fixture.js";

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";

interface Opened {
  readonly outbox: EventOutbox;
  readonly receivers: EventReceiverStore;
  close(): Promise<void>;
}

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

async function record(outbox: EventOutbox, orgId: string, count: number): Promise<void> {
  const inputs = Array.from({ length: count }, (_, index) => ({
    jti: crypto.randomUUID(),
    type: "user.created",
    resourceType: "User",
    resourceId: `u${index}`,
    resource: { schemas: [USER], id: `u${index}`, userName: `user-${index}@example.com`, displayName: "x".repeat(200) },
  }));
  await outbox.append(orgId, inputs, { pending: false, leaseUntil: new Date(0).toISOString() });
}

function backlogChecks(open: () => Promise<Opened>): void {
  async function world(options: Pick<SecurityEventDeliveryOptions, "backlog" | "poll"> = {}) {
    const opened = await open();
    closing.push(() => opened.close());
    const delivery = securityEventDelivery({
      outbox: opened.outbox,
      receivers: opened.receivers,
      keys: eventSigningKeys(memorySigningKeyRepository()),
      issuer: (orgId) => `https://scim.test/${orgId}`,
      ...options,
    });
    return { ...opened, delivery };
  }

  it("prunes beyond the newest backlog.maxEvents while receivers lag, and tells each receiver what it lost", async () => {
    const { outbox, delivery } = await world({ backlog: { maxEvents: 5 } });
    // A push receiver that is never reached and a poll receiver that never polls: both stay at 0.
    const push = await delivery.addReceiver("acme", { url: "https://down.test/events" }, "beginning");
    const poll = await delivery.addReceiver(
      "acme",
      { url: "https://poller.test/", delivery: "poll", authorization: "Bearer p" },
      "beginning",
    );
    await record(outbox, "acme", 12);
    await record(outbox, "globex", 3);
    expect(await delivery.prune("acme")).toBe(7);
    expect((await outbox.read({ orgId: "acme", after: 0, limit: 100 })).map((event) => event.sequence)).toEqual([8, 9, 10, 11, 12]);
    for (const id of [push.id, poll.id]) {
      const state = (await delivery.receivers("acme")).find((receiver) => receiver.id === id);
      expect(state).toMatchObject({ position: 7, dropped: 7, lastError: { error: "dropped" } });
      expect(state?.lastError?.description).toMatch(/7 event\(s\) up to sequence 7 were dropped unsent/);
    }
    // Another organization's events and receivers are left alone.
    expect(await outbox.read({ orgId: "globex", after: 0, limit: 100 })).toHaveLength(3);
    // Within the bound again: a second prune drops nothing more, and the count stays.
    expect(await delivery.prune("acme")).toBe(0);
    expect((await delivery.receivers("acme")).map((receiver) => receiver.dropped)).toEqual([7, 7]);
  });

  it("prunes events older than backlog.maxAgeMs whoever has not got them", async () => {
    const { outbox, delivery } = await world({ backlog: { maxAgeMs: 1 } });
    const receiver = await delivery.addReceiver("acme", { url: "https://down.test/events" });
    await record(outbox, "acme", 4);
    // Each event is older than 1 ms once the clock has moved on.
    const recorded = await outbox.read({ orgId: "acme", after: 0, limit: 10 });
    while (Date.now() - Date.parse(recorded.at(-1)?.recordedAt ?? "") < 5) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await delivery.prune("acme")).toBe(4);
    expect(await outbox.read({ orgId: "acme", after: 0, limit: 10 })).toEqual([]);
    const [state] = await delivery.receivers("acme");
    expect(state).toMatchObject({ id: receiver.id, position: 4, dropped: 4, lastError: { error: "dropped", jti: recorded.at(-1)?.jti } });
  });

  it("keeps every event a receiver within the bound still needs", async () => {
    const { outbox, delivery } = await world({ backlog: { maxEvents: 100 } });
    await delivery.addReceiver("acme", { url: "https://down.test/events" }, "beginning");
    await record(outbox, "acme", 12);
    expect(await delivery.prune("acme")).toBe(0);
    expect((await delivery.receivers("acme"))[0]).toMatchObject({ position: 0, dropped: 0 });
  });

  it("answers a poll with at most poll.maxEvents SETs and poll.maxBytes bytes, whatever it asks", async () => {
    const { outbox, receivers, delivery } = await world({ poll: { maxEvents: 3, maxBytes: 4000 } });
    const poll = await delivery.addReceiver("acme", {
      url: "https://poller.test/",
      delivery: "poll",
      authorization: "Bearer p",
      form: "full",
    });
    await record(outbox, "acme", 10);
    const first = await delivery.poll("acme", poll.id, { maxEvents: 1000 });
    expect(Object.keys(first?.sets ?? {})).toHaveLength(3);
    expect(first?.moreAvailable).toBe(true);
    const tight = securityEventDelivery({
      outbox,
      receivers,
      keys: eventSigningKeys(memorySigningKeyRepository()),
      issuer: () => "https://scim.test/acme",
      poll: { maxBytes: 1 },
    });
    const small = await tight.addReceiver(
      "acme",
      { url: "https://poller.test/2", delivery: "poll", authorization: "Bearer q" },
      "beginning",
    );
    // One SET per answer, however large: over the byte bound, yet the receiver can move on.
    const one = await tight.poll("acme", small.id, {});
    expect(Object.keys(one?.sets ?? {})).toHaveLength(1);
    expect(one?.moreAvailable).toBe(true);
    const [jti] = Object.keys(one?.sets ?? {});
    const next = await tight.poll("acme", small.id, { ack: [jti ?? ""] });
    expect(Object.keys(next?.sets ?? {})).toHaveLength(1);
    expect(Object.keys(next?.sets ?? {})).not.toContain(jti);
  });
}

describe("the event backlog bound: memory", () => {
  backlogChecks(async () => {
    const outbox = memoryStore().events;
    if (!outbox) throw new Error("the memory store has no outbox");
    return { outbox, receivers: memoryEventReceiverStore({ outbox }), close: async () => {} };
  });
});

describe("the event backlog bound: SQLite", () => {
  backlogChecks(async () => {
    const store = await sqlStore({ sqlite: ":memory:", threads: false });
    if (!store.events) throw new Error("the SQL store has no outbox");
    return { outbox: store.events, receivers: sqlEventReceiverStore(store.db, store.dialect), close: () => store.close() };
  });
});

describePostgres("the event backlog bound: PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  afterAll(async () => {
    await schema?.drop();
  });
  backlogChecks(async () => {
    schema ??= await createTestSchema(url);
    const store = await sqlStore({ postgres: schema.pool() });
    // One schema for the file: each test starts from empty tables.
    for (const table of ["scimkit_event_receivers", "scimkit_events", "scimkit_event_sequences"] as const) {
      await store.db.deleteFrom(table).execute();
    }
    if (!store.events) throw new Error("the SQL store has no outbox");
    return { outbox: store.events, receivers: sqlEventReceiverStore(store.db, store.dialect), close: () => store.close() };
  });
});
