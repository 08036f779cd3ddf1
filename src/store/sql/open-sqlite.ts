/**
 * Opening a SQLite database for the store with better-sqlite3, an optional peer dependency that
 * is loaded only when a SQLite store is asked for: in worker threads by default, or on the event
 * loop when asked.
 */
import { Kysely, SqliteDialect } from "kysely";
import { registerSqliteFunctions } from "./filter/register-sqlite-functions.js";
import { loadBetterSqlite3 } from "./load-better-sqlite3.js";
import type { SqlStoreDatabase } from "./sql-tables.js";
import { sqliteWorkerDialect } from "./sqlite-worker/sqlite-worker-dialect.js";
import { sqliteWorkerDriver } from "./sqlite-worker/sqlite-worker-driver.js";

/** Reader threads of a SQLite file store unless `threads.readers` says otherwise. */
export const DEFAULT_SQLITE_READERS = 4;

/**
 * Where a SQLite store's statements run:
 * - `{ readers?: number }` (the default, `{}`): in worker threads — a writer, and up to `readers`
 *   (default 4; 0: the writer reads too) read-only connections that read while it writes — so the
 *   event loop never waits for SQLite and a long query of one organization does not hold up the
 *   requests of others. Readers start as concurrent reads need them. `":memory:"` gets one thread
 *   that does both (another connection cannot see its data).
 * - `false`: on the event loop, through one connection in this thread, as better-sqlite3 runs by
 *   itself. Every statement then holds up every request; fit for tests and one-off scripts only.
 */
export type SqliteThreads = false | { readonly readers?: number };

async function openOnEventLoop(path: string): Promise<Kysely<SqlStoreDatabase>> {
  const Database = await loadBetterSqlite3();
  const database = new Database(path);
  try {
    registerSqliteFunctions(database);
    // WAL lets readers proceed while a transaction writes, in this process and in others.
    if (path !== ":memory:" && path !== "") database.pragma("journal_mode = WAL");
    // Deleted and replaced rows are zeroed, not left in free space (serve-sqlite-connections.ts).
    database.pragma("secure_delete = on");
  } catch (error) {
    database.close();
    throw error;
  }
  return new Kysely<SqlStoreDatabase>({ dialect: new SqliteDialect({ database }) });
}

/**
 * A Kysely instance over the SQLite database at `path` (created if missing), or a private
 * in-memory one for `":memory:"`, with the filter's SQL functions registered on every connection.
 * Files use write-ahead logging, so readers never block the writer; foreign keys are on. The
 * connections are open (or have failed to) when it resolves; `destroy()` closes them.
 *
 * @example const db = await openSqlite("scim.db");                      // worker threads
 * @example const db = await openSqlite(":memory:", { threads: false });  // on the event loop
 */
export async function openSqlite(path: string, options: { readonly threads?: SqliteThreads } = {}): Promise<Kysely<SqlStoreDatabase>> {
  const threads = options.threads ?? {};
  if (threads === false) return openOnEventLoop(path);
  const readers = threads.readers ?? DEFAULT_SQLITE_READERS;
  if (!Number.isInteger(readers) || readers < 0)
    throw new RangeError(`sqlStore: threads.readers must be a whole number ≥ 0; got ${readers}`);
  const driver = sqliteWorkerDriver({ path, readers });
  // Opens the writer now, so a path that cannot be opened fails here rather than at the first request.
  await driver.init();
  return new Kysely<SqlStoreDatabase>({ dialect: sqliteWorkerDialect(driver) });
}
