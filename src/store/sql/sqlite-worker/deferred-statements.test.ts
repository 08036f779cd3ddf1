/**
 * Statements held back on the SQLite writer (`runDeferrable`, issue 29 point 3): a create is one
 * message to the writer thread; a statement held back that fails, or changes too few rows, fails
 * its transaction with nothing of it kept, and the statements after it never run; a connection that
 * runs statements at once (`threads: false`) checks the same expectation itself. Real
 * better-sqlite3 in real threads; the messages are counted on their way, not replaced.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { isScimError } from "../../../errors.js";
import { uniquenessError } from "../../store-errors.js";
import { runDeferrable } from "../deferred-statement.js";
import { sqliteDialect } from "../dialects/sqlite-dialect.js";
import { sqlStore, type SqlStore } from "../sql-store.js";
import type { WorkerRequest } from "./worker-messages.js";

const NOW = "2024-01-01T00:00:00.000Z";

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), "scimkit-deferred-"));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
});

let files = 0;
const freshFile = (): string => join(directory, `scim-${files++}.db`);

const userRequest = (orgId: string, id: string, userName: string) => ({
  orgId,
  resourceType: "User",
  id,
  now: NOW,
  attributes: {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
    userName,
    emails: [{ value: `${userName}@example.com`, type: "work", primary: true }],
  },
  uniqueKeys: [{ attribute: "userName", value: userName }],
  unknownMembers: "ignore" as const,
});

const row = (orgId: string, id: string) => ({
  org_id: orgId,
  id,
  resource_type: "User",
  version: 1,
  created: NOW,
  last_modified: NOW,
  external_id: null,
  attributes: "{}",
  member_seq: null,
});

/** The statements posted to worker threads while `work` runs, one entry per message. */
async function messagesDuring(work: () => Promise<unknown>): Promise<(readonly string[])[]> {
  const posted = vi.spyOn(Worker.prototype, "postMessage");
  await work();
  const requests = posted.mock.calls.map(([request]) => request as WorkerRequest);
  posted.mockRestore();
  return requests.flatMap((request) =>
    request.kind === "execute" ? [[...(request.ahead ?? []).map((ahead) => ahead.sql), request.sql]] : [],
  );
}

async function countRows(store: SqlStore, orgId: string): Promise<number> {
  const counted = await store.db
    .selectFrom("scimkit_resources")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("org_id", "=", orgId)
    .executeTakeFirstOrThrow();
  return Number(counted.n);
}

describe("on the SQLite writer thread", () => {
  let store: SqlStore;
  beforeAll(async () => {
    store = await sqlStore({ sqlite: freshFile() });
  });
  afterAll(() => store.close());

  it("a create — its row, its e-mail search rows, its list generation, its unique key, the commit — is one message", async () => {
    const messages = await messagesDuring(() => store.create(userRequest("one", "u1", "ann")));
    expect(messages).toHaveLength(1);
    const [statements] = messages as [readonly string[]];
    expect(statements[0]).toBe("begin immediate");
    expect(statements.at(-1)).toBe("commit");
    expect(statements.some((text) => text.includes("scimkit_unique_keys"))).toBe(true);
    expect(statements.some((text) => text.includes("scimkit_list_generations"))).toBe(true);
    expect(await store.get({ orgId: "one", resourceType: "User", id: "u1", members: false })).toMatchObject({ id: "u1", version: "1" });
  });

  it("an update reads its row, then sends its writes — the row, its unique keys, its e-mail search rows — with the commit: two messages", async () => {
    await store.create(userRequest("upd", "u1", "bob"));
    const messages = await messagesDuring(() =>
      store.update({
        ...userRequest("upd", "u1", "bobby"),
        attributes: { ...userRequest("upd", "u1", "bobby").attributes, active: false },
        members: false,
      }),
    );
    expect(messages).toHaveLength(2);
    expect(messages[1]?.at(-1)).toBe("commit");
    expect(await store.get({ orgId: "upd", resourceType: "User", id: "u1", members: false })).toMatchObject({
      version: "2",
      attributes: { userName: "bobby", active: false },
    });
    expect(messages[0]?.at(-1)).toContain("held_keys");
    // Only `active` changes: the keys it holds stay as they are, without a statement.
    const quiet = await messagesDuring(() => store.update({ ...userRequest("upd", "u1", "bobby"), members: false }));
    expect(quiet).toHaveLength(2);
    expect(quiet.flat().filter((text) => text.includes("scimkit_unique_keys") && !text.includes("held_keys"))).toEqual([]);
    // The old key went with the first update, the new one holds.
    await store.create(userRequest("upd", "u2", "bob"));
    const clash = await store.create(userRequest("upd", "u3", "bobby")).catch((error: unknown) => error);
    expect(isScimError(clash) && clash.status).toBe(409);
  });

  it("a unique key held elsewhere fails the create with 409 naming its attribute, keeps nothing of it, and the next write goes through", async () => {
    await store.create(userRequest("clash", "u1", "cy"));
    const clash = await store.create(userRequest("clash", "u2", "cy")).catch((error: unknown) => error);
    expect(isScimError(clash) && { status: clash.status, scimType: clash.scimType, detail: clash.detail }).toMatchObject({
      status: 409,
      scimType: "uniqueness",
      detail: expect.stringContaining("userName"),
    });
    expect(await countRows(store, "clash")).toBe(1);
    expect(await store.get({ orgId: "clash", resourceType: "User", id: "u2", members: false })).toBeUndefined();
    await store.create(userRequest("clash", "u3", "dee"));
    expect(await countRows(store, "clash")).toBe(2);
  });

  it("a statement held back that fails fails its transaction with its SQLite error; those after it never run, nothing is kept", async () => {
    const failed = await sqliteDialect
      .writeTransaction(store.db, async (trx) => {
        await runDeferrable(trx, trx.insertInto("scimkit_resources").values(row("fail", "a")).compile());
        // The same primary key: fails in the writer, after the first insert ran.
        await runDeferrable(trx, trx.insertInto("scimkit_resources").values(row("fail", "a")).compile());
        await runDeferrable(trx, trx.insertInto("scimkit_resources").values(row("fail", "b")).compile());
        return "committed";
      })
      .catch((error: unknown) => error);
    expect(failed).toMatchObject({ name: "SqliteError", code: "SQLITE_CONSTRAINT_PRIMARYKEY" });
    expect(await countRows(store, "fail")).toBe(0);
  });

  it("a statement held back that changes too few rows fails its transaction with the error it names", async () => {
    const failed = await sqliteDialect
      .writeTransaction(store.db, async (trx) => {
        await runDeferrable(trx, trx.insertInto("scimkit_resources").values(row("short", "a")).compile());
        await runDeferrable(
          trx,
          trx.updateTable("scimkit_resources").set({ version: 2 }).where("org_id", "=", "short").where("id", "=", "none").compile(),
          {
            atLeast: 1,
            otherwise: () => uniquenessError("externalId"),
          },
        );
        await runDeferrable(trx, trx.insertInto("scimkit_resources").values(row("short", "b")).compile());
      })
      .catch((error: unknown) => error);
    expect(isScimError(failed) && failed.status).toBe(409);
    expect(await countRows(store, "short")).toBe(0);
  });

  it("statements held back by a caller that reads no result before it lets the connection go still run", async () => {
    await store.db.connection().execute(async (connection) => {
      await runDeferrable(connection, connection.insertInto("scimkit_resources").values(row("tail", "a")).compile());
    });
    expect(await countRows(store, "tail")).toBe(1);
  });

  it("a read after writes held back in the same transaction sees them", async () => {
    const seen = await sqliteDialect.writeTransaction(store.db, async (trx) => {
      await runDeferrable(trx, trx.insertInto("scimkit_resources").values(row("see", "a")).compile());
      const { rows } = await sql<{ n: number }>`select count(*) as n from scimkit_resources where org_id = ${"see"}`.execute(trx);
      return rows[0]?.n;
    });
    expect(seen).toBe(1);
  });
});

describe("on a connection that runs each statement at once (threads: false)", () => {
  it("the expectation is checked where the statement ran: the same 409, nothing kept", async () => {
    const store = await sqlStore({ sqlite: freshFile(), threads: false });
    try {
      await store.create(userRequest("direct", "u1", "eve"));
      const clash = await store.create(userRequest("direct", "u2", "eve")).catch((error: unknown) => error);
      expect(isScimError(clash) && clash.status).toBe(409);
      expect(await countRows(store, "direct")).toBe(1);
    } finally {
      await store.close();
    }
  });
});
