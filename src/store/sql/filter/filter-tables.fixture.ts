/**
 * Test-only DDL for the filter compiler's tests: the tables of `sql-tables.ts` with the columns,
 * keys and indexes of the store's migrations (`migrations/0001-initial-tables.ts`, and the e-mail
 * search of `0002-emails-search.ts` on PostgreSQL and `0008-sqlite-emails-search-rows.ts` on SQLite,
 * made by the migrations' own code), for SQLite and PostgreSQL, so that the compiled SQL meets
 * the same tables and the planner the same indexes. It leaves out the foreign keys (fixtures insert members without their resources) and
 * the token table, which filters never read; keep it in step when the migrations change an index.
 */
import { sql, type Kysely } from "kysely";
import { addEmailsSearch } from "../migrations/0002-emails-search.js";
import { addSqliteEmailsSearchRows } from "../migrations/0008-sqlite-emails-search-rows.js";
import type { SqlStoreDatabase } from "../sql-tables.js";

/** The dialects the fixture can create tables for. */
export type FixtureDialect = "sqlite" | "postgres";

function statements(dialect: FixtureDialect): readonly string[] {
  // As the store's column types: PostgreSQL keys in "C" (code-point order, whatever the locale),
  // JSONB and 64-bit counters; SQLite text, whose BINARY collation already is code-point order.
  const key = dialect === "postgres" ? 'text collate "C"' : "text";
  const json = dialect === "postgres" ? "jsonb" : "text";
  const counter = dialect === "postgres" ? "bigint" : "integer";
  return [
    `create table scimkit_resources (
      org_id ${key} not null,
      id ${key} not null,
      resource_type ${key} not null,
      version ${counter} not null,
      created ${key} not null,
      last_modified ${key} not null,
      external_id ${key},
      attributes ${json} not null,
      member_seq ${counter},
      constraint scimkit_resources_pk primary key (org_id, id)
    )`,
    "create index scimkit_resources_type_id on scimkit_resources (org_id, resource_type, id)",
    "create index scimkit_resources_external_id on scimkit_resources (org_id, resource_type, external_id, id)",
    `create table scimkit_unique_keys (
      org_id ${key} not null,
      resource_type ${key} not null,
      attribute ${key} not null,
      value ${key} not null,
      id ${key} not null,
      constraint scimkit_unique_keys_pk primary key (org_id, resource_type, attribute, value)
    )`,
    "create index scimkit_unique_keys_resource on scimkit_unique_keys (org_id, id)",
    `create table scimkit_members (
      org_id ${key} not null,
      group_id ${key} not null,
      member_id ${key} not null,
      member_type ${key} not null,
      position ${counter} not null,
      constraint scimkit_members_pk primary key (org_id, group_id, member_id)
    )`,
    "create unique index scimkit_members_position on scimkit_members (org_id, group_id, position)",
    "create index scimkit_members_member on scimkit_members (org_id, member_id)",
  ];
}

/**
 * Creates the resource, unique-key and member tables in the current schema of `db`, with the
 * e-mail search, and says whether SQLite's could be made (its build may lack FTS5's trigram
 * tokenizer; PostgreSQL's column always is, or this throws).
 */
export async function createFilterTables(
  db: Kysely<SqlStoreDatabase>,
  dialect: FixtureDialect,
): Promise<{ readonly emailsSearch: boolean }> {
  for (const statement of statements(dialect)) await sql.raw(statement).execute(db);
  if (dialect === "sqlite") {
    // The store writes its rows, not triggers: `insertRows` does here what the store does.
    const made = await db.transaction().execute((trx) => addSqliteEmailsSearchRows(trx));
    return { emailsSearch: made.table };
  }
  // The index needs pg_trgm, which only the EXPLAIN test needs (and checks for); the column needs
  // ICU, as `postgresFilterDialect` itself does.
  const made = await db.transaction().execute((trx) => addEmailsSearch(trx));
  if (!made.column) throw new Error("the test server has no ICU collation und-x-icu");
  return { emailsSearch: true };
}
