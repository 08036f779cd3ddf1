/**
 * A Kysely dialect for SQLite whose statements run in worker threads, each with its own
 * better-sqlite3 connection, so that no statement — a scan of 50,000 users included — runs on
 * the event loop (architecture §4b). SQL, adapter and introspection are Kysely's SQLite ones; only the
 * driver differs.
 */
import { SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type Dialect, type Driver } from "kysely";

/**
 * A dialect whose driver is `driver` (`sqliteWorkerDriver`), shared by every Kysely instance made
 * with it.
 *
 * @example new Kysely<SqlStoreDatabase>({ dialect: sqliteWorkerDialect(sqliteWorkerDriver({ path: "scim.db", readers: 4 })) })
 */
export function sqliteWorkerDialect(driver: Driver): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => driver,
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db) => new SqliteIntrospector(db),
  };
}
