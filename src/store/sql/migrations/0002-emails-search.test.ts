/**
 * Migration 2 (`emails_search`): on PostgreSQL a fresh schema gets the generated column and its
 * trigram index, an existing database gets the column filled for the rows it holds, migrating
 * again changes nothing, and where the trigram extension cannot be had the migration still
 * succeeds, with the column and without the index — and filters still answer correctly. On
 * SQLite the migration is recorded and changes nothing.
 */
import Database from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileFilter } from "../../../scim/filter/resolve-filter.js";
import { createSchemaRegistry } from "../../../scim/schema/schema-registry.js";
import { postgresDialect } from "../dialects/postgres-dialect.js";
import { sqliteDialect } from "../dialects/sqlite-dialect.js";
import { compileFilterSql } from "../filter/compile-filter-sql.js";
import { registerSqliteFunctions } from "../filter/register-sqlite-functions.js";
import { createTestSchema, describePostgres, type TestSchema } from "../postgres-test-database.fixture.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { initialTables } from "./0001-initial-tables.js";
import { addEmailsSearch, emailsSearch } from "./0002-emails-search.js";
import { runMigrations } from "./run-migrations.js";

const users = createSchemaRegistry().resourceType("User")!;

// The migrations up to this one: later versions are theirs to test.
const throughVersion2 = [initialTables, emailsSearch];

/** A user row as the store writes it, with the given e-mail values. */
function userRow(id: string, emails: readonly string[]) {
  const time = "2020-01-01T00:00:00.000Z";
  return {
    org_id: "o1",
    id,
    resource_type: "User",
    version: 1,
    created: time,
    last_modified: time,
    external_id: null,
    attributes: JSON.stringify({ userName: id, emails: emails.map((value) => ({ value, type: "work" })) }),
    member_seq: null,
  };
}

async function matching(db: Kysely<SqlStoreDatabase>, text: string): Promise<string[]> {
  const filter = compileFilter(users, text);
  if (!filter.ok) throw new Error(filter.error.detail);
  const rows = await db
    .selectFrom("scimkit_resources as r")
    .select("r.id")
    .where("r.org_id", "=", "o1")
    .where(compileFilterSql(filter.value, { dialect: postgresDialect, resource: "r" }))
    .orderBy("r.id")
    .execute();
  return rows.map((row) => row.id);
}

describePostgres("migration 2 (emails_search) on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  let db: Kysely<SqlStoreDatabase>;
  beforeAll(async () => {
    schema = await createTestSchema(url);
    db = new Kysely<SqlStoreDatabase>({ dialect: new PostgresDialect({ pool: schema.pool() }) });
  });
  // drop() ends the pool behind `db`.
  afterAll(async () => schema?.drop());

  /** Runs `work` on a Kysely instance over a fresh schema `name`, dropped afterwards. */
  async function inFreshSchema(name: string, work: (db: Kysely<SqlStoreDatabase>) => Promise<void>): Promise<void> {
    await sql`create schema ${sql.id(name)}`.execute(db);
    const other = new Kysely<SqlStoreDatabase>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, options: `-c search_path=${name}` }) }),
    });
    try {
      await work(other);
    } finally {
      await other.destroy();
      await sql`drop schema if exists ${sql.id(name)} cascade`.execute(db);
    }
  }

  async function columnsAndIndexes(name: string): Promise<{ generated: string | undefined; indexes: string[] }> {
    const column = await sql<{ generation_expression: string }>`select generation_expression from information_schema.columns
      where table_schema = ${name} and table_name = 'scimkit_resources' and column_name = 'emails_search'`.execute(db);
    const indexes = await sql<{
      indexdef: string;
    }>`select indexdef from pg_indexes where schemaname = ${name} and tablename = 'scimkit_resources'`.execute(db);
    return { generated: column.rows[0]?.generation_expression, indexes: indexes.rows.map((row) => row.indexdef) };
  }

  it("a fresh schema gets the generated column and its trigram index; migrating again applies nothing", async () => {
    expect(await runMigrations(db, postgresDialect, throughVersion2)).toEqual([1, 2]);
    expect(await runMigrations(db, postgresDialect, throughVersion2)).toEqual([]);
    const { generated, indexes } = await columnsAndIndexes(schema!.name);
    expect(generated).toContain("jsonb_path_query_array");
    expect(generated).toContain("und-x-icu");
    expect(
      indexes.some((index) => /scimkit_resources_emails_search .*USING gin \(emails_search \S*gin_trgm_ops\)/.test(index)),
      JSON.stringify(indexes),
    ).toBe(true);
    // Running the change itself again is harmless too.
    expect(await db.transaction().execute((trx) => addEmailsSearch(trx))).toEqual({ column: true, index: true });

    await db
      .insertInto("scimkit_resources")
      .values([userRow("a", ["Ann@Dept7.Example.com", "x\nΣ"]), userRow("b", [])])
      .execute();
    const stored = await sql<{ id: string; emails_search: string }>`select id, emails_search from scimkit_resources order by id`.execute(
      db,
    );
    // Folded as one text, escapes and all: the prefilter stays clear of what this changes (σ/ς).
    expect(stored.rows).toEqual([
      { id: "a", emails_search: '["ann@dept7.example.com", "x\\nς"]' },
      { id: "b", emails_search: "[]" },
    ]);
    expect(await matching(db, 'emails[type eq "work" and value co "@dept7."]')).toEqual(["a"]);
    expect(await matching(db, 'emails.value co "Σ"')).toEqual(["a"]);
  });

  it("an existing database gets the column filled for the rows it holds", async () => {
    await inFreshSchema(`${schema!.name}_v1`, async (other) => {
      expect(await runMigrations(other, postgresDialect, [initialTables])).toEqual([1]);
      await other
        .insertInto("scimkit_resources")
        .values([userRow("a", ["A@One.io"]), userRow("b", ["b@two.io", "B2@Two.io"])])
        .execute();
      expect(await runMigrations(other, postgresDialect, throughVersion2)).toEqual([2]);
      const stored = await sql<{ emails_search: string }>`select emails_search from scimkit_resources order by id`.execute(other);
      expect(stored.rows.map((row) => row.emails_search)).toEqual(['["a@one.io"]', '["b@two.io", "b2@two.io"]']);
    });
  });

  it("without the trigram extension it still succeeds: the column without the index, and filters still answer", async () => {
    const name = `${schema!.name}_noext`;
    await inFreshSchema(name, async (other) => {
      await runMigrations(other, postgresDialect, [initialTables]);
      await other
        .insertInto("scimkit_resources")
        .values([userRow("a", ["a@dept7.io"]), userRow("b", ["b@dept8.io"])])
        .execute();
      await other.transaction().execute(async (trx) => {
        // An extension that does not exist fails as one the role may not create does, in a savepoint.
        expect(await addEmailsSearch(trx, { trigramExtension: "scimkit_no_such_extension" })).toEqual({ column: true, index: false });
        // The transaction is still usable.
        expect(await matching(trx, 'emails.value co "@DEPT7."')).toEqual(["a"]);
      });
      const { generated, indexes } = await columnsAndIndexes(name);
      expect(generated).toBeDefined();
      expect(indexes.some((index) => index.includes("emails_search"))).toBe(false);
      expect(await matching(other, 'emails[type eq "work" and value co "@dept8."]')).toEqual(["b"]);
    });
  });
});

describe("migration 2 (emails_search) on SQLite", () => {
  let db: Kysely<SqlStoreDatabase>;
  beforeAll(() => {
    const database = new Database(":memory:");
    registerSqliteFunctions(database);
    db = new Kysely<SqlStoreDatabase>({ dialect: new SqliteDialect({ database }) });
  });
  afterAll(async () => db?.destroy());

  it("is recorded and changes nothing", async () => {
    expect(await runMigrations(db, sqliteDialect, throughVersion2)).toEqual([1, 2]);
    expect(await runMigrations(db, sqliteDialect, throughVersion2)).toEqual([]);
    const columns = await sql<{ name: string }>`select name from pragma_table_info('scimkit_resources')`.execute(db);
    expect(columns.rows.map((row) => row.name)).not.toContain("emails_search");
  });
});
