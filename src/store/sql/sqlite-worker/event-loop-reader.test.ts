/**
 * Point reads on the event loop (issue 29): a SQLite file store answers a read by id without a
 * message to any thread, sees every write committed before it, and keeps everything else — lists,
 * reads inside a transaction, a private database — on the threads.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlStore, type SqlStore } from "../sql-store.js";
import { openEventLoopReader } from "./event-loop-reader.js";
import { messagesSentDuring } from "./sent-statements.fixture.js";

const NOW = "2024-01-01T00:00:00.000Z";

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), "scimkit-event-loop-reader-"));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;

function createUser(store: SqlStore, id: string, userName: string) {
  return store.create({
    orgId: "acme",
    resourceType: "User",
    id,
    now: NOW,
    attributes: { userName },
    uniqueKeys: [{ attribute: "userName", value: userName }],
    unknownMembers: "ignore",
  });
}

/** The statements sent to threads while `work` runs. */
async function statementsSentDuring(work: () => Promise<unknown>): Promise<string[]> {
  return (await messagesSentDuring(work)).flat();
}

describe("point reads of a SQLite file store", () => {
  let store: SqlStore;
  beforeAll(async () => {
    store = await sqlStore({ sqlite: join(directory, `scim-${files++}.db`) });
    await createUser(store, "u1", "ada");
  });
  afterAll(() => store.close());

  it("a read by id sends nothing to a thread; a list does", async () => {
    let found: unknown;
    const byId = await statementsSentDuring(async () => {
      found = await store.get({ orgId: "acme", resourceType: "User", id: "u1", members: false });
    });
    expect(found).toMatchObject({ id: "u1", version: "1", attributes: { userName: "ada" } });
    expect(byId).toEqual([]);
    const listed = await statementsSentDuring(() =>
      store.list({ orgId: "acme", resourceType: "User", page: { kind: "index", startIndex: 1, count: 10 }, members: false }),
    );
    expect(listed.length).toBeGreaterThan(0);
  });

  it("sees every write committed before it, at once", async () => {
    for (let round = 2; round <= 30; round++) {
      await store.update({
        orgId: "acme",
        resourceType: "User",
        id: "u1",
        now: NOW,
        attributes: { userName: "ada", title: `round ${round}` },
        uniqueKeys: [{ attribute: "userName", value: "ada" }],
        unknownMembers: "ignore",
        members: false,
      });
      const read = await store.get({ orgId: "acme", resourceType: "User", id: "u1", members: false });
      expect(read).toMatchObject({ version: String(round), attributes: { title: `round ${round}` } });
    }
    expect(await store.get({ orgId: "acme", resourceType: "User", id: "nobody", members: false })).toBeUndefined();
  });
});

describe("where there is no event-loop reader", () => {
  it("a private database answers reads by id from its one thread", async () => {
    const store = await sqlStore({ sqlite: ":memory:" });
    try {
      await createUser(store, "u1", "bob");
      const sent = await statementsSentDuring(() => store.get({ orgId: "acme", resourceType: "User", id: "u1", members: false }));
      expect(sent).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it("the reader refuses a statement that would write, before it runs", async () => {
    const path = join(directory, `scim-${files++}.db`);
    const store = await sqlStore({ sqlite: path });
    const reader = await openEventLoopReader(path);
    try {
      expect(() => reader.read("delete from scimkit_resources", [])).toThrow();
      expect(reader.read("select count(*) as n from scimkit_resources", [])).toEqual([{ n: 0 }]);
    } finally {
      reader.close();
      await store.close();
    }
  });
});
