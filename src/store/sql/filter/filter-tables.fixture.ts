/**
 * Test-only DDL for the filter compiler's tests: the tables of `sql-tables.ts` with the keys and
 * indexes the store's migrations create (DESIGN §3 hot lookups), for SQLite and PostgreSQL. It is
 * no migration; it only has the same shape, so that the compiled SQL meets the same tables and the
 * planner the same indexes.
 */
import { sql, type Kysely } from "kysely";
import type { SqlStoreDatabase } from "../sql-tables.js";

/** The dialects the fixture can create tables for. */
export type FixtureDialect = "sqlite" | "postgres";

function statements(dialect: FixtureDialect): readonly string[] {
  const json = dialect === "postgres" ? "jsonb" : "text";
  // PostgreSQL: ids in "C" so that ORDER BY id COLLATE "C" (code-point order, as the core
  // compares) can read the primary key in order; SQLite's default BINARY already is.
  const id = dialect === "postgres" ? 'text collate "C"' : "text";
  return [
    `create table scimkit_resources (
      org_id text not null,
      id ${id} not null,
      resource_type text not null,
      version integer not null,
      created text not null,
      last_modified text not null,
      external_id text,
      attributes ${json} not null,
      member_seq integer not null default 0,
      primary key (org_id, id)
    )`,
    "create index scimkit_resources_external_id on scimkit_resources (org_id, resource_type, external_id)",
    `create table scimkit_unique_keys (
      org_id text not null,
      resource_type text not null,
      attribute text not null,
      value text not null,
      id ${id} not null,
      primary key (org_id, resource_type, attribute, value)
    )`,
    `create table scimkit_members (
      org_id text not null,
      group_id ${id} not null,
      member_id ${id} not null,
      member_type text not null,
      position integer not null,
      primary key (org_id, group_id, member_id)
    )`,
    "create index scimkit_members_member on scimkit_members (org_id, member_id)",
  ];
}

/** Creates the resource, unique-key and member tables in the current schema of `db`. */
export async function createFilterTables(db: Kysely<SqlStoreDatabase>, dialect: FixtureDialect): Promise<void> {
  for (const statement of statements(dialect)) await sql.raw(statement).execute(db);
}
