/**
 * Version 2: on PostgreSQL, the search column `emails_search` — the case-folded values of
 * `emails.value` as JSON array text, generated and stored by the database — and a trigram index
 * on it, so that `emails.value co "@dept7."` (alone or inside `emails[…]`) reads the matching rows
 * through an index instead of iterating every row's JSON (`EMAILS_SEARCH`, `searchPrefilter`).
 * Other databases keep no such column: the migration records itself and changes nothing.
 *
 * Adding a stored column rewrites `scimkit_resources` under an exclusive lock, and building the
 * index then blocks writes: about two seconds per 100,000 users in all, during which the store
 * waits. Where `pg_trgm` could not be installed the column is still added (the prefilter then
 * tests it row by row, which is still cheaper than the JSON); install the extension later and
 * `create index scimkit_resources_emails_search on scimkit_resources using gin (emails_search
 * gin_trgm_ops)` to get the index.
 */
import { sql, type Kysely } from "kysely";
import { EMAILS_SEARCH } from "../filter/postgres-filter-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { attemptInSavepoint } from "./attempt-in-savepoint.js";
import type { Migration } from "./migration.js";

/** Options of `addEmailsSearch`, for tests. */
export interface EmailsSearchOptions {
  /** The trigram extension to use. Default `"pg_trgm"`; a name that does not exist shows the fallback. */
  readonly trigramExtension?: string;
}

/** What `addEmailsSearch` found and made. */
export interface EmailsSearchOutcome {
  /** Whether the column exists (false where the server has no ICU collation `und-x-icu`). */
  readonly column: boolean;
  /** Whether the trigram index exists (false where the extension cannot be had). */
  readonly index: boolean;
}

/** The schema the extension `name` is installed in, if it is. */
async function extensionSchema(trx: Kysely<SqlStoreDatabase>, name: string): Promise<string | undefined> {
  const result = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
    where e.extname = ${name}`.execute(trx);
  return result.rows[0]?.schema;
}

/**
 * The schema of the trigram extension, installing it if it is missing: in `public` where that
 * schema exists — an extension is installed once per database, and one kept in a store's own
 * schema would go, with every other store's index on it, when that schema is dropped — else in
 * the current schema. Undefined when it cannot be installed (not available on the server, or no
 * privilege: PostgreSQL 13+ lets a user with CREATE on the database install `pg_trgm`, a trusted
 * extension).
 */
async function trigramSchema(trx: Kysely<SqlStoreDatabase>, name: string): Promise<string | undefined> {
  const installed = await extensionSchema(trx, name);
  if (installed !== undefined) return installed;
  const hasPublic = await sql<{ found: boolean }>`select to_regnamespace('public') is not null as found`.execute(trx);
  const targets = hasPublic.rows[0]?.found ? [sql`schema public`, sql``] : [sql``];
  for (const target of targets) {
    await attemptInSavepoint(trx, () => sql`create extension if not exists ${sql.id(name)} ${target}`.execute(trx));
    // Also after a failure: another process may have installed it meanwhile (IF NOT EXISTS races).
    const schema = await extensionSchema(trx, name);
    if (schema !== undefined) return schema;
  }
  return undefined;
}

/**
 * Adds `emails_search` and, where the trigram extension is there or can be installed, its GIN
 * index to `scimkit_resources` in the current schema of `trx`, which must be a transaction on
 * PostgreSQL (failed attempts roll back to savepoints). Idempotent. The column is folded with
 * `lower(… collate "und-x-icu")`, exactly as `postgresDialect` folds a value, so that the
 * compiler's prefilter never drops a match; without ICU there is no column, and a dialect that
 * folds otherwise never reads it.
 *
 * @example await db.transaction().execute((trx) => addEmailsSearch(trx))
 */
export async function addEmailsSearch(trx: Kysely<SqlStoreDatabase>, options: EmailsSearchOptions = {}): Promise<EmailsSearchOutcome> {
  const collation = await sql<{
    found: boolean;
  }>`select to_regcollation(${`pg_catalog."${EMAILS_SEARCH.collation}"`}) is not null as found`.execute(trx);
  if (!collation.rows[0]?.found) return { column: false, index: false };
  const path = `lax $."${EMAILS_SEARCH.attribute}"[*]."${EMAILS_SEARCH.subAttribute}"`;
  // "C": LIKE compares bytes, as the compiler's substring tests do, and the index matches them.
  await sql`alter table ${sql.table("scimkit_resources")} add column if not exists ${sql.id(EMAILS_SEARCH.column)} text collate "C" not null
    generated always as (lower((jsonb_path_query_array(attributes, ${sql.lit(path)}))::text collate ${sql.id(EMAILS_SEARCH.collation)})) stored`.execute(
    trx,
  );
  const extension = options.trigramExtension ?? "pg_trgm";
  const schema = await trigramSchema(trx, extension);
  if (schema === undefined) return { column: true, index: false };
  // Qualified: the extension's schema need not be on the search_path.
  const attempt = await attemptInSavepoint(trx, () =>
    sql`create index if not exists ${sql.id(EMAILS_SEARCH.index)} on ${sql.table("scimkit_resources")}
      using gin (${sql.id(EMAILS_SEARCH.column)} ${sql.id(schema, "gin_trgm_ops")})`.execute(trx),
  );
  return { column: true, index: attempt.ok };
}

/** Adds `emails_search` and its trigram index on PostgreSQL (`addEmailsSearch`); elsewhere nothing. */
export const emailsSearch: Migration = {
  version: 2,
  name: "emails-search",
  async up(trx, dialect) {
    if (dialect.name === "postgres") await addEmailsSearch(trx);
  },
};
