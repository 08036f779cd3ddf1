/**
 * SQLite databases that only the connection which opened them can see, so no second connection
 * (a reader in another thread) can share them.
 */

/**
 * Whether better-sqlite3 opens `path` as a database private to its connection: `":memory:"`, or
 * `""` for a temporary file (https://sqlite.org/inmemorydb.html).
 *
 * @example isPrivateDatabase(":memory:") // true
 */
export function isPrivateDatabase(path: string): boolean {
  return path === ":memory:" || path === "";
}
