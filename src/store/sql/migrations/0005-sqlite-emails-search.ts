/**
 * Version 5: on SQLite, the e-mail search table `scimkit_emails_search` (`SQLITE_EMAILS_SEARCH`)
 * — SQLite's counterpart of PostgreSQL's `emails_search` (migration 2). better-sqlite3 runs every
 * query on the event loop, and `emails[type eq "work" and value co "@dept7."]` iterated every
 * user's JSON: about 270 ms at 100,000 users. The table holds, per resource that has e-mails,
 * keyed by the resource's rowid, the values of `emails.value` as JSON array text folded by
 * `scimkit_lower`, indexed by FTS5's trigram tokenizer; the filter compiler ANDs a MATCH on it
 * with the exact condition (`searchPrefilter`), so the exact condition still decides and the
 * table only narrows. Triggers on `scimkit_resources` keep it in step; the migration fills it for
 * the rows already there. PostgreSQL has its column: there this changes nothing.
 *
 * Contentless (`content=''`) with `contentless_delete=1`, not external content: the text is
 * derived (one attribute's values, folded), not a column an external-content table could point
 * at, so that table would need a view recomputing it; and both an external-content and a plain
 * contentless table delete a row by tokenizing its old text again (the `'delete'` command), which
 * corrupts the index if the folding changed in between — a Node upgrade whose Unicode data maps
 * one character differently is enough. `contentless_delete` deletes by rowid alone, so deletes and
 * updates never depend on the folding, and the table keeps no copy of the text. What it gives up
 * is reading the text back (LIKE and GLOB on it find nothing), so the prefilter queries it with
 * MATCH (`ftsPhrase`).
 *
 * Needs FTS5 with the trigram tokenizer (SQLite 3.34), `contentless_delete` (3.43) and ORDER BY
 * inside an aggregate (3.44); better-sqlite3 12 bundles a far newer SQLite. Where the build lacks
 * any of them the migration records itself and creates nothing, and `sqlStore` filters without
 * the prefilter (`SqlDialect.adaptTo` finds no table). Running `addSqliteEmailsSearch` in a
 * write transaction later adds it.
 *
 * The triggers fold with `scimkit_lower`, the filter's own folding, so the text is folded exactly
 * as the needle is. SQLite resolves a function when it prepares a statement whose triggers call
 * it, so every connection that inserts resources or updates their `attributes` must have it
 * registered: the store's own does (`openSqlite` registers it, and
 * `sqliteDialect.prepareConnection` refuses a connection without it). A tool without it (the
 * `sqlite3` shell) fails such a write with "no such function: scimkit_lower" instead of leaving
 * the table behind; deletes, which the table follows by rowid alone, and updates of other
 * columns go through.
 *
 * Keyed by rowid: `scimkit_resources` has no INTEGER PRIMARY KEY, so SQLite's documentation lets
 * VACUUM renumber its rowids; its implementation keeps them for a table with indexes, as this one
 * has (the tests VACUUM and check, so a SQLite that changed this would fail them). `.backup`
 * copies pages and keeps them too; a copy made with `.dump` without `--preserve-rowids`
 * renumbers them: rebuild the table there with `addSqliteEmailsSearch` (or delete version 5 from
 * `scimkit_migrations`, and the next start runs it again).
 */
import { sql, type Kysely, type RawBuilder } from "kysely";
import { jsonPathText } from "../filter/json-ref.js";
import { SQLITE_LOWER_FUNCTION } from "../filter/register-sqlite-functions.js";
import { SQLITE_EMAILS_SEARCH } from "../filter/sqlite-filter-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { attemptInSavepoint } from "./attempt-in-savepoint.js";
import type { Migration } from "./migration.js";

/** Options of `addSqliteEmailsSearch`, for tests. */
export interface SqliteEmailsSearchOptions {
  /** The virtual table module. Default `"fts5"`; a name that does not exist shows the fallback. */
  readonly module?: string;
}

/** What `addSqliteEmailsSearch` made. */
export type SqliteEmailsSearchOutcome =
  | { readonly table: true }
  /** The SQLite build refused the table or its triggers: `reason` is its message. */
  | { readonly table: false; readonly reason: string };

const { table, column, triggers } = SQLITE_EMAILS_SEARCH;
const ATTRIBUTE = sql.lit(jsonPathText([SQLITE_EMAILS_SEARCH.attribute]));
const SUB_ATTRIBUTE = sql.lit(jsonPathText([SQLITE_EMAILS_SEARCH.subAttribute]));

/**
 * The search text over the e-mail elements `e`, as `FilterDialect.searchContains` describes it:
 * the JSON array of each object element's `value`, in array order, folded as one text. Elements that are not objects hold no value the filter reads, and skipping them keeps
 * `json_extract` from failing a write on one.
 */
function searchText(): RawBuilder<string> {
  return sql<string>`${sql.raw(SQLITE_LOWER_FUNCTION)}(json_group_array(json_extract(e.value, ${SUB_ATTRIBUTE}) order by e.key))`;
}

/** `select <rowid>, <search text> from <json_each of attributes> …`, with `from` in front of the elements. */
function searchRows(
  rowid: RawBuilder<unknown>,
  attributes: RawBuilder<unknown>,
  from: RawBuilder<unknown>,
  tail: RawBuilder<unknown>,
): RawBuilder<unknown> {
  return sql`select ${rowid}, ${searchText()} from ${from}json_each(${attributes}, ${ATTRIBUTE}) as e where e.type = 'object' ${tail}`;
}

/** The statement a trigger runs to add the row of `new` (none when it has no e-mails). */
function insertNew(): RawBuilder<unknown> {
  // Without GROUP BY, one aggregate row; HAVING drops it for a resource without e-mail elements.
  return sql`insert into ${sql.table(table)} (rowid, ${sql.id(column)}) ${searchRows(sql`new.rowid`, sql`new.attributes`, sql``, sql`having count(*) > 0`)}`;
}

function deleteOld(): RawBuilder<unknown> {
  return sql`delete from ${sql.table(table)} where rowid = old.rowid`;
}

/**
 * The FTS5 table and the triggers that keep it in step with `scimkit_resources`:
 * - the tokenizer folds no case (`case_sensitive 1`): the text and the needle are folded by
 *   `scimkit_lower` already, and a second folding of FTS5's own would only blur the match;
 * - `detail=full` (the default) keeps trigram positions, so a phrase is an exact substring test;
 * - an update rewrites the row only when `emails` changed, so `PATCH active` costs no FTS work and
 *   no folding.
 */
function schemaStatements(module: string): readonly RawBuilder<unknown>[] {
  const resources = sql.table("scimkit_resources");
  const emails = (row: "old" | "new") => sql`json_extract(${sql.raw(row)}.attributes, ${ATTRIBUTE})`;
  return [
    sql`create virtual table ${sql.table(table)} using ${sql.id(module)}(${sql.id(column)}, content='', contentless_delete=1, tokenize='trigram case_sensitive 1')`,
    sql`create trigger ${sql.id(triggers.insert)} after insert on ${resources} begin ${insertNew()}; end`,
    sql`create trigger ${sql.id(triggers.update)} after update of attributes on ${resources}
      when ${emails("old")} is not ${emails("new")} begin ${deleteOld()}; ${insertNew()}; end`,
    sql`create trigger ${sql.id(triggers.delete)} after delete on ${resources} begin ${deleteOld()}; end`,
  ];
}

/**
 * (Re)creates `scimkit_emails_search` and its triggers and fills it from `scimkit_resources`,
 * inside `trx`, a write transaction on SQLite (a refusal rolls back to a savepoint). Rebuilds
 * from scratch when the table exists, so it is idempotent and also repairs a table whose rowids
 * no longer match. Throws when the connection lacks `scimkit_lower`, which the triggers call;
 * reports `table: false` when the SQLite build lacks FTS5, its trigram tokenizer,
 * `contentless_delete` or ORDER BY in aggregates.
 *
 * @example await sqliteDialect.writeTransaction(db, (trx) => addSqliteEmailsSearch(trx))
 */
export async function addSqliteEmailsSearch(
  trx: Kysely<SqlStoreDatabase>,
  options: SqliteEmailsSearchOptions = {},
): Promise<SqliteEmailsSearchOutcome> {
  try {
    await sql`select ${sql.raw(SQLITE_LOWER_FUNCTION)}('A')`.execute(trx);
  } catch (error) {
    throw new Error(`addSqliteEmailsSearch: the connection lacks ${SQLITE_LOWER_FUNCTION}; call registerSqliteFunctions(database) first`, {
      cause: error,
    });
  }
  const made = await attemptInSavepoint(trx, async () => {
    for (const name of Object.values(triggers)) await sql`drop trigger if exists ${sql.id(name)}`.execute(trx);
    await sql`drop table if exists ${sql.table(table)}`.execute(trx);
    for (const statement of schemaStatements(options.module ?? "fts5")) await statement.execute(trx);
  });
  if (!made.ok) return { table: false, reason: made.error instanceof Error ? made.error.message : String(made.error) };
  // One pass in rowid order; GROUP BY rowid follows it, and `order by e.key` fixes the order inside.
  await sql`insert into ${sql.table(table)} (rowid, ${sql.id(column)})
    ${searchRows(sql`r.rowid`, sql`r.attributes`, sql`${sql.table("scimkit_resources")} as r, `, sql`group by r.rowid`)}`.execute(trx);
  // FTS5 writes each transaction as a new segment and merges segments in bursts, inside whichever
  // write comes along — on the event loop. The fill leaves many segments; merged into one here
  // (about 0.2 s per 100,000 users), the writes after it do not inherit that merging: over 40,000
  // one-row writes at 100,000 users the longest burst took 30 ms of CPU instead of 82, and one
  // write in a thousand more than 4 ms instead of 17 (measured).
  await sql`insert into ${sql.table(table)} (${sql.table(table)}) values ('optimize')`.execute(trx);
  return { table: true };
}

/** Adds the e-mail search table on SQLite (`addSqliteEmailsSearch`); elsewhere nothing. */
export const sqliteEmailsSearch: Migration = {
  version: 5,
  name: "sqlite-emails-search",
  async up(trx, dialect) {
    if (dialect.name === "sqlite") await addSqliteEmailsSearch(trx);
  },
};
