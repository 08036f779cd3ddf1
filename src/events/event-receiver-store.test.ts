/**
 * `EventReceiverStore` and `SigningKeyRepository` on memory, SQLite and PostgreSQL: receivers keep
 * what was registered, a claim is a lease nobody else gets while it lasts, a receiver in backoff
 * is not due, progress adds up and keeps the last failure, an organization keeps its first key, and
 * a rotation replaces it only while it is the key the rotation read.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { EventOutbox } from "../store/event-outbox.js";
import { memoryStore } from "../store/memory/memory-store.js";
import { createTestSchema, describePostgres, type TestSchema } from "../store/sql/postgres-test-database.fixture.js";
import { sqlEventReceiverStore, sqlSigningKeyRepository } from "../store/sql/sql-event-receiver-store.js";
import { sqlStore } from "../store/sql/sql-store.js";
import type { EventReceiverStore, SigningKeyRepository } from "./event-receiver-store.js";
import { memoryEventReceiverStore, memorySigningKeyRepository } from "./memory-event-receiver-store.js";

const NOW = "2030-01-01T00:00:00.000Z";
const LATER = "2030-01-01T00:01:00.000Z";
const MUCH_LATER = "2030-01-01T01:00:00.000Z";

interface Opened {
  /** The outbox whose events the receivers are due for (the store's own). */
  readonly outbox: EventOutbox;
  readonly receivers: EventReceiverStore;
  readonly keys: SigningKeyRepository;
  close(): Promise<void>;
}

/** Records `count` events of `orgId`. */
async function record(outbox: EventOutbox, orgId: string, count = 1): Promise<void> {
  const inputs = Array.from({ length: count }, () => ({
    jti: crypto.randomUUID(),
    type: "user.created",
    resourceType: "User",
    resourceId: crypto.randomUUID(),
    resource: { userName: "ann" },
  }));
  await outbox.append(orgId, inputs, { pending: false, leaseUntil: NOW });
}

function receiverChecks(open: () => Promise<Opened>): void {
  it("keeps a receiver as registered, lists it by organization, and removes it", async () => {
    const { receivers, close } = await open();
    const added = await receivers.add(
      "acme",
      {
        url: "https://r.test/a",
        events: ["urn:ietf:params:scim:event:prov:delete"],
        form: "full",
        label: "SIEM",
        authorization: "Bearer x",
      },
      7,
    );
    expect(added).toMatchObject({
      orgId: "acme",
      url: "https://r.test/a",
      events: ["urn:ietf:params:scim:event:prov:delete"],
      form: "full",
      audience: "https://r.test/a",
      label: "SIEM",
      authorization: "Bearer x",
      position: 7,
      attempts: 0,
      delivered: 0,
      rejected: 0,
    });
    await receivers.add("globex", { url: "https://r.test/g" }, 0);
    expect((await receivers.list("acme")).map((receiver) => receiver.id)).toEqual([added.id]);
    expect(await receivers.get("acme", added.id)).toEqual(added);
    expect(await receivers.remove("acme", added.id)).toBe(true);
    expect(await receivers.remove("acme", added.id)).toBe(false);
    expect(await receivers.get("acme", added.id)).toBeUndefined();
    await close();
  });

  it("leases a due receiver to one claimer, saves progress, and holds a receiver in backoff", async () => {
    const { outbox, receivers, close } = await open();
    await record(outbox, "acme", 4);
    const added = await receivers.add("acme", { url: "https://r.test/a", form: "notice" }, 0);
    expect((await receivers.claimDue({ now: NOW, leaseUntil: LATER, limit: 10 })).map((receiver) => receiver.id)).toEqual([added.id]);
    expect(await receivers.claimDue({ now: NOW, leaseUntil: LATER, limit: 10 })).toEqual([]);
    await receivers.saveProgress("acme", added.id, { position: 3, delivered: 2, rejected: 1, attempts: 0, lastDeliveredAt: NOW });
    const failure = { at: NOW, jti: "j4", status: 503, error: "http" };
    // Released: due again at once.
    expect(await receivers.claimDue({ now: NOW, leaseUntil: LATER, limit: 10 })).toHaveLength(1);
    await receivers.saveProgress("acme", added.id, {
      position: 3,
      delivered: 0,
      rejected: 0,
      attempts: 1,
      lastError: failure,
      nextAttemptAt: LATER,
    });
    expect(await receivers.claimDue({ now: NOW, leaseUntil: LATER, limit: 10 })).toEqual([]);
    const state = await receivers.get("acme", added.id);
    expect(state).toMatchObject({
      position: 3,
      delivered: 2,
      rejected: 1,
      attempts: 1,
      lastError: failure,
      lastDeliveredAt: NOW,
      nextAttemptAt: LATER,
    });
    expect(await receivers.claimDue({ now: MUCH_LATER, leaseUntil: MUCH_LATER, limit: 10 })).toHaveLength(1);
    await close();
  });

  it("claims a receiver only while an event waits after its position", async () => {
    const { outbox, receivers, close } = await open();
    const added = await receivers.add("acme", { url: "https://r.test/a" }, 0);
    // Nothing recorded yet: an idle receiver is not due, so a pass neither leases nor writes it.
    expect(await receivers.claimDue({ now: NOW, leaseUntil: LATER, limit: 10 })).toEqual([]);
    await record(outbox, "globex");
    expect(await receivers.claimDue({ now: NOW, leaseUntil: LATER, limit: 10 })).toEqual([]);
    await record(outbox, "acme", 2);
    expect((await receivers.claimDue({ now: NOW, leaseUntil: LATER, limit: 10 })).map((receiver) => receiver.id)).toEqual([added.id]);
    // Caught up and released: not due again until the next event.
    await receivers.saveProgress("acme", added.id, { position: 2, delivered: 2, rejected: 0, attempts: 0 });
    expect(await receivers.claimDue({ now: MUCH_LATER, leaseUntil: MUCH_LATER, limit: 10 })).toEqual([]);
    await record(outbox, "acme");
    expect(await receivers.claimDue({ now: NOW, leaseUntil: LATER, limit: 10 })).toHaveLength(1);
    await close();
  });

  it("walks due receivers once in (organization, id) order from where the last claim ended", async () => {
    const { outbox, receivers, close } = await open();
    // 25 organizations sorting after a tenant with 20 receivers, as in issue 27.
    const added = [];
    for (let index = 0; index < 20; index += 1) added.push(await receivers.add("aaa", { url: `https://r.test/aaa/${index}` }, 0));
    for (let index = 0; index < 25; index += 1) {
      const orgId = `org-${String(index).padStart(2, "0")}`;
      added.push(await receivers.add(orgId, { url: `https://r.test/${orgId}` }, 0));
    }
    for (const orgId of new Set(added.map((receiver) => receiver.orgId))) await record(outbox, orgId);
    const walked: string[] = [];
    let after: { orgId: string; id: string } | undefined;
    for (let claims = 0; claims < 10; claims += 1) {
      const due = await receivers.claimDue({ now: NOW, leaseUntil: LATER, limit: 20, ...(after ? { after } : {}) });
      // Released at once, as a round that finds the receiver still has events would: still due.
      for (const receiver of due)
        await receivers.saveProgress(receiver.orgId, receiver.id, { position: 0, delivered: 0, rejected: 0, attempts: 0 });
      walked.push(...due.map((receiver) => `${receiver.orgId}/${receiver.id}`));
      const last = due.at(-1);
      if (due.length < 20 || last === undefined) break;
      after = { orgId: last.orgId, id: last.id };
    }
    const expected = added.map((receiver) => `${receiver.orgId}/${receiver.id}`);
    expect(walked).toEqual([...expected].sort());
    expect(new Set(walked).size).toBe(45);
    await close();
  });

  it("skips a lagging receiver forward only, counts what it lost, and no deliverer moves it back", async () => {
    const { receivers, close } = await open();
    const added = await receivers.add("acme", { url: "https://r.test/a" }, 2);
    expect(added.dropped).toBe(0);
    const failure = { at: NOW, jti: "j9", error: "dropped", description: "7 event(s) were dropped unsent" };
    await receivers.skip("acme", added.id, { through: 9, failure });
    expect(await receivers.get("acme", added.id)).toMatchObject({ position: 9, dropped: 7, lastError: failure });
    // Not back: a skip to an earlier event, and a deliverer that read the receiver before the skip.
    await receivers.skip("acme", added.id, { through: 5, failure: { ...failure, jti: "j5" } });
    await receivers.saveProgress("acme", added.id, { position: 3, delivered: 1, rejected: 0, attempts: 0 });
    expect(await receivers.get("acme", added.id)).toMatchObject({ position: 9, dropped: 7, delivered: 1, lastError: { jti: "j9" } });
    await close();
  });

  it("cuts a stored failure's texts to their bounds", async () => {
    const { receivers, close } = await open();
    const added = await receivers.add("acme", { url: "https://r.test/a" }, 0);
    const huge = "x".repeat(256 * 1024);
    await receivers.saveProgress("acme", added.id, {
      position: 0,
      delivered: 0,
      rejected: 1,
      attempts: 0,
      lastError: { at: NOW, jti: "j1", status: 400, error: huge, description: huge },
    });
    const { lastError } = (await receivers.get("acme", added.id)) ?? {};
    expect(lastError?.description?.length).toBe(500);
    expect(lastError?.error.length).toBe(100);
    expect(lastError).toMatchObject({ at: NOW, jti: "j1", status: 400 });
    await close();
  });

  it("keeps an organization's first key", async () => {
    const { keys, close } = await open();
    expect(await keys.get("acme")).toBeUndefined();
    const first = { orgId: "acme", kid: "k1", privateJwk: "{}", publicJwk: "{}", createdAt: NOW };
    expect(await keys.addIfAbsent(first)).toEqual(first);
    expect(await keys.addIfAbsent({ ...first, kid: "k2" })).toEqual(first);
    expect(await keys.get("acme")).toEqual(first);
    await close();
  });

  it("replaces an organization's key only while it is the key the rotation read, with the keys it replaced", async () => {
    const { keys, close } = await open();
    const first = { orgId: "acme", kid: "k1", privateJwk: "{}", publicJwk: '{"kid":"k1"}', createdAt: NOW };
    expect(await keys.replaceIfCurrent("k1", { ...first, kid: "k2" })).toBeUndefined();
    await keys.addIfAbsent(first);
    const second = {
      ...first,
      kid: "k2",
      publicJwk: '{"kid":"k2"}',
      createdAt: LATER,
      retired: [{ kid: "k1", publicJwk: '{"kid":"k1"}', retiredAt: LATER }],
    };
    expect(await keys.replaceIfCurrent("k1", second)).toEqual(second);
    // A second rotation that read k1 too changes nothing and gets the first one's key.
    expect(await keys.replaceIfCurrent("k1", { ...second, kid: "k3" })).toEqual(second);
    expect(await keys.get("acme")).toEqual(second);
    const third = { ...first, kid: "k3", createdAt: MUCH_LATER, retired: [] };
    const { retired: _none, ...withoutRetired } = third;
    expect(await keys.replaceIfCurrent("k2", withoutRetired)).toEqual(withoutRetired);
    expect(await keys.get("globex")).toBeUndefined();
    await close();
  });
}

describe("event receivers: memory", () => {
  receiverChecks(async () => {
    const outbox = memoryStore().events;
    if (!outbox) throw new Error("the memory store has no outbox");
    return { outbox, receivers: memoryEventReceiverStore({ outbox }), keys: memorySigningKeyRepository(), close: async () => {} };
  });
});

describe("event receivers: SQLite", () => {
  receiverChecks(async () => {
    const store = await sqlStore({ sqlite: ":memory:", threads: false });
    if (!store.events) throw new Error("the SQL store has no outbox");
    return {
      outbox: store.events,
      receivers: sqlEventReceiverStore(store.db, store.dialect),
      keys: sqlSigningKeyRepository(store.db),
      close: () => store.close(),
    };
  });
});

describePostgres("event receivers: PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  afterAll(async () => {
    await schema?.drop();
  });
  receiverChecks(async () => {
    schema ??= await createTestSchema(url);
    const store = await sqlStore({ postgres: schema.pool() });
    // One schema for the file: each test starts from empty tables.
    await store.db.deleteFrom("scimkit_event_receivers").execute();
    await store.db.deleteFrom("scimkit_event_keys").execute();
    await store.db.deleteFrom("scimkit_events").execute();
    await store.db.deleteFrom("scimkit_event_sequences").execute();
    if (!store.events) throw new Error("the SQL store has no outbox");
    return {
      outbox: store.events,
      receivers: sqlEventReceiverStore(store.db, store.dialect),
      keys: sqlSigningKeyRepository(store.db),
      close: () => store.close(),
    };
  });
});
