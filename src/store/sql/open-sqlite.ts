/**
 * Opening a SQLite database for the store with better-sqlite3, an optional peer dependency that
 * is loaded only when a SQLite store is asked for.
 */
import { Kysely, SqliteDialect } from "kysely";
import { registerSqliteFunctions } from "./filter/register-sqlite-functions.js";
import type { SqlStoreDatabase } from "./sql-tables.js";

type DatabaseConstructor = typeof import("better-sqlite3");

/**
 * A Kysely instance over the SQLite database at `path` (created if missing), or a private
 * in-memory one for `":memory:"`, with the filter's SQL functions registered. Files use
 * write-ahead logging, so readers never block the writer; foreign keys are turned on by
 * `sqliteDialect.prepareConnection`. Kysely serializes all
 * queries on the one connection; `destroy()` closes it.
 *
 * @example const db = await openSqlite("scim.db");
 */
export async function openSqlite(path: string): Promise<Kysely<SqlStoreDatabase>> {
  // A CommonJS `export =` module: Node hands ESM its exports as `default`, which TypeScript's view
  // of the import (without esModuleInterop) does not show, so accept either shape.
  const loaded = (await import("better-sqlite3")) as DatabaseConstructor | { readonly default: DatabaseConstructor };
  const Database = "default" in loaded ? loaded.default : loaded;
  const database = new Database(path);
  try {
    // The filter's case folding is JavaScript's (`scimkit_lower`), registered per connection.
    registerSqliteFunctions(database);
    // WAL lets readers proceed while a transaction writes, in this process and in others.
    if (path !== ":memory:" && path !== "") database.pragma("journal_mode = WAL");
  } catch (error) {
    database.close();
    throw error;
  }
  return new Kysely<SqlStoreDatabase>({ dialect: new SqliteDialect({ database }) });
}
