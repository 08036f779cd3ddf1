/**
 * SQLite (better-sqlite3, a file or `:memory:`): the filter hooks of `sqliteFilterDialect` plus
 * the store hooks. One connection writes for the whole store (`sqlStore({ sqlite })` gives it a
 * worker thread, beside read-only reader threads), and write transactions take the write lock up
 * front, so no row locks are needed. Every connection must have the filter's functions registered
 * (`registerSqliteFunctions`) for the filters; `sqlStore({ sqlite })` does it. The schema needs
 * none of it. `adaptTo` turns on the e-mail search prefilter, and the store's upkeep of its rows,
 * where migration 8 made its tables.
 */
import { sql, type Kysely } from "kysely";
import type { ScimObject } from "../../../scim/schema/normalize-value.js";
import { SQLITE_LOWER_FUNCTION } from "../filter/register-sqlite-functions.js";
import { createSqliteFilterDialect, SQLITE_EMAILS_SEARCH, sqliteFilterDialect } from "../filter/sqlite-filter-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { connectionTransaction } from "./connection-transaction.js";
import { retryTransient } from "./retry-transient.js";
import { indexSqliteEmailsSearch } from "./sqlite-emails-search-rows.js";
import type { SqlDialect } from "./sql-dialect.js";

/**
 * Whether `db` holds the e-mail search tables of migration 8: the FTS5 table and its keys. Migration
 * 5's table alone (where migration 8 could not replace it) is written by nothing and does not count.
 */
async function hasEmailsSearch(db: Kysely<SqlStoreDatabase>): Promise<boolean> {
  const { table, keys } = SQLITE_EMAILS_SEARCH;
  const names = [table, keys];
  const found = await sql<{ n: number }>`select count(*) as n from sqlite_schema where name in (${sql.join(names)})`.execute(db);
  return Number(found.rows[0]?.n) === names.length;
}

/**
 * SQLITE_BUSY: another connection held the write lock past better-sqlite3's 5 s busy timeout.
 * Stores opened together on one file (hosts started at once, a loaded machine) migrate in turn, and
 * the first one's migrations may take longer than that: the next one's `BEGIN IMMEDIATE` fails
 * having done nothing, and trying again — each try waiting out the busy timeout — is what it wants.
 */
const isBusy = (error: unknown): boolean => (error as { readonly code?: unknown }).code === "SQLITE_BUSY";

/** The SQLite dialect of the SQL store. */
export const sqliteDialect: SqlDialect = {
  ...sqliteFilterDialect,
  columnTypes: { key: sql`text`, text: sql`text`, json: sql`text`, counter: sql`integer` },
  // SQLITE_MAX_VARIABLE_NUMBER since SQLite 3.32.
  maxParameters: 32_766,
  toJson: (value) => JSON.stringify(value),
  fromJson: (stored) => JSON.parse(String(stored)) as ScimObject,
  // BEGIN IMMEDIATE serializes writers across connections and processes: there is nothing to lock.
  rowLock: () => undefined,
  ignoreConflicts: (query) => query.onConflict((conflict) => conflict.doNothing()),
  writeTransaction: (db, work) => connectionTransaction(db, sql`begin immediate`, work),
  // A deferred transaction reads one snapshot (in WAL mode, while writers carry on); in worker
  // threads, its plain `begin` takes a reader thread, which it keeps until COMMIT.
  readTransaction: (db, work) => connectionTransaction(db, sql`begin`, work),
  migrationTransaction: (db, work) => retryTransient(() => connectionTransaction(db, sql`begin immediate`, work), isBusy),
  async prepareConnection(db) {
    // Off by default in SQLite; the member and unique-key rows cascade with their resources.
    await sql`pragma foreign_keys = on`.execute(db);
    try {
      await sql`select ${sql.raw(SQLITE_LOWER_FUNCTION)}('A')`.execute(db);
    } catch (error) {
      // Fail at start, not at the first filter a client sends.
      throw new Error(
        `sqliteDialect: the connection lacks ${SQLITE_LOWER_FUNCTION}; call registerSqliteFunctions(database) before handing it to Kysely`,
        { cause: error },
      );
    }
  },
  async adaptTo(db) {
    return (await hasEmailsSearch(db)) ? { searchContains: withEmailsSearch.searchContains, indexResources: indexSqliteEmailsSearch } : {};
  },
};

// Its `searchContains` is handed out by `adaptTo` only once the table is known to be there.
const withEmailsSearch = createSqliteFilterDialect({ emailsSearch: true });
