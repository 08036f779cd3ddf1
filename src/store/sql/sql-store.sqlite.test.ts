import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { v7 } from "uuid";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { compiledSource } from "../../../test/compiled-source.fixture.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import { sqliteDialect } from "./dialects/sqlite-dialect.js";
import { registerSqliteFunctions } from "./filter/register-sqlite-functions.js";
import type { WriterTask } from "./sqlite-file-writer.fixture.js";
import { sqlStoreBehaviour } from "./sql-store-behaviour.fixture.js";
import { sqlStore, type SqlStore } from "./sql-store.js";
import type { SqlStoreDatabase } from "./sql-tables.js";

const user = (userName: string): ScimObject => ({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName });
const group = (displayName: string): ScimObject => ({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName });
const NOW = "2024-01-01T00:00:00.000Z";
const run = promisify(execFile);

async function createUsers(store: SqlStore, orgId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const id = v7();
    await store.create({
      orgId,
      resourceType: "User",
      id,
      now: NOW,
      attributes: user(`u${index}`),
      uniqueKeys: [{ attribute: "userName", value: `u${index}` }],
      unknownMembers: "ignore",
    });
    ids.push(id);
  }
  return ids;
}

async function createGroup(store: SqlStore, orgId: string, members?: readonly string[]): Promise<string> {
  const id = v7();
  await store.create({
    orgId,
    resourceType: "Group",
    id,
    now: NOW,
    attributes: group(`g-${id}`),
    uniqueKeys: [{ attribute: "displayName", value: `g-${id}` }],
    ...(members ? { members } : {}),
    unknownMembers: "ignore",
  });
  return id;
}

function memberIds(store: SqlStore, orgId: string, id: string): Promise<string[] | undefined> {
  return store.get({ orgId, resourceType: "Group", id, members: true }).then((read) => read?.members?.map((member) => member.value));
}

/** Runs `sqlite-file-writer.fixture.ts` in a process of its own and resolves with what it added. */
async function runWriter(task: WriterTask): Promise<unknown> {
  const script = compiledSource("src/store/sql/sqlite-file-writer.fixture.ts");
  const { stdout } = await run(process.execPath, [script, JSON.stringify(task)]);
  return JSON.parse(stdout);
}

/** A store over a Kysely instance of the test's own, recording every statement it runs. */
async function loggedStore(
  dialect = sqliteDialect,
): Promise<{ readonly store: SqlStore; readonly statements: string[]; readonly database: Database.Database }> {
  const database = new Database(":memory:");
  registerSqliteFunctions(database);
  const statements: string[] = [];
  const kysely = new Kysely<SqlStoreDatabase>({
    dialect: new SqliteDialect({ database }),
    log: (event) => void statements.push(event.query.sql),
  });
  const store = await sqlStore({ kysely, dialect });
  return { store, statements, database };
}

describe("sql store on SQLite", () => {
  sqlStoreBehaviour({ open: () => sqlStore({ sqlite: ":memory:" }), release: (store) => store.close() });

  describe("a file, in writer and reader threads", () => {
    // Tests use random organizations, so one store serves them all.
    const fileDirectory = mkdtempSync(join(tmpdir(), "scimkit-sqlite-"));
    let shared: Promise<SqlStore> | undefined;
    sqlStoreBehaviour({ open: () => (shared ??= sqlStore({ sqlite: join(fileDirectory, "scim.db") })), release: async () => {} });
    afterAll(async () => {
      await (await shared)?.close();
      rmSync(fileDirectory, { recursive: true, force: true });
    });
  });

  describe("in a file", () => {
    let directory: string | undefined;
    afterEach(() => {
      if (directory) rmSync(directory, { recursive: true, force: true });
      directory = undefined;
    });

    it("keeps its data across closing and reopening, and does not migrate twice", async () => {
      directory = mkdtempSync(join(tmpdir(), "scimkit-sqlite-"));
      const path = join(directory, "scim.db");
      const first = await sqlStore({ sqlite: path });
      const [alice = ""] = await createUsers(first, "acme", 1);
      const groupId = await createGroup(first, "acme", [alice]);
      const { token } = await first.tokens.issue("acme");
      await first.close();
      await first.close();

      const second = await sqlStore({ sqlite: path });
      try {
        expect(await second.migrate()).toEqual([]);
        expect((await second.get({ orgId: "acme", resourceType: "User", id: alice, members: false }))?.attributes).toEqual(user("u0"));
        expect(await memberIds(second, "acme", groupId)).toEqual([alice]);
        expect(await second.tokens.verify(token, "acme", { method: "GET", path: "/Users" })).not.toBeNull();
        const journal = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(second.db);
        expect(journal.rows[0]?.journal_mode).toBe("wal");
      } finally {
        await second.close();
      }
    });

    it("two processes on one file apply concurrent membership deltas without losing one", { timeout: 30_000 }, async () => {
      directory = mkdtempSync(join(tmpdir(), "scimkit-sqlite-"));
      const path = join(directory, "scim.db");
      const store = await sqlStore({ sqlite: path });
      try {
        const ids = await createUsers(store, "acme", 40);
        const groupId = await createGroup(store, "acme");
        // Real processes: better-sqlite3 blocks its thread while it waits for the file's write lock,
        // which a second connection in this same thread could never release.
        const halves = [ids.filter((_, index) => index % 2 === 0), ids.filter((_, index) => index % 2 === 1)];
        const added = await Promise.all(halves.map((half) => runWriter({ path, orgId: "acme", groupId, ids: half })));
        expect(added).toEqual(halves.map((half) => half.map((id) => [id])));
        expect((await memberIds(store, "acme", groupId))?.sort()).toEqual([...ids].sort());
        const read = await store.get({ orgId: "acme", resourceType: "Group", id: groupId, members: false });
        expect(read?.version).toBe(String(1 + ids.length));
      } finally {
        await store.close();
      }
    });
  });

  it("turns foreign keys on, so member rows cascade with their resources", async () => {
    const store = await sqlStore({ sqlite: ":memory:" });
    try {
      const result = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(store.db);
      expect(result.rows[0]?.foreign_keys).toBe(1);
    } finally {
      await store.close();
    }
  });

  it("reads no member row for members: false, and only the named ids for a delta", async () => {
    const { store, statements } = await loggedStore();
    try {
      const ids = await createUsers(store, "acme", 5);
      const groupId = await createGroup(store, "acme", ids.slice(0, 4));
      statements.length = 0;
      await store.get({ orgId: "acme", resourceType: "Group", id: groupId, members: false });
      await store.list({ orgId: "acme", resourceType: "Group", page: { kind: "index", startIndex: 1, count: 10 }, members: false });
      expect(statements.filter((statement) => statement.includes("scimkit_members"))).toEqual([]);

      statements.length = 0;
      await store.update({
        orgId: "acme",
        resourceType: "Group",
        id: groupId,
        now: NOW,
        membership: { kind: "delta", add: [ids[4] ?? ""], remove: [] },
        unknownMembers: "ignore",
        members: false,
      });
      const memberReads = statements.filter((statement) => /^select .*from "scimkit_members"/i.test(statement));
      // One read, of the one named id (`in (?)`), never the whole member list.
      expect(memberReads).toHaveLength(1);
      expect(memberReads[0]).toMatch(/"member_id" in \(\?\)/);
      expect(await memberIds(store, "acme", groupId)).toEqual(ids);
    } finally {
      await store.close();
    }
  });

  it("answers a list whose page tells its total with one statement, and counts only when it cannot", async () => {
    const { store, statements } = await loggedStore();
    try {
      await createUsers(store, "acme", 5);
      const list = (page: { readonly startIndex: number; readonly count: number }) =>
        store.list({ orgId: "acme", resourceType: "User", page: { kind: "index", ...page }, members: false });
      statements.length = 0;
      // A short first page: the total is its length (an IdP's userName lookup is one round trip).
      expect((await list({ startIndex: 1, count: 10 })).totalResults).toBe(5);
      // A short page past the start, and a full page, the empty page past the end: counted.
      expect((await list({ startIndex: 4, count: 10 })).totalResults).toBe(5);
      expect(statements.filter((statement) => /count\(\*\)/i.test(statement))).toHaveLength(0);
      expect((await list({ startIndex: 1, count: 5 })).totalResults).toBe(5);
      expect((await list({ startIndex: 9, count: 5 })).totalResults).toBe(5);
      expect(statements.filter((statement) => /count\(\*\)/i.test(statement))).toHaveLength(2);
      expect(statements.some((statement) => /^begin/i.test(statement))).toBe(false);
    } finally {
      await store.close();
    }
  });

  it("splits long id lists into statements within the dialect's parameter limit", async () => {
    const { store, statements } = await loggedStore({ ...sqliteDialect, maxParameters: 12 });
    try {
      const ids = await createUsers(store, "acme", 30);
      const groupId = await createGroup(store, "acme", ids.slice(0, 20));
      expect(await memberIds(store, "acme", groupId)).toEqual(ids.slice(0, 20));
      const replaced = await store.update({
        orgId: "acme",
        resourceType: "Group",
        id: groupId,
        now: NOW,
        membership: { kind: "replace", ids: ids.slice(10) },
        unknownMembers: "ignore",
        members: true,
      });
      expect(replaced?.membership?.removed).toEqual(ids.slice(0, 10));
      expect(replaced?.membership?.added).toEqual(ids.slice(20));
      expect(replaced?.resource.members?.map((member) => member.value)).toEqual(ids.slice(10));
      for (const statement of statements) expect((statement.match(/\?/g) ?? []).length, statement).toBeLessThanOrEqual(12);
    } finally {
      await store.close();
    }
  });

  it("refuses, at start, a connection of the caller without the filter's SQL functions", async () => {
    const database = new Database(":memory:");
    const kysely = new Kysely<SqlStoreDatabase>({ dialect: new SqliteDialect({ database }) });
    await expect(sqlStore({ kysely, dialect: sqliteDialect })).rejects.toThrow(/registerSqliteFunctions/);
    await kysely.destroy();
  });

  it("leaves a Kysely instance of the caller open on close()", async () => {
    const { store, database } = await loggedStore();
    await store.close();
    expect(database.open).toBe(true);
    database.close();
  });
});
