/**
 * The Kysely driver of the worker dialect: connections borrow worker threads — the writer, or one
 * of the readers — instead of sharing one better-sqlite3 connection on the main thread.
 */
import { CompiledQuery, type DatabaseConnection, type Driver, type TransactionSettings } from "kysely";
import { openEventLoopReader } from "./event-loop-reader.js";
import { isPrivateDatabase } from "./is-private-database.js";
import { sqliteWorkerConnection, type RolePools, type SqliteWorkerConnection } from "./sqlite-worker-connection.js";
import { startSqliteWorker } from "./start-sqlite-worker.js";
import { createWorkerPool } from "./worker-pool.js";

/** Where the driver's threads open the database, and how many may read at once. */
export interface SqliteWorkerDriverOptions {
  /** A SQLite file (created if missing), `":memory:"`, or `""` (a private temporary file). */
  readonly path: string;
  /** The most reader threads of a file database; they start as concurrent reads need them. */
  readonly readers: number;
}

async function closePools(pools: RolePools): Promise<void> {
  // Readers first: the writer, closing last, merges the write-ahead log into the file.
  pools.local?.close();
  await pools.readers.close();
  await pools.writer.close();
}

// A store dropped without close() (a test that never closes its store) gives its connections
// back when the driver is collected, as better-sqlite3 closes a collected Database: its threads
// are not left serving a database nobody can reach any more.
const forgotten = new FinalizationRegistry<RolePools>((pools) => void closePools(pools));

function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * The pools of `options`, the writer started. Apart from the driver, so that nothing the pools
 * hold reaches back to it (the finalization registry needs the driver collectable).
 */
async function openPools({ path, readers: size }: SqliteWorkerDriverOptions): Promise<RolePools> {
  if (isPrivateDatabase(path)) {
    // A private database lives in its one connection: that thread reads and writes, and when
    // it dies the data is gone, so it is not replaced.
    const sole = createWorkerPool({ start: () => startSqliteWorker({ path, role: "sole" }), size: 1, replaceDead: false });
    sole.release(await sole.acquire());
    return { writer: sole, readers: sole };
  }
  const writer = createWorkerPool({ start: () => startSqliteWorker({ path, role: "writer" }), size: 1, replaceDead: true });
  // The writer first: it creates the file and turns on the write-ahead log readers depend on.
  const first = await writer.acquire();
  writer.release(first);
  // Without WAL (a file system that refuses its shared memory), readers would wait for every
  // write; the writer then serves reads too, as one connection always did.
  if (first.journalMode !== "wal" || size < 1) return { writer, readers: writer };
  const readers = createWorkerPool({ start: () => startSqliteWorker({ path, role: "reader" }), size, replaceDead: true });
  // Point reads on the event loop, beside the reader threads (point-read.ts).
  return { writer, readers, local: await openEventLoopReader(path) };
}

/**
 * A driver over worker threads: one writer (a file's only read-write connection; write-ahead
 * logging) and up to `readers` read-only connections, or, for a private database, one thread
 * that does both. `init` starts the writer and may be called again (it starts once).
 *
 * @example const driver = sqliteWorkerDriver({ path: "scim.db", readers: 4 }); await driver.init();
 */
export function sqliteWorkerDriver(options: SqliteWorkerDriverOptions): Driver {
  let started: Promise<RolePools> | undefined;
  let pools: RolePools | undefined;

  const connection = (candidate: DatabaseConnection): SqliteWorkerConnection => candidate as SqliteWorkerConnection;

  const driver: Driver = {
    async init() {
      started ??= openPools(options).then((opened) => {
        forgotten.register(driver, opened, driver);
        return opened;
      });
      pools = await started;
    },
    async acquireConnection() {
      if (pools === undefined) throw new Error("sqliteWorkerDriver: init() first");
      return sqliteWorkerConnection(pools);
    },
    async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
      // BEGIN IMMEDIATE takes the write lock up front, so a transaction never fails upgrading a
      // read lock another process holds; a read-only one reads a snapshot on a reader.
      const begin = settings.accessMode === "read only" ? "begin" : "begin immediate";
      await connection.executeQuery(CompiledQuery.raw(begin));
    },
    async commitTransaction(connection) {
      await connection.executeQuery(CompiledQuery.raw("commit"));
    },
    async rollbackTransaction(connection) {
      await connection.executeQuery(CompiledQuery.raw("rollback"));
    },
    async savepoint(connection, name) {
      await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoted(name)}`));
    },
    async rollbackToSavepoint(connection, name) {
      await connection.executeQuery(CompiledQuery.raw(`rollback to ${quoted(name)}`));
    },
    async releaseSavepoint(connection, name) {
      await connection.executeQuery(CompiledQuery.raw(`release ${quoted(name)}`));
    },
    async releaseConnection(candidate) {
      await connection(candidate).release();
    },
    async destroy() {
      const opened = await started?.catch(() => undefined);
      if (opened === undefined) return;
      forgotten.unregister(driver);
      await closePools(opened);
    },
  };
  return driver;
}
