/**
 * Migration 5 (SQLite's e-mail search table, replaced by migration 8), with the versions up to 5
 * only: the table holds exactly the folded e-mail values of the rows — after the migration fills
 * it for existing rows, and after updates and deletes — read back from the index itself
 * (fts5vocab); where the SQLite build refuses the table, it says why; and a connection without
 * `scimkit_lower` cannot migrate, insert or update attributes, yet can delete — the trouble
 * migration 8 ends (its tests: `0008-sqlite-emails-search-rows.test.ts`, which also took over
 * this file's store-level and 100,000-user tests). On PostgreSQL the migration changes nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ScimObject } from "../../../scim/schema/normalize-value.js";
import { postgresDialect } from "../dialects/postgres-dialect.js";
import { sqliteDialect } from "../dialects/sqlite-dialect.js";
import { SQLITE_EMAILS_SEARCH } from "../filter/sqlite-filter-dialect.js";
import { createTestSchema, describePostgres, type TestSchema } from "../postgres-test-database.fixture.js";
import { sqlStore, type SqlStore } from "../sql-store.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { addSqliteEmailsSearch, sqliteEmailsSearch } from "./0005-sqlite-emails-search.js";
import { runMigrations } from "./run-migrations.js";
import { sqlMigrations } from "./sql-migrations.js";
import { NOW, userAttributes, work, createUser, replaceUser } from "./email-users.fixture.js";

// The migrations before this one, and up to it: later versions are theirs to test.
const throughVersion4 = sqlMigrations.filter((migration) => migration.version <= 4);
const throughVersion5 = sqlMigrations.filter((migration) => migration.version <= 5);

/**
 * The text the index holds per rowid, rebuilt from its trigrams: fts5vocab's `instance` table
 * names each trigram with its row and position, so a row's text is the first character of each
 * trigram in position order plus the last two of the last one.
 */
async function indexedTexts(db: Kysely<SqlStoreDatabase>): Promise<Map<number, string>> {
  await sql`create virtual table if not exists temp.scimkit_test_vocab using fts5vocab(main, ${sql.lit(SQLITE_EMAILS_SEARCH.table)}, instance)`.execute(
    db,
  );
  const rows = await sql<{
    doc: number;
    offset: number;
    term: string;
  }>`select doc, "offset", term from temp.scimkit_test_vocab order by doc, "offset"`.execute(db);
  const texts = new Map<number, string>();
  const terms = new Map<number, string[]>();
  for (const { doc, offset, term } of rows.rows) {
    const list = terms.get(doc) ?? [];
    expect(offset, `row ${doc}: trigram positions are consecutive`).toBe(list.length);
    list.push(term);
    terms.set(doc, list);
  }
  for (const [doc, list] of terms)
    texts.set(doc, list.map((term) => [...term][0]).join("") + [...list[list.length - 1]!].slice(1).join(""));
  // A text shorter than three characters has no trigram; the table would still count the row.
  const counted = await sql<{ n: number }>`select count(*) as n from ${sql.table(SQLITE_EMAILS_SEARCH.table)}`.execute(db);
  expect(Number(counted.rows[0]?.n), "rows in the table").toBe(texts.size);
  return texts;
}

/**
 * What the index should hold, worked out in JavaScript from the rows: per row with e-mail
 * objects, the JSON array of their values, lower-cased as a whole (`FilterDialect.searchContains`).
 */
async function expectedTexts(db: Kysely<SqlStoreDatabase>): Promise<Map<number, string>> {
  const rows = await sql<{ rowid: number; attributes: string }>`select rowid, attributes from scimkit_resources order by rowid`.execute(db);
  const texts = new Map<number, string>();
  for (const { rowid, attributes } of rows.rows) {
    const emails = (JSON.parse(attributes) as ScimObject)["emails"];
    const elements = Array.isArray(emails)
      ? emails.filter((email): email is ScimObject => typeof email === "object" && email !== null && !Array.isArray(email))
      : [];
    if (elements.length > 0) texts.set(rowid, JSON.stringify(elements.map((email) => email["value"] ?? null)).toLowerCase());
  }
  return texts;
}

async function expectIndexAgrees(db: Kysely<SqlStoreDatabase>, step: string): Promise<void> {
  const expected = await expectedTexts(db);
  expect(expected.size, `${step}: the scenario has rows with e-mails`).toBeGreaterThan(0);
  expect(Object.fromEntries(await indexedTexts(db)), step).toEqual(Object.fromEntries(expected));
}

describe("migration 5 (the e-mail search table) on SQLite, before migration 8 replaces it", () => {
  let store: SqlStore | undefined;
  let directory: string | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
    if (directory) rmSync(directory, { recursive: true, force: true });
    directory = undefined;
  });

  // `migrate: false` and versions up to 5 only: migration 8 drops what is tested here.
  const openThroughVersion4 = async (file: string): Promise<SqlStore> => {
    const opened = await sqlStore({ sqlite: file, migrate: false });
    expect(await runMigrations(opened.db, sqliteDialect, throughVersion4)).toEqual([1, 2, 4]);
    return opened;
  };

  it("fills the table for the rows a database already holds, and its triggers keep it through writes", async () => {
    directory = mkdtempSync(join(tmpdir(), "scimkit-m5-"));
    store = await openThroughVersion4(join(directory, "scim.db"));
    for (const orgId of ["acme", "beta"]) {
      await createUser(store, orgId, "ann", [work(`Ann@Dept7.${orgId}.io`), { value: "ÉLODIE+50%_*?[x]@home.io", type: "home" }]);
      await createUser(store, orgId, "bob", [work("ΣΟΦΊΑ@x.gr"), { type: "other" }]);
      await createUser(store, orgId, "cyd", []);
    }
    expect(await runMigrations(store.db, sqliteDialect, throughVersion5)).toEqual([5]);
    await expectIndexAgrees(store.db, "after the migration");

    await replaceUser(store, "acme", "ann", userAttributes("ann", [work("ann@dept8.acme.io")]));
    await replaceUser(store, "acme", "cyd", userAttributes("cyd", [work("cyd@new.io")]));
    await expectIndexAgrees(store.db, "after updates");
    expect(await store.delete({ orgId: "acme", resourceType: "User", id: "bob", now: NOW })).toBe(true);
    expect(await store.deleteOrganization?.("beta")).toBe(3);
    await expectIndexAgrees(store.db, "after deletes");

    // Rebuilding is idempotent: the same rows again, not twice.
    expect(await sqliteDialect.writeTransaction(store.db, (trx) => addSqliteEmailsSearch(trx))).toEqual({ table: true });
    await expectIndexAgrees(store.db, "after rebuilding");
  });

  it("where the SQLite build refuses the table it reports why, in a savepoint", async () => {
    directory = mkdtempSync(join(tmpdir(), "scimkit-m5-"));
    store = await openThroughVersion4(join(directory, "scim.db"));
    await createUser(store, "acme", "ann", [work("ann@dept7.io")]);
    // A module that does not exist fails as FTS5 does in a build without it, in a savepoint.
    const outcome = await sqliteDialect.migrationTransaction(store.db, async (trx) => {
      const result = await addSqliteEmailsSearch(trx, { module: "scimkit_no_such_module" });
      // The transaction is still usable.
      await trx
        .insertInto("scimkit_migrations")
        .values({ namespace: "scim", version: sqliteEmailsSearch.version, name: sqliteEmailsSearch.name, applied_at: NOW })
        .execute();
      return result;
    });
    expect(outcome).toEqual({ table: false, reason: expect.stringContaining("scimkit_no_such_module") });
    const tables = await sql<{ name: string }>`select name from sqlite_schema where name like ${`${SQLITE_EMAILS_SEARCH.table}%`}`.execute(
      store.db,
    );
    expect(tables.rows).toEqual([]);
  });

  it("needs scimkit_lower to migrate, insert and update attributes, and not to delete (what issue 14 found, and migration 8 ends)", async () => {
    directory = mkdtempSync(join(tmpdir(), "scimkit-m5-"));
    const file = join(directory, "scim.db");
    const bare = () => {
      const database = new Database(file);
      return { database, db: new Kysely<SqlStoreDatabase>({ dialect: new SqliteDialect({ database }) }) };
    };
    const unregistered = bare();
    try {
      await runMigrations(unregistered.db, sqliteDialect, throughVersion4);
      await expect(runMigrations(unregistered.db, sqliteDialect, throughVersion5)).rejects.toThrow(/lacks scimkit_lower/);
    } finally {
      await unregistered.db.destroy();
    }

    store = await sqlStore({ sqlite: file, migrate: false });
    expect(await runMigrations(store.db, sqliteDialect, throughVersion5)).toEqual([5]);
    await createUser(store, "acme", "ann", [work("ann@x.io")]);
    await createUser(store, "acme", "bob", [work("bob@x.io")]);
    await store.close();
    store = undefined;

    const tool = bare();
    try {
      const row = (id: string, attributes: ScimObject) => ({
        org_id: "acme",
        id,
        resource_type: "User",
        version: 1,
        created: NOW,
        last_modified: NOW,
        external_id: null,
        attributes: JSON.stringify(attributes),
        member_seq: null,
      });
      await tool.db.updateTable("scimkit_resources").set({ version: 2 }).where("id", "=", "ann").execute();
      await tool.db.deleteFrom("scimkit_resources").where("id", "=", "bob").execute();
      await expect(
        tool.db
          .insertInto("scimkit_resources")
          .values(row("cyd", { userName: "cyd" }))
          .execute(),
      ).rejects.toThrow(/no such function: scimkit_lower/);
      await expect(
        tool.db
          .updateTable("scimkit_resources")
          .set({ attributes: JSON.stringify(userAttributes("ann", [work("new@x.io")])) })
          .where("id", "=", "ann")
          .execute(),
      ).rejects.toThrow(/no such function: scimkit_lower/);
    } finally {
      await tool.db.destroy();
    }
  });
});

describePostgres("migration 5 (the e-mail search table) on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  let db: Kysely<SqlStoreDatabase>;
  beforeAll(async () => {
    schema = await createTestSchema(url);
    db = new Kysely<SqlStoreDatabase>({ dialect: new PostgresDialect({ pool: schema.pool() }) });
  });
  afterAll(async () => schema?.drop());

  it("is recorded and changes nothing", async () => {
    expect(await runMigrations(db, postgresDialect, throughVersion4)).toEqual([1, 2, 4]);
    const tablesBefore = await sql<{
      name: string;
    }>`select tablename as name from pg_tables where schemaname = current_schema() order by 1`.execute(db);
    expect(await runMigrations(db, postgresDialect, throughVersion5)).toEqual([5]);
    const tablesAfter = await sql<{
      name: string;
    }>`select tablename as name from pg_tables where schemaname = current_schema() order by 1`.execute(db);
    expect(tablesAfter.rows).toEqual(tablesBefore.rows);
    const triggers = await sql<{
      n: number;
    }>`select count(*)::int as n from information_schema.triggers where trigger_schema = current_schema()`.execute(db);
    expect(triggers.rows[0]?.n).toBe(0);
  });
});
