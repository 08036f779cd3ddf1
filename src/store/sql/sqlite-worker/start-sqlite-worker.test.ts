/**
 * The connections in worker threads one by one: a thread that dies fails the statement in flight
 * and every later one at once (a 503, never a hang), and a file's pool replaces it while a
 * private database's does not; opening a file that cannot be opened fails the start; a closed
 * connection's thread serves the next one.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isScimError } from "../../../errors.js";
import { parkSqliteThread, takeSqliteThread, type SqliteThread } from "./idle-sqlite-threads.js";
import { startSqliteWorker, type SqliteWorker } from "./start-sqlite-worker.js";
import { createWorkerPool } from "./worker-pool.js";

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), "scimkit-sqlite-worker-"));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

// Calls scimkit_lower, a JavaScript function, for every row, so terminating the thread interrupts it.
const ENDLESS = "with recursive n(i) as (select 1 union all select i + 1 from n) select count(scimkit_lower(i)) from n";

/** A thread the next `startSqliteWorker` will open its connection on, so the test can end it. */
function nextThread(): SqliteThread {
  const thread = takeSqliteThread();
  parkSqliteThread(thread);
  return thread;
}

const statusOf = (error: unknown): number | undefined => (isScimError(error) ? error.status : undefined);

describe("a worker thread that dies", () => {
  it("fails the statement in flight and every later one with a 503", async () => {
    const thread = nextThread();
    const worker = await startSqliteWorker({ path: ":memory:", role: "sole" });
    expect(await worker.execute("select 1 as one", [])).toMatchObject({ kind: "done", rows: [{ one: 1 }] });
    const inFlight = worker.execute(ENDLESS, []).catch((error: unknown) => error);
    await thread.worker.terminate();
    expect(statusOf(await inFlight)).toBe(503);
    expect(worker.alive).toBe(false);
    expect(statusOf(await worker.execute("select 1", []).catch((error: unknown) => error))).toBe(503);
    await worker.close();
  });

  it("is replaced in a file's pool, while a private database's pool keeps failing rather than answer from an empty database", async () => {
    const file = join(directory, "replaced.db");
    const writers = createWorkerPool({ start: () => startSqliteWorker({ path: file, role: "writer" }), size: 1, replaceDead: true });
    const sole = createWorkerPool({ start: () => startSqliteWorker({ path: ":memory:", role: "sole" }), size: 1, replaceDead: false });
    try {
      const killAndRelease = async (pool: typeof writers): Promise<SqliteWorker> => {
        const thread = nextThread();
        const worker = await pool.acquire();
        await worker.execute("create table if not exists t (x)", []);
        await thread.worker.terminate();
        pool.release(worker);
        return worker;
      };

      const dead = await killAndRelease(writers);
      const replacement = await writers.acquire();
      expect(replacement).not.toBe(dead);
      expect(await replacement.execute("select count(*) as n from t", [])).toMatchObject({ kind: "done", rows: [{ n: 0 }] });
      writers.release(replacement);

      const deadSole = await killAndRelease(sole);
      const same = await sole.acquire();
      expect(same).toBe(deadSole);
      expect(statusOf(await same.execute("select count(*) from t", []).catch((error: unknown) => error))).toBe(503);
      sole.release(same);
    } finally {
      await Promise.all([writers.close(), sole.close()]);
    }
  });
});

describe("opening", () => {
  it("rejects with better-sqlite3's error when the file cannot be opened", async () => {
    const started = startSqliteWorker({ path: join(directory, "no-such-directory", "scim.db"), role: "writer" });
    await expect(started).rejects.toMatchObject({ name: "TypeError", message: expect.stringMatching(/directory does not exist/) });
  });

  it("opens a reader only on a file that exists, read-only", async () => {
    const file = join(directory, "reader.db");
    await expect(startSqliteWorker({ path: file, role: "reader" })).rejects.toMatchObject({ code: "SQLITE_CANTOPEN" });
    const writer = await startSqliteWorker({ path: file, role: "writer" });
    const reader = await startSqliteWorker({ path: file, role: "reader" });
    try {
      expect(writer.journalMode).toBe("wal");
      await writer.execute("create table t (x)", []);
      await writer.execute("insert into t values (?)", [1]);
      expect(await reader.execute("select x from t", [])).toMatchObject({ kind: "done", rows: [{ x: 1 }] });
      // Outside a transaction a reader sends a write back; inside one, SQLite refuses it.
      expect(await reader.execute("insert into t values (2)", [])).toMatchObject({ kind: "bounced" });
      await reader.execute("begin", []);
      expect(reader.inTransaction).toBe(true);
      await expect(reader.execute("insert into t values (2)", [])).rejects.toMatchObject({ code: "SQLITE_READONLY" });
      await reader.execute("rollback", []);
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  it("reuses the thread of a closed connection for the next one", async () => {
    const thread = nextThread();
    const first = await startSqliteWorker({ path: ":memory:", role: "sole" });
    await first.execute("create table t (x)", []);
    await first.close();
    expect(first.alive).toBe(false);
    expect(thread.listener).toBeUndefined();
    // The same thread (it hears for the new connection), a new private database: nothing of the first is left.
    const second = await startSqliteWorker({ path: ":memory:", role: "sole" });
    try {
      expect(thread.alive).toBe(true);
      expect(thread.listener).toBeDefined();
      expect(await second.execute("select count(*) as n from sqlite_schema", [])).toMatchObject({ rows: [{ n: 0 }] });
    } finally {
      await second.close();
    }
  });
});
