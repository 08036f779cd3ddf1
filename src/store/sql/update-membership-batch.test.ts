/**
 * Concurrent member deltas of one group in one transaction (issue 29): the batch answers every
 * request exactly as the same requests one at a time in the same order would — each its own
 * version and `MembershipChange`, the same member list in the same order, the same events — and a
 * request that fails alone fails alone, the others landing. On SQLite and, when configured, PostgreSQL.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isScimError } from "../../errors.js";
import type { EventRecording, OutboxEvent } from "../event-outbox.js";
import type { UnknownMemberPolicy, UpdateRequest, WriteResult } from "../resource-store.js";
import { createTestSchema, describePostgres, type TestSchema } from "./postgres-test-database.fixture.js";
import { sqlStore, type SqlStore } from "./sql-store.js";
import { messagesSentDuring } from "./sqlite-worker/sent-statements.fixture.js";

const NOW = "2024-01-01T00:00:00.000Z";
const USERS = ["u0", "u1", "u2", "u3", "u4", "u5"] as const;
/** Ids of no resource: added, they are ignored (or refused under `reject`). */
const NOBODY = ["ghost-1", "ghost-2"] as const;

interface Delta {
  readonly add: readonly string[];
  readonly remove: readonly string[];
  readonly unknownMembers: UnknownMemberPolicy;
}

async function seed(store: SqlStore, orgId: string, groups: readonly string[], initial: readonly string[]): Promise<void> {
  for (const id of USERS) {
    await store.create({
      orgId,
      resourceType: "User",
      id,
      now: NOW,
      attributes: { userName: id },
      uniqueKeys: [{ attribute: "userName", value: id }],
      unknownMembers: "ignore",
    });
  }
  for (const id of groups) {
    await store.create({
      orgId,
      resourceType: "Group",
      id,
      now: NOW,
      attributes: { displayName: id },
      uniqueKeys: [{ attribute: "displayName", value: id }],
      members: initial,
      unknownMembers: "ignore",
    });
  }
}

/** A recording whose events name the request and the version it produced. */
function recording(group: string, label: string, committed: Map<string, readonly OutboxEvent[]>): EventRecording<WriteResult> {
  return {
    pending: true,
    leaseUntil: NOW,
    build: (result) => [
      {
        jti: `${group}:${label}:${result.resource.version}`,
        type: "group.members.changed",
        resourceType: "Group",
        resourceId: result.resource.id,
        resource: { version: result.resource.version },
        memberIds: [...(result.membership?.added ?? []), ...(result.membership?.removed ?? [])],
      },
    ],
    committed: (events) => committed.set(label, events),
  };
}

function requestOf(orgId: string, group: string, delta: Delta, index: number, events?: EventRecording<WriteResult>): UpdateRequest {
  return {
    orgId,
    resourceType: "Group",
    id: group,
    now: `2024-01-02T00:00:${String(index % 60).padStart(2, "0")}.000Z`,
    membership: { kind: "delta", add: delta.add, remove: delta.remove },
    unknownMembers: delta.unknownMembers,
    members: false,
    ...(events ? { events } : {}),
  };
}

/** What a request ended with, comparable across groups (the group's id left out). */
async function outcome(written: Promise<WriteResult | undefined>): Promise<unknown> {
  try {
    const result = await written;
    if (result === undefined) return "not found";
    return { version: result.resource.version, lastModified: result.resource.lastModified, membership: result.membership };
  } catch (error) {
    return isScimError(error) ? { status: error.status, detail: error.detail } : { thrown: String(error) };
  }
}

async function membersAndVersion(store: SqlStore, orgId: string, id: string): Promise<unknown> {
  const group = await store.get({ orgId, resourceType: "Group", id, members: true });
  return { version: group?.version, lastModified: group?.lastModified, members: group?.members?.map((member) => member.value) };
}

const memberId = fc.constantFrom<string>(...USERS, ...NOBODY);
const delta: fc.Arbitrary<Delta> = fc.record({
  add: fc.uniqueArray(memberId, { maxLength: 3 }),
  remove: fc.uniqueArray(memberId, { maxLength: 3 }),
  unknownMembers: fc.constantFrom<UnknownMemberPolicy>("ignore", "ignore", "ignore", "reject"),
});

function describeBatches(name: string, open: () => Promise<SqlStore>): void {
  describe(`member deltas of one group at once, on ${name}`, () => {
    let store: SqlStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(() => store.close());

    it("answer each request, and leave the group, as the same requests one at a time in that order", async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.subarray([...USERS]), fc.array(delta, { minLength: 1, maxLength: 12 }), async (initial, deltas) => {
          const orgId = `batches-${run++}`;
          await seed(store, orgId, ["together", "alone"], initial);
          const togetherEvents = new Map<string, readonly OutboxEvent[]>();
          const aloneEvents = new Map<string, readonly OutboxEvent[]>();
          // All at once: the first runs alone, the others wait for it and go as one batch.
          const together = await Promise.all(
            deltas.map((d, index) =>
              outcome(store.update(requestOf(orgId, "together", d, index, recording("together", `r${index}`, togetherEvents)))),
            ),
          );
          const alone: unknown[] = [];
          for (const [index, d] of deltas.entries()) {
            alone.push(await outcome(store.update(requestOf(orgId, "alone", d, index, recording("alone", `r${index}`, aloneEvents)))));
          }
          expect(together).toEqual(alone);
          expect(await membersAndVersion(store, orgId, "together")).toEqual(await membersAndVersion(store, orgId, "alone"));
          const eventsOf = (events: Map<string, readonly OutboxEvent[]>) =>
            [...events.entries()]
              .map(([label, list]) => [label, list.map((event) => [event.jti.replace(/^[a-z]+:/, ""), event.memberIds])])
              .sort();
          expect(eventsOf(togetherEvents)).toEqual(eventsOf(aloneEvents));
        }),
        { numRuns: 25 },
      );
    });

    it("a request refused alone is refused alone: the others of its batch land", async () => {
      const orgId = "refusal";
      await seed(store, orgId, ["g"], ["u0"]);
      const results = await Promise.all([
        outcome(store.update(requestOf(orgId, "g", { add: ["u1"], remove: [], unknownMembers: "ignore" }, 1))),
        outcome(store.update(requestOf(orgId, "g", { add: ["u2"], remove: ["u0"], unknownMembers: "ignore" }, 2))),
        outcome(store.update(requestOf(orgId, "g", { add: ["ghost-1"], remove: [], unknownMembers: "reject" }, 3))),
        outcome(store.update(requestOf(orgId, "g", { add: ["u3"], remove: [], unknownMembers: "ignore" }, 4))),
      ]);
      expect(results[2]).toMatchObject({ status: 400 });
      expect(results.filter((result) => typeof result === "object" && result !== null && "version" in result)).toHaveLength(3);
      expect(await membersAndVersion(store, orgId, "g")).toMatchObject({ version: "4", members: ["u1", "u2", "u3"] });
    });

    it("a group that is not there is not found for every request of the batch, and nothing is written", async () => {
      const orgId = "missing";
      await seed(store, orgId, [], []);
      const results = await Promise.all(
        [0, 1, 2].map((index) =>
          outcome(store.update(requestOf(orgId, "no-such-group", { add: ["u1"], remove: [], unknownMembers: "ignore" }, index))),
        ),
      );
      expect(results).toEqual(["not found", "not found", "not found"]);
    });

    it("batches stay within one organization: the same group id in another organization is untouched", async () => {
      await seed(store, "org-a", ["shared-id"], []);
      await seed(store, "org-b", ["shared-id"], []);
      await Promise.all([
        store.update(requestOf("org-a", "shared-id", { add: ["u1"], remove: [], unknownMembers: "ignore" }, 1)),
        store.update(requestOf("org-b", "shared-id", { add: ["u2"], remove: [], unknownMembers: "ignore" }, 1)),
        store.update(requestOf("org-a", "shared-id", { add: ["u3"], remove: [], unknownMembers: "ignore" }, 2)),
      ]);
      expect(await membersAndVersion(store, "org-a", "shared-id")).toMatchObject({ members: ["u1", "u3"] });
      expect(await membersAndVersion(store, "org-b", "shared-id")).toMatchObject({ version: "2", members: ["u2"] });
    });
  });
}

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), "scimkit-member-batches-"));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;

describeBatches("SQLite", () => sqlStore({ sqlite: join(directory, `scim-${files++}.db`) }));

describe("on the SQLite writer thread", () => {
  it("twenty concurrent removals from one group take two write transactions, not twenty", async () => {
    const store = await sqlStore({ sqlite: join(directory, `scim-${files++}.db`) });
    try {
      await seed(store, "acme", ["g"], USERS);
      let results: (WriteResult | undefined)[] = [];
      const sent = await messagesSentDuring(async () => {
        results = await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            store.update(
              requestOf("acme", "g", { add: [], remove: [USERS[index % USERS.length] as string], unknownMembers: "ignore" }, index),
            ),
          ),
        );
      });
      const begins = sent.flat().filter((text) => text === "begin immediate");
      expect(begins).toHaveLength(2);
      // Six members, each removed once: six new versions, the other fourteen no change.
      expect(results.map((result) => result?.membership?.removed.length)).toEqual(results.map((_, index) => (index < 6 ? 1 : 0)));
      expect(await membersAndVersion(store, "acme", "g")).toMatchObject({ version: "7", members: [] });
    } finally {
      await store.close();
    }
  });
});

describePostgres("with PostgreSQL", (url) => {
  let schema: TestSchema;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(() => schema.drop());
  describeBatches("PostgreSQL", () => sqlStore({ postgres: url, schema: schema.name }));
});
