/**
 * Version 8: on SQLite, an e-mail search the stock `sqlite3` tool can open (issue 14, item 6).
 * Migration 5's form of it needed what Debian stable's SQLite (3.40) and any tool without our
 * function lack: triggers calling `scimkit_lower` and ORDER BY inside an aggregate (3.44), on a
 * contentless FTS5 table with `contentless_delete` (3.43). Such a tool failed to load the schema,
 * and where it loaded, every insert of a user failed. This migration drops those triggers and that
 * table and makes the search of `SQLITE_EMAILS_SEARCH` instead:
 *
 * - `scimkit_emails_search_keys (search_id integer primary key, org_id, id)`, unique on
 *   `(org_id, id)`, its rows cascading with their resources;
 * - `scimkit_emails_search`, a plain FTS5 table (it keeps its text: deleting a row needs no
 *   folding, so a Node whose Unicode data folds a character otherwise cannot corrupt it) with the
 *   trigram tokenizer (3.34), folding no case itself, a row per key under its `search_id`;
 *
 * filled here from the rows there are, and from now on written by the store in each write's
 * transaction (`indexSqliteEmailsSearch`, chosen by `SqlDialect.adaptTo`), the text folded in
 * JavaScript exactly as the filter folds. Nothing in the schema calls a function of ours, and a
 * `.dump` restores the rowids both tables are keyed by (migration 5 keyed by `scimkit_resources`'
 * rowid, which a dump renumbers).
 *
 * What the store does not see, it cannot index: rows a tool inserts or whose e-mails it changes
 * are missing from the search (or searched by their old e-mails) until version 8 is deleted from
 * `scimkit_migrations` (the tool can do that too) and a store starts, which runs it again (or
 * `addSqliteEmailsSearchRows` runs in a write transaction). Deletes by a
 * tool leave key rows behind only where it has foreign keys off, and such rows match nothing.
 *
 * Where the SQLite build lacks FTS5 or its trigram tokenizer, the migration records itself with
 * neither table, and filters read the JSON. PostgreSQL keeps its column (migration 2): there this
 * changes nothing.
 */
import { sql, type Kysely } from "kysely";
import { fillSqliteEmailsSearch } from "../dialects/sqlite-emails-search-rows.js";
import { SQLITE_EMAILS_SEARCH } from "../filter/sqlite-filter-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { attemptInSavepoint } from "./attempt-in-savepoint.js";
import type { Migration } from "./migration.js";

/** Options of `addSqliteEmailsSearchRows`, for tests. */
export interface SqliteEmailsSearchRowsOptions {
  /** The virtual table module. Default `"fts5"`; a name that does not exist shows the fallback. */
  readonly module?: string;
}

/** What `addSqliteEmailsSearchRows` made. */
export type SqliteEmailsSearchRowsOutcome =
  | { readonly table: true }
  /** The SQLite build refused the table: `reason` is its message. */
  | { readonly table: false; readonly reason: string };

const { table, column, keys, triggers } = SQLITE_EMAILS_SEARCH;

/**
 * (Re)creates the e-mail search tables and fills them from `scimkit_resources`, inside `trx`, a
 * write transaction on SQLite (a refusal rolls back to a savepoint). Drops migration 5's triggers
 * and table first, and rebuilds from scratch when its own tables exist, so it is idempotent and
 * also repairs a search that rows written by other tools have left behind. Needs no function of
 * ours on the connection.
 *
 * @example await sqliteDialect.writeTransaction(db, (trx) => addSqliteEmailsSearchRows(trx))
 */
export async function addSqliteEmailsSearchRows(
  trx: Kysely<SqlStoreDatabase>,
  options: SqliteEmailsSearchRowsOptions = {},
): Promise<SqliteEmailsSearchRowsOutcome> {
  // Migration 5's triggers go whatever follows: they fail every write of a tool without our function.
  for (const name of Object.values(triggers)) await sql`drop trigger if exists ${sql.id(name)}`.execute(trx);
  const made = await attemptInSavepoint(trx, async () => {
    await sql`drop table if exists ${sql.table(keys)}`.execute(trx);
    // Migration 5's contentless table, or this one's: both are rebuilt from the rows.
    await sql`drop table if exists ${sql.table(table)}`.execute(trx);
    await sql`create table ${sql.table(keys)} (
      search_id integer primary key,
      org_id text not null,
      id text not null,
      constraint ${sql.id(`${keys}_resource`)} unique (org_id, id),
      constraint ${sql.id(`${keys}_resource_fk`)} foreign key (org_id, id) references scimkit_resources (org_id, id) on delete cascade
    )`.execute(trx);
    // `case_sensitive 1`: the text and the needle are folded already; FTS5's own folding would blur the match.
    await sql`create virtual table ${sql.table(table)} using ${sql.id(options.module ?? "fts5")}(${sql.id(column)}, tokenize='trigram case_sensitive 1')`.execute(
      trx,
    );
  });
  if (!made.ok) {
    // Migration 5's table may be left where this build could drop it but not make the new one: it
    // is read by nothing now, and nothing writes it.
    return { table: false, reason: made.error instanceof Error ? made.error.message : String(made.error) };
  }
  await fillSqliteEmailsSearch(trx);
  // FTS5 merges the fill's many segments in bursts inside whichever write comes next; merged here
  // once, the writes after it do not inherit that (migration 5 measured 30 ms bursts against 82).
  await sql`insert into ${sql.table(table)} (${sql.table(table)}) values ('optimize')`.execute(trx);
  return { table: true };
}

/** Replaces migration 5's e-mail search on SQLite (`addSqliteEmailsSearchRows`); elsewhere nothing. */
export const sqliteEmailsSearchRows: Migration = {
  version: 8,
  name: "sqlite-emails-search-rows",
  async up(trx, dialect) {
    if (dialect.name === "sqlite") await addSqliteEmailsSearchRows(trx);
  },
};
