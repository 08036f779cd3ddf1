/**
 * Loading better-sqlite3, an optional peer dependency, only when a SQLite store is asked for.
 */

/** better-sqlite3's `Database` constructor. */
export type SqliteDatabaseConstructor = typeof import("better-sqlite3");

/**
 * better-sqlite3's `Database` constructor, imported on first use.
 *
 * @example const Database = await loadBetterSqlite3(); const database = new Database("scim.db");
 */
export async function loadBetterSqlite3(): Promise<SqliteDatabaseConstructor> {
  // A CommonJS `export =` module: Node hands ESM its exports as `default`, which TypeScript's view
  // of the import (without esModuleInterop) does not show, so accept either shape.
  const loaded = (await import("better-sqlite3")) as SqliteDatabaseConstructor | { readonly default: SqliteDatabaseConstructor };
  return "default" in loaded ? loaded.default : loaded;
}
