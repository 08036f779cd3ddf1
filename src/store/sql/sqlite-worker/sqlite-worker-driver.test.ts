/**
 * The SQLite store in worker threads, on a file: a heavy read of one organization leaves other
 * organizations' requests and the event loop free; the readers see every committed write at once
 * and a read transaction one snapshot; errors keep their SQLite codes; misrouted writes still
 * land; two stores migrate one file together; a closed store lets its process exit. Real
 * better-sqlite3, real threads, files in a temporary directory; ordering is asserted, never time.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { compiledSource } from "../../../../test/compiled-source.fixture.js";
import { isScimError } from "../../../errors.js";
import { compileFilter } from "../../../scim/filter/resolve-filter.js";
import { createSchemaRegistry } from "../../../scim/schema/schema-registry.js";
import { sqliteDialect } from "../dialects/sqlite-dialect.js";
import { loadBetterSqlite3 } from "../load-better-sqlite3.js";
import { sqlMigrations } from "../migrations/sql-migrations.js";
import { sqlStore, type SqlStore } from "../sql-store.js";

const NOW = "2024-01-01T00:00:00.000Z";
const users = createSchemaRegistry().resourceType("User")!;
const run = promisify(execFile);

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), "scimkit-sqlite-threads-"));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

let files = 0;
const freshFile = (): string => join(directory, `scim-${files++}.db`);

async function createUser(store: SqlStore, orgId: string, id: string): Promise<void> {
  await store.create({
    orgId,
    resourceType: "User",
    id,
    now: NOW,
    attributes: { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: id },
    uniqueKeys: [{ attribute: "userName", value: id }],
    unknownMembers: "ignore",
  });
}

const get = (store: SqlStore, orgId: string, id: string) => store.get({ orgId, resourceType: "User", id, members: false });

describe("a heavy read of one organization", () => {
  const COUNT = 20_000;
  let file: string;

  beforeAll(async () => {
    file = freshFile();
    const store = await sqlStore({ sqlite: file });
    try {
      await store.db.transaction().execute(async (trx) => {
        for (let start = 0; start < COUNT; start += 1000) {
          const rows = Array.from({ length: 1000 }, (_, offset) => {
            const index = start + offset;
            const attributes = {
              userName: `user${index}`,
              name: { familyName: `Family${index}`, givenName: "A" },
              emails: [{ value: `user${index}@example.com`, type: "work" }],
            };
            return {
              org_id: "heavy",
              id: `u${index}`,
              resource_type: "User",
              version: 1,
              created: NOW,
              last_modified: NOW,
              external_id: null,
              attributes: JSON.stringify(attributes),
              member_seq: null,
            };
          });
          await trx.insertInto("scimkit_resources").values(rows).execute();
        }
      });
      await createUser(store, "light", "ann");
    } finally {
      await store.close();
    }
  }, 120_000);

  // A scan of every user of "heavy" (no index answers `ew` or `pr`), counted, deep in the list.
  const heavyList = (store: SqlStore) => {
    const filter = compileFilter(users, 'name.familyName ew "z" or title pr or emails.value ew "9@example.com"');
    if (!filter.ok) throw new Error(filter.error.detail);
    return store.list({
      orgId: "heavy",
      resourceType: "User",
      filter: filter.value,
      page: { kind: "index", startIndex: 1500, count: 100 },
      members: false,
    });
  };

  /**
   * Starts the heavy list and, at the event loop's next turn, a cheap get of another
   * organization; says in which order they finished.
   */
  async function race(store: SqlStore): Promise<string[]> {
    const order: string[] = [];
    const heavy = heavyList(store).then((page) => {
      order.push("heavy");
      expect(page.totalResults).toBe(COUNT / 10);
    });
    const light = new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        order.push("loop turned");
        get(store, "light", "ann")
          .then((user) => {
            order.push("light");
            expect(user?.id).toBe("ann");
          })
          .then(resolve, reject);
      });
    });
    await Promise.all([heavy, light]);
    return order;
  }

  it("in worker threads (the default) holds up neither another organization's get nor the event loop", { timeout: 60_000 }, async () => {
    const store = await sqlStore({ sqlite: file });
    try {
      // Readers start as concurrent reads need them: start two, so the race measures reading, not starting a thread.
      await Promise.all([get(store, "light", "ann"), get(store, "light", "ann")]);
      expect(await race(store)).toEqual(["loop turned", "light", "heavy"]);
    } finally {
      await store.close();
    }
  });

  it("on the event loop (threads: false) makes the same get wait for it, as the option warns", { timeout: 60_000 }, async () => {
    const store = await sqlStore({ sqlite: file, threads: false });
    try {
      expect(await race(store)).toEqual(["heavy", "loop turned", "light"]);
    } finally {
      await store.close();
    }
  });
});

describe("readers and the writer", () => {
  let store: SqlStore;
  beforeAll(async () => {
    store = await sqlStore({ sqlite: freshFile() });
  });
  afterAll(() => store.close());

  it("runs in WAL with foreign keys on every connection", async () => {
    const [journal, foreignKeys] = await Promise.all([
      sql<{ journal_mode: string }>`pragma journal_mode`.execute(store.db),
      sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(store.db),
    ]);
    expect(journal.rows).toEqual([{ journal_mode: "wal" }]);
    expect(foreignKeys.rows).toEqual([{ foreign_keys: 1 }]);
  });

  it("reads a committed write at once, whichever reader answers", async () => {
    const orgId = "ryw";
    // Many at once, so several readers take part.
    await Promise.all(
      Array.from({ length: 24 }, async (_, index) => {
        const id = `u${index}`;
        await createUser(store, orgId, id);
        const [first, second] = await Promise.all([get(store, orgId, id), get(store, orgId, id)]);
        expect(first?.id).toBe(id);
        expect(second?.id).toBe(id);
      }),
    );
    const page = await store.list({ orgId, resourceType: "User", page: { kind: "index", startIndex: 1, count: 100 }, members: false });
    expect(page.totalResults).toBe(24);
  });

  it("gives a read transaction one snapshot while a write commits beside it", async () => {
    const orgId = "snapshot";
    await createUser(store, orgId, "before");
    const count = async (db: SqlStore["db"]): Promise<number> => {
      const counted = await db
        .selectFrom("scimkit_resources")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("org_id", "=", orgId)
        .executeTakeFirstOrThrow();
      return Number(counted.n);
    };
    const seen = await sqliteDialect.readTransaction(store.db, async (trx) => {
      const first = await count(trx);
      // On one connection this would wait for the read transaction forever; the writer is another.
      await createUser(store, orgId, "during");
      expect(await get(store, orgId, "during")).toBeDefined();
      return [first, await count(trx)];
    });
    expect(seen).toEqual([1, 1]);
    expect(await count(store.db)).toBe(2);
  });

  it("keeps SQLite's error code across the thread boundary, and the store's 409 for a unique clash", async () => {
    const row = {
      org_id: "codes",
      id: "dup",
      resource_type: "User",
      version: 1,
      created: NOW,
      last_modified: NOW,
      external_id: null,
      attributes: "{}",
      member_seq: null,
    };
    await store.db.insertInto("scimkit_resources").values(row).execute();
    const clash = await store.db
      .insertInto("scimkit_resources")
      .values(row)
      .execute()
      .catch((error: unknown) => error);
    expect(clash).toMatchObject({ name: "SqliteError", code: "SQLITE_CONSTRAINT_PRIMARYKEY" });
    expect((clash as Error).message).toMatch(/UNIQUE constraint failed/);

    await createUser(store, "codes", "ann");
    const duplicate = await store
      .create({
        orgId: "codes",
        resourceType: "User",
        id: "ann-2",
        now: NOW,
        attributes: { userName: "ann" },
        uniqueKeys: [{ attribute: "userName", value: "ann" }],
        unknownMembers: "ignore",
      })
      .catch((error: unknown) => error);
    expect(isScimError(duplicate) && duplicate.status).toBe(409);

    const syntax = await sql`selec 1`.execute(store.db).catch((error: unknown) => error);
    expect(syntax).toMatchObject({ name: "SqliteError", code: "SQLITE_ERROR" });
  });

  it("refuses a write inside a read transaction (a reader's connection is read-only) and rolls it back", async () => {
    const refused = await sqliteDialect
      .readTransaction(store.db, (trx) =>
        sql`insert into scimkit_migrations (version, name, applied_at) values (999, 'x', ${NOW})`.execute(trx),
      )
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "SQLITE_READONLY" });
    expect(await store.db.selectFrom("scimkit_migrations").select("version").where("version", "=", 999).execute()).toEqual([]);
  });

  it("runs a write that looks like a read on the writer (the reader sends it back)", async () => {
    // `pragma user_version = n` starts like a read; SQLite knows it writes.
    await sql`pragma user_version = 7`.execute(store.db);
    expect((await sql<{ user_version: number }>`pragma user_version`.execute(store.db)).rows).toEqual([{ user_version: 7 }]);
  });
});

describe("threads.readers", () => {
  it("0 makes the writer answer reads too; a count that is not a whole number ≥ 0 is refused", async () => {
    const store = await sqlStore({ sqlite: freshFile(), threads: { readers: 0 } });
    try {
      await createUser(store, "acme", "ann");
      const [first, second] = await Promise.all([get(store, "acme", "ann"), get(store, "acme", "ann")]);
      expect([first?.id, second?.id]).toEqual(["ann", "ann"]);
    } finally {
      await store.close();
    }
    await expect(sqlStore({ sqlite: freshFile(), threads: { readers: -1 } })).rejects.toThrow(RangeError);
    await expect(sqlStore({ sqlite: freshFile(), threads: { readers: 1.5 } })).rejects.toThrow(/whole number/);
  });
});

describe("two stores on one file", () => {
  const opened: SqlStore[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  it("migrate it together: each version applied once, both stores usable", { timeout: 30_000 }, async () => {
    const file = freshFile();
    opened.push(...(await Promise.all([sqlStore({ sqlite: file }), sqlStore({ sqlite: file })])));
    const [one, two] = opened as [SqlStore, SqlStore];
    const versions = await one.db.selectFrom("scimkit_migrations").select("version").orderBy("version").execute();
    expect(versions.map((row) => Number(row.version))).toEqual(sqlMigrations.map((migration) => migration.version));
    expect(await two.migrate()).toEqual([]);
    await createUser(one, "acme", "ann");
    expect((await get(two, "acme", "ann"))?.id).toBe("ann");
  });

  // On a loaded machine the first store's migrations can hold the write lock longer than SQLite's
  // busy timeout (better-sqlite3's 5 s): the second store must wait its turn, not fail to open
  // with "database is locked" (hosts started together on one file: SCIMKIT_WORKERS, a restart).
  it("waits for another connection's write lock held past the busy timeout, then migrates", { timeout: 60_000 }, async () => {
    const file = freshFile();
    const Database = await loadBetterSqlite3();
    const holder = new Database(file);
    holder.pragma("journal_mode = WAL");
    holder.exec("begin immediate");
    const opening = sqlStore({ sqlite: file });
    let ready = false;
    void opening.then(() => {
      ready = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(ready).toBe(false);
    holder.exec("commit");
    holder.close();
    const store = await opening;
    opened.push(store);
    const versions = await store.db.selectFrom("scimkit_migrations").select("version").orderBy("version").execute();
    expect(versions.map((row) => Number(row.version))).toEqual(sqlMigrations.map((migration) => migration.version));
  });
});

describe("closing", () => {
  const script = compiledSource("src/store/sql/sqlite-worker/sqlite-store-exit.fixture.ts");
  const runFixture = async (file: string, mode: "close" | "leave-open" | "forget"): Promise<unknown> => {
    const { stdout } = await run(process.execPath, ["--expose-gc", script, file, mode], { timeout: 30_000 });
    return JSON.parse(stdout);
  };
  const readBack = async (file: string): Promise<string | undefined> => {
    const reopened = await sqlStore({ sqlite: file });
    try {
      return (await get(reopened, "acme", "ann"))?.id;
    } finally {
      await reopened.close();
    }
  };

  it("close() merges the write-ahead log, and the process then exits by itself", { timeout: 40_000 }, async () => {
    const file = freshFile();
    expect(await runFixture(file, "close")).toEqual({ read: "ann", wal: false });
    expect(await readBack(file)).toBe("ann");
  });

  it("an idle store left open does not keep its process alive, and loses no committed write", { timeout: 40_000 }, async () => {
    const file = freshFile();
    expect(await runFixture(file, "leave-open")).toEqual({ read: "ann", wal: true });
    expect(await readBack(file)).toBe("ann");
  });

  it("a store dropped without close() closes its connections when it is collected", { timeout: 40_000 }, async () => {
    const file = freshFile();
    expect(await runFixture(file, "forget")).toEqual({ read: "ann", wal: false });
    expect(await readBack(file)).toBe("ann");
  });

  it("fails statements after close() instead of waiting for them", async () => {
    const store = await sqlStore({ sqlite: freshFile() });
    await store.close();
    await expect(get(store, "acme", "ann")).rejects.toThrow();
  });
});
