/**
 * Migration 5 (SQLite's e-mail search table): the table holds exactly the folded e-mail values of
 * the rows — after the migration fills it for existing rows, and after inserts, updates that
 * change e-mails or leave them, deletes, organization deletes and a VACUUM — read back from the
 * index itself (fts5vocab); the store turns the prefilter on only where the table is; the list of
 * `emails[type eq "work" and value co "@dept7."]` reads it (EXPLAIN QUERY PLAN) and answers
 * 100,000 users correctly; where the SQLite build refuses the table, the migration is recorded
 * without it; and a connection without `scimkit_lower` cannot migrate, insert or update
 * attributes (it fails instead of leaving the table behind), yet can delete. On PostgreSQL the
 * migration changes nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { compileFilter } from "../../../scim/filter/resolve-filter.js";
import type { ScimObject } from "../../../scim/schema/normalize-value.js";
import { createSchemaRegistry } from "../../../scim/schema/schema-registry.js";
import { postgresDialect } from "../dialects/postgres-dialect.js";
import { sqliteDialect } from "../dialects/sqlite-dialect.js";
import { compileFilterSql } from "../filter/compile-filter-sql.js";
import { SQLITE_EMAILS_SEARCH } from "../filter/sqlite-filter-dialect.js";
import { createTestSchema, describePostgres, type TestSchema } from "../postgres-test-database.fixture.js";
import { sqlStore, type SqlStore } from "../sql-store.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { addSqliteEmailsSearch, sqliteEmailsSearch } from "./0005-sqlite-emails-search.js";
import { runMigrations } from "./run-migrations.js";
import { sqlMigrations } from "./sql-migrations.js";

const users = createSchemaRegistry().resourceType("User")!;
const NOW = "2024-01-01T00:00:00.000Z";
// The migrations before this one, and up to it: later versions are theirs to test.
const throughVersion4 = sqlMigrations.filter((migration) => migration.version <= 4);
const throughVersion5 = sqlMigrations.filter((migration) => migration.version <= 5);

type Email = Readonly<Record<string, unknown>>;

const userAttributes = (userName: string, emails: readonly Email[]): ScimObject => ({ userName, ...(emails.length > 0 ? { emails: [...emails] } : {}) });
const work = (value: string): Email => ({ value, type: "work" });

async function createUser(store: SqlStore, orgId: string, id: string, emails: readonly Email[]): Promise<void> {
  await store.create({
    orgId,
    resourceType: "User",
    id,
    now: NOW,
    attributes: userAttributes(id, emails),
    uniqueKeys: [{ attribute: "userName", value: id }],
    unknownMembers: "ignore",
  });
}

async function replaceUser(store: SqlStore, orgId: string, id: string, attributes: ScimObject): Promise<void> {
  await store.update({ orgId, resourceType: "User", id, now: NOW, attributes, uniqueKeys: [{ attribute: "userName", value: String(attributes["userName"]) }], unknownMembers: "ignore", members: false });
}

/**
 * The text the index holds per rowid, rebuilt from its trigrams: fts5vocab's `instance` table
 * names each trigram with its row and position, so a row's text is the first character of each
 * trigram in position order plus the last two of the last one.
 */
async function indexedTexts(db: Kysely<SqlStoreDatabase>): Promise<Map<number, string>> {
  await sql`create virtual table if not exists temp.scimkit_test_vocab using fts5vocab(main, ${sql.lit(SQLITE_EMAILS_SEARCH.table)}, instance)`.execute(db);
  const rows = await sql<{ doc: number; offset: number; term: string }>`select doc, "offset", term from temp.scimkit_test_vocab order by doc, "offset"`.execute(db);
  const texts = new Map<number, string>();
  const terms = new Map<number, string[]>();
  for (const { doc, offset, term } of rows.rows) {
    const list = terms.get(doc) ?? [];
    expect(offset, `row ${doc}: trigram positions are consecutive`).toBe(list.length);
    list.push(term);
    terms.set(doc, list);
  }
  for (const [doc, list] of terms) texts.set(doc, list.map((term) => [...term][0]).join("") + [...list[list.length - 1]!].slice(1).join(""));
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
    const elements = Array.isArray(emails) ? emails.filter((email): email is ScimObject => typeof email === "object" && email !== null && !Array.isArray(email)) : [];
    if (elements.length > 0) texts.set(rowid, JSON.stringify(elements.map((email) => email["value"] ?? null)).toLowerCase());
  }
  return texts;
}

async function expectIndexAgrees(db: Kysely<SqlStoreDatabase>, step: string): Promise<void> {
  const expected = await expectedTexts(db);
  expect(expected.size, `${step}: the scenario has rows with e-mails`).toBeGreaterThan(0);
  expect(Object.fromEntries(await indexedTexts(db)), step).toEqual(Object.fromEntries(expected));
}

async function ids(store: SqlStore, orgId: string, text: string): Promise<string[]> {
  const filter = compileFilter(users, text);
  if (!filter.ok) throw new Error(filter.error.detail);
  const page = await store.list({ orgId, resourceType: "User", filter: filter.value, page: { kind: "index", startIndex: 1, count: 1000 }, members: false });
  return page.resources.map((resource) => resource.id);
}

const usesTable = (store: SqlStore, text: string): boolean => {
  const filter = compileFilter(users, text);
  if (!filter.ok) throw new Error(filter.error.detail);
  const condition = compileFilterSql(filter.value, { dialect: store.dialect, resource: "r" });
  return store.db.selectFrom("scimkit_resources as r").select("r.id").where(condition).compile().sql.includes(SQLITE_EMAILS_SEARCH.table);
};

describe("migration 5 (the e-mail search table) on SQLite", () => {
  let store: SqlStore | undefined;
  let directory: string | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
    if (directory) rmSync(directory, { recursive: true, force: true });
    directory = undefined;
  });

  it("keeps the table equal to the rows' e-mails through every kind of write, and the store's filters on it", async () => {
    store = await sqlStore({ sqlite: ":memory:" });
    expect(usesTable(store, 'emails.value co "@dept7."'), "the store turned the prefilter on").toBe(true);
    const { db } = store;

    // The same ids in two organizations, with e-mails that fold (É, Σ, İ) and hold pattern characters.
    for (const orgId of ["acme", "beta"]) {
      await createUser(store, orgId, "ann", [work(`Ann@Dept7.${orgId}.io`), { value: "ÉLODIE+50%_*?[x]@home.io", type: "home" }]);
      await createUser(store, orgId, "bob", [work("ΣΟΦΊΑ@x.gr"), { type: "other" }]);
      await createUser(store, orgId, "cyd", []);
      await createUser(store, orgId, "dee", [work("İstanbul@x.tr")]);
    }
    await store.create({ orgId: "acme", resourceType: "Group", id: "g1", now: NOW, attributes: { displayName: "G" }, uniqueKeys: [{ attribute: "displayName", value: "g" }], members: ["ann"], unknownMembers: "ignore" });
    await expectIndexAgrees(db, "after inserts");
    expect(await ids(store, "acme", 'emails[type eq "work" and value co "@DEPT7."]')).toEqual(["ann"]);

    await replaceUser(store, "acme", "ann", userAttributes("ann", [work("ann@dept8.acme.io")]));
    await expectIndexAgrees(db, "after an update that changes e-mails");
    expect(await ids(store, "acme", 'emails.value co "@dept7."')).toEqual([]);
    expect(await ids(store, "acme", 'emails.value co "@dept8."')).toEqual(["ann"]);

    const before = Object.fromEntries(await indexedTexts(db));
    await replaceUser(store, "acme", "bob", { ...userAttributes("bob", [work("ΣΟΦΊΑ@x.gr"), { type: "other" }]), active: false });
    expect(Object.fromEntries(await indexedTexts(db)), "after an update that keeps e-mails").toEqual(before);

    await replaceUser(store, "acme", "cyd", userAttributes("cyd", [work("cyd@new.io")]));
    await replaceUser(store, "acme", "dee", userAttributes("dee", []));
    await expectIndexAgrees(db, "after e-mails were added to a user without and all removed from another");
    expect(await ids(store, "acme", 'emails.value eq "CYD@new.io"')).toEqual(["cyd"]);
    expect(await ids(store, "acme", 'emails.value sw "İst"')).toEqual([]);
    expect(await ids(store, "beta", 'emails.value sw "İst"')).toEqual(["dee"]);

    expect(await store.delete({ orgId: "acme", resourceType: "User", id: "ann", now: NOW })).toBe(true);
    await expectIndexAgrees(db, "after a delete");
    expect(await ids(store, "acme", 'emails.value co "ann"')).toEqual([]);

    // deleteScimOrganizationRows deletes set-wise; the delete trigger fires for each row.
    expect(await store.deleteOrganization?.("beta")).toBe(4);
    await expectIndexAgrees(db, "after an organization delete");
    expect(await ids(store, "beta", 'emails.value co "@x.gr"')).toEqual([]);
    expect(await ids(store, "acme", 'emails.value co "@x.gr"')).toEqual(["bob"]);

    // Gaps in the rowids now; VACUUM keeps rowids of a table with indexes, so the table still matches.
    await sql`vacuum`.execute(db);
    await expectIndexAgrees(db, "after VACUUM");
    expect(await ids(store, "acme", 'emails.value co "ΣΟΦ"')).toEqual(["bob"]);
  });

  it("fills the table for the rows a database already holds, and a store opened afterwards uses it", async () => {
    directory = mkdtempSync(join(tmpdir(), "scimkit-m5-"));
    const file = join(directory, "scim.db");
    store = await sqlStore({ sqlite: file, migrate: false });
    expect(await runMigrations(store.db, sqliteDialect, throughVersion4)).toEqual([1, 2, 4]);
    for (let index = 0; index < 30; index++) await createUser(store, "acme", `u${String(index).padStart(2, "0")}`, [work(`u${index}@Dept${index % 3}.io`), work(`x${index}@other.io`)]);
    expect(usesTable(store, 'emails.value co "@dept7."'), "no table: no prefilter").toBe(false);
    await store.close();

    store = await sqlStore({ sqlite: file });
    expect(await store.migrate()).toEqual([]);
    await expectIndexAgrees(store.db, "after the migration");
    expect(usesTable(store, 'emails.value co "@dept2."')).toBe(true);
    expect(await ids(store, "acme", 'emails[type eq "work" and value co "@DEPT2."]')).toEqual(["u02", "u05", "u08", "u11", "u14", "u17", "u20", "u23", "u26", "u29"]);
    // Rebuilding is idempotent: the same rows again, not twice.
    const made = await sqliteDialect.writeTransaction(store.db, (trx) => addSqliteEmailsSearch(trx));
    expect(made).toEqual({ table: true });
    await expectIndexAgrees(store.db, "after rebuilding");

    // A table that no longer matches its rows (rowids renumbered by a `.dump` restore, say) is
    // rebuilt by running the migration again, as docs/choosing-a-store.md tells operators.
    await sql`delete from ${sql.table(SQLITE_EMAILS_SEARCH.table)} where rowid in (select rowid from scimkit_resources where id in ('u02', 'u05'))`.execute(store.db);
    expect(await ids(store, "acme", 'emails[type eq "work" and value co "@DEPT2."]')).not.toContain("u02");
    await store.db.deleteFrom("scimkit_migrations").where("version", "=", 5).execute();
    await store.close();
    store = await sqlStore({ sqlite: file });
    await expectIndexAgrees(store.db, "after the migration ran again");
    expect(await ids(store, "acme", 'emails[type eq "work" and value co "@DEPT2."]')).toContain("u02");
  });

  it("where the SQLite build refuses the table it is recorded without it, and filters still answer", async () => {
    directory = mkdtempSync(join(tmpdir(), "scimkit-m5-"));
    const file = join(directory, "scim.db");
    store = await sqlStore({ sqlite: file, migrate: false });
    await runMigrations(store.db, sqliteDialect, throughVersion4);
    await createUser(store, "acme", "ann", [work("ann@dept7.io")]);
    // A module that does not exist fails as FTS5 does in a build without it, in a savepoint.
    const outcome = await sqliteDialect.migrationTransaction(store.db, async (trx) => {
      const result = await addSqliteEmailsSearch(trx, { module: "scimkit_no_such_module" });
      // The transaction is still usable.
      await trx.insertInto("scimkit_migrations").values({ namespace: "scim", version: sqliteEmailsSearch.version, name: sqliteEmailsSearch.name, applied_at: NOW }).execute();
      return result;
    });
    expect(outcome).toEqual({ table: false, reason: expect.stringContaining("scimkit_no_such_module") });
    await store.close();

    store = await sqlStore({ sqlite: file });
    const tables = await sql<{ name: string }>`select name from sqlite_schema where name like ${`${SQLITE_EMAILS_SEARCH.table}%`}`.execute(store.db);
    expect(tables.rows).toEqual([]);
    expect(usesTable(store, 'emails.value co "@dept7."')).toBe(false);
    expect(await ids(store, "acme", 'emails[type eq "work" and value co "@dept7."]')).toEqual(["ann"]);
  });

  it("needs scimkit_lower to migrate, insert and update attributes, and not to delete", async () => {
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

    store = await sqlStore({ sqlite: file });
    await createUser(store, "acme", "ann", [work("ann@x.io")]);
    await createUser(store, "acme", "bob", [work("bob@x.io")]);
    await store.close();
    store = undefined;

    // A tool's connection without the function (the sqlite3 shell): SQLite resolves the function
    // when it prepares a statement whose triggers call it, so inserts and updates of `attributes`
    // fail there — rather than leaving the table behind — while deletes and other columns' updates
    // go through.
    const tool = bare();
    try {
      const row = (id: string, attributes: ScimObject) => ({ org_id: "acme", id, resource_type: "User", version: 1, created: NOW, last_modified: NOW, external_id: null, attributes: JSON.stringify(attributes), member_seq: null });
      await tool.db.updateTable("scimkit_resources").set({ version: 2 }).where("id", "=", "ann").execute();
      await tool.db.deleteFrom("scimkit_resources").where("id", "=", "bob").execute();
      await expect(tool.db.insertInto("scimkit_resources").values(row("cyd", { userName: "cyd" })).execute()).rejects.toThrow(/no such function: scimkit_lower/);
      await expect(
        tool.db.updateTable("scimkit_resources").set({ attributes: JSON.stringify(userAttributes("ann", [work("new@x.io")])) }).where("id", "=", "ann").execute(),
      ).rejects.toThrow(/no such function: scimkit_lower/);
    } finally {
      await tool.db.destroy();
    }

    store = await sqlStore({ sqlite: file });
    await expectIndexAgrees(store.db, "after the tool's writes");
    expect(await ids(store, "acme", 'emails.value co "@x.io"')).toEqual(["ann"]);
  });
});

describe("the e-mail search table at 100,000 users", () => {
  const COUNT = 100_000;
  const DEPARTMENTS = 20;
  const id = (index: number): string => `u${String(index).padStart(6, "0")}`;
  let store: SqlStore;

  beforeAll(async () => {
    store = await sqlStore({ sqlite: ":memory:" });
    await store.db.transaction().execute(async (trx) => {
      for (let start = 0; start < COUNT; start += 1000) {
        const rows = Array.from({ length: Math.min(1000, COUNT - start) }, (_, offset) => {
          const index = start + offset;
          const attributes = userAttributes(`user${index}@dept${index % DEPARTMENTS}.example.com`, [
            { value: `user${index}@dept${index % DEPARTMENTS}.example.com`, type: "work", primary: true },
            { value: `User.${index}@Mail.Example.org`, type: "other" },
          ]);
          return { org_id: "bench", id: id(index), resource_type: "User", version: 1, created: NOW, last_modified: NOW, external_id: null, attributes: JSON.stringify(attributes), member_seq: null };
        });
        await trx.insertInto("scimkit_resources").values(rows).execute();
      }
    });
  }, 120_000);
  afterAll(async () => store?.close());

  const list = async (text: string, count = 50) => {
    const filter = compileFilter(users, text);
    if (!filter.ok) throw new Error(filter.error.detail);
    return store.list({ orgId: "bench", resourceType: "User", filter: filter.value, page: { kind: "index", startIndex: 1, count }, members: false });
  };

  it('answers emails[type eq "work" and value co "@dept7."] with count=50 exactly', async () => {
    const page = await list('emails[type eq "work" and value co "@dept7."]');
    expect(page.totalResults).toBe(COUNT / DEPARTMENTS);
    expect(page.resources.map((resource) => resource.id)).toEqual(Array.from({ length: 50 }, (_, k) => id(7 + k * DEPARTMENTS)));
  });

  it("answers other shapes exactly: one address, the other type, no match, case", async () => {
    expect((await list('emails.value eq "USER12345@dept5.example.com"')).resources.map((resource) => resource.id)).toEqual([id(12345)]);
    expect((await list('emails[type eq "work" and value co "@mail.example."]')).totalResults).toBe(0);
    expect((await list('emails[type eq "other" and value sw "user.9999"]', 100)).resources.map((resource) => resource.id)).toEqual([
      id(9999),
      ...Array.from({ length: 10 }, (_, k) => id(99990 + k)),
    ]);
    expect((await list('emails.value ew "@DEPT19.example.com"')).totalResults).toBe(COUNT / DEPARTMENTS);
    expect((await list('emails.value co "@dept20."')).totalResults).toBe(0);
  });

  it("reads the list through the table (EXPLAIN QUERY PLAN)", async () => {
    const filter = compileFilter(users, 'emails[type eq "work" and value co "@dept7."]');
    if (!filter.ok) throw new Error(filter.error.detail);
    // The list query's shape (`listResources`): the filter, list order, one page.
    const query = store.db
      .selectFrom("scimkit_resources as r")
      .select(["r.id", "r.attributes"])
      .where("r.org_id", "=", "bench")
      .where("r.resource_type", "=", "User")
      .where(compileFilterSql(filter.value, { dialect: store.dialect, resource: "r" }))
      .orderBy("r.id")
      .limit(50)
      .compile();
    const plan = await store.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
    const details = plan.rows.map((row) => row.detail);
    const shown = details.join("\n");
    // The matches, collected once from the FTS table…
    expect(details.some((detail) => /^SCAN scimkit_emails_search VIRTUAL TABLE INDEX \d+:M/.test(detail)), shown).toBe(true);
    // …probed while the organization's users are read in list order, so the page stops early.
    expect(details.some((detail) => detail.startsWith("SEARCH r USING INDEX scimkit_resources_type_id (org_id=? AND resource_type=?)")), shown).toBe(true);
    expect(details.filter((detail) => detail.startsWith("SCAN r ") || detail === "SCAN r" || detail.includes("TEMP B-TREE")), shown).toEqual([]);
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
    const tablesBefore = await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema() order by 1`.execute(db);
    expect(await runMigrations(db, postgresDialect, throughVersion5)).toEqual([5]);
    const tablesAfter = await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema() order by 1`.execute(db);
    expect(tablesAfter.rows).toEqual(tablesBefore.rows);
    const triggers = await sql<{ n: number }>`select count(*)::int as n from information_schema.triggers where trigger_schema = current_schema()`.execute(db);
    expect(triggers.rows[0]?.n).toBe(0);
  });
});
