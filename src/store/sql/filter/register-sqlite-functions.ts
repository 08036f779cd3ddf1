/**
 * The SQL functions the SQLite filter dialect calls, registered on a better-sqlite3 connection.
 * SQLite's own `lower()` folds ASCII only; SCIM folds case the way the rest of scimkit does
 * (`String.prototype.toLowerCase`: `uniqueKeysOf`, `sortKeyOf`, `matchesFilter`), so the store and
 * the in-memory reference agree on "Ä" and "É" too.
 */

/** The name under which `registerSqliteFunctions` registers JavaScript's `toLowerCase`. */
export const SQLITE_LOWER_FUNCTION = "scimkit_lower";

/**
 * The part of a better-sqlite3 `Database` this needs: typed structurally so that importing it
 * never loads the optional `better-sqlite3` peer dependency.
 */
export interface SqliteFunctionHost {
  function(
    name: string,
    options: { readonly deterministic?: boolean; readonly varargs?: boolean },
    implementation: (value: unknown) => unknown,
  ): unknown;
}

/**
 * Registers the functions `sqliteFilterDialect` uses (`scimkit_lower`) on one connection. A
 * registration lives as long as the connection, so call it for every connection the store opens,
 * before the first query. Only queries call it: no trigger, view, index or generated column of the
 * schema may (migration 8 removed the triggers that did), so that any SQLite tool — one without
 * this function — can open, check and write the file (docs/architecture.md §8.5).
 *
 * @example
 * const database = new Database("scim.db");
 * registerSqliteFunctions(database);
 * const db = new Kysely<SqlStoreDatabase>({ dialect: new SqliteDialect({ database }) });
 */
export function registerSqliteFunctions(database: SqliteFunctionHost): void {
  database.function(SQLITE_LOWER_FUNCTION, { deterministic: true }, (value) =>
    // Anything but text passes through unchanged: NULL stays NULL, and a number where a string
    // belongs never equals a string parameter, as in `matchesFilter`.
    typeof value === "string" ? value.toLowerCase() : value,
  );
}
