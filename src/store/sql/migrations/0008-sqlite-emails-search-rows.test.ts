/**
 * Migration 8 (SQLite's e-mail search, kept by the store): a database built by the migrations
 * before it — migration 5's triggers writing its table — is converted, so that afterwards its
 * schema calls no function of ours and needs no SQLite newer than 3.40, and `co`/`sw`/`ew`/`eq`
 * on e-mails select what the in-memory evaluation selects; the store keeps the search equal to
 * the rows through every kind of write (read back from the FTS5 index itself, fts5vocab); a
 * connection without `scimkit_lower` writes users; `.dump`'s renumbering of resource rowids no
 * longer matters; where the build refuses FTS5 the migration is recorded without the tables; the
 * list at 100,000 users reads the index (EXPLAIN QUERY PLAN). On PostgreSQL it changes nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { matchesFilter } from "../../../scim/filter/matches-filter.js";
import { compileFilter } from "../../../scim/filter/resolve-filter.js";
import type { ScimObject } from "../../../scim/schema/normalize-value.js";
import { createSchemaRegistry } from "../../../scim/schema/schema-registry.js";
import { resourceView } from "../../resource-view.js";
import { postgresDialect } from "../dialects/postgres-dialect.js";
import { emailsSearchText } from "../dialects/sqlite-emails-search-rows.js";
import { sqliteDialect } from "../dialects/sqlite-dialect.js";
import { compileFilterSql } from "../filter/compile-filter-sql.js";
import { SQLITE_EMAILS_SEARCH } from "../filter/sqlite-filter-dialect.js";
import { createTestSchema, describePostgres, type TestSchema } from "../postgres-test-database.fixture.js";
import { sqlStore, type SqlStore } from "../sql-store.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { addSqliteEmailsSearchRows, sqliteEmailsSearchRows } from "./0008-sqlite-emails-search-rows.js";
import { runMigrations } from "./run-migrations.js";
import { sqlMigrations } from "./sql-migrations.js";
import { NOW, userAttributes, work, home, createUser, replaceUser, type Email } from "./email-users.fixture.js";

const users = createSchemaRegistry().resourceType("User")!;
const throughVersion7 = sqlMigrations.filter((migration) => migration.version <= 7);
const throughVersion8 = sqlMigrations.filter((migration) => migration.version <= 8);
const { table, keys } = SQLITE_EMAILS_SEARCH;

const keyOf = (orgId: string, id: string): string => `${orgId}/${id}`;

/**
 * The text the index holds per resource, rebuilt from its trigrams: fts5vocab's `instance` table
 * names each trigram with its row and position, so a row's text is the first character of each
 * trigram in position order plus the last two of the last one. FTS5's own integrity check also
 * compares the index with the text the table keeps.
 */
async function indexedTexts(db: Kysely<SqlStoreDatabase>): Promise<Map<string, string>> {
  await sql`insert into ${sql.table(table)} (${sql.table(table)}) values ('integrity-check')`.execute(db);
  await sql`create virtual table if not exists temp.scimkit_test_vocab using fts5vocab(main, ${sql.lit(table)}, instance)`.execute(db);
  const rows = await sql<{
    doc: number;
    offset: number;
    term: string;
  }>`select doc, "offset", term from temp.scimkit_test_vocab order by doc, "offset"`.execute(db);
  const terms = new Map<number, string[]>();
  for (const { doc, offset, term } of rows.rows) {
    const list = terms.get(doc) ?? [];
    expect(offset, `row ${doc}: trigram positions are consecutive`).toBe(list.length);
    list.push(term);
    terms.set(doc, list);
  }
  const keyRows = await sql<{
    search_id: number;
    org_id: string;
    id: string;
  }>`select search_id, org_id, id from ${sql.table(keys)}`.execute(db);
  const byId = new Map(keyRows.rows.map((row) => [row.search_id, keyOf(row.org_id, row.id)]));
  const texts = new Map<string, string>();
  for (const [doc, list] of terms) {
    const key = byId.get(doc);
    expect(key, `FTS row ${doc} has a key row`).toBeDefined();
    texts.set(key ?? "", list.map((term) => [...term][0]).join("") + [...list[list.length - 1]!].slice(1).join(""));
  }
  // A text shorter than three characters has no trigram; the table would still count the row.
  const counted = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(db);
  expect(Number(counted.rows[0]?.n), "rows in the FTS table").toBe(texts.size);
  expect(keyRows.rows.length, "key rows").toBe(texts.size);
  return texts;
}

/** What the index should hold, worked out from the rows (`emailsSearchText`). */
async function expectedTexts(db: Kysely<SqlStoreDatabase>): Promise<Map<string, string>> {
  const rows = await db.selectFrom("scimkit_resources").select(["org_id", "id", "attributes"]).execute();
  const texts = new Map<string, string>();
  for (const row of rows) {
    const text = emailsSearchText(JSON.parse(String(row.attributes)) as ScimObject);
    if (text !== undefined) texts.set(keyOf(row.org_id, row.id), text);
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
  const page = await store.list({
    orgId,
    resourceType: "User",
    filter: filter.value,
    page: { kind: "index", startIndex: 1, count: 1000 },
    members: false,
  });
  return page.resources.map((resource) => resource.id);
}

/** The ids `matchesFilter` accepts among every user of `orgId`: the reference (architecture §3). */
async function referenceIds(store: SqlStore, orgId: string, text: string): Promise<string[]> {
  const filter = compileFilter(users, text);
  if (!filter.ok) throw new Error(filter.error.detail);
  const all = await store.list({ orgId, resourceType: "User", page: { kind: "index", startIndex: 1, count: 1000 }, members: false });
  return all.resources.filter((resource) => matchesFilter(resourceView("User", resource), filter.value)).map((resource) => resource.id);
}

const usesTable = (store: SqlStore, text: string): boolean => {
  const filter = compileFilter(users, text);
  if (!filter.ok) throw new Error(filter.error.detail);
  const condition = compileFilterSql(filter.value, { dialect: store.dialect, resource: "r" });
  return store.db.selectFrom("scimkit_resources as r").select("r.id").where(condition).compile().sql.includes(SQLITE_EMAILS_SEARCH.table);
};

/** The schema's SQL text: what a tool must understand to open the file. */
async function schemaSql(db: Kysely<SqlStoreDatabase>): Promise<string> {
  const rows = await sql<{ sql: string | null }>`select sql from sqlite_schema`.execute(db);
  return rows.rows.map((row) => row.sql ?? "").join(";\n");
}

/** Mixed case, non-ASCII (folding in more than one way), pattern characters, several e-mails. */
const TRICKY: readonly (readonly [string, readonly Email[]])[] = [
  ["ann", [work("Ann@Dept7.Example.io"), home("ÉLODIE+50%_*?[x]@Home.io")]],
  ["bob", [work("ΣΟΦΊΑ@X.gr"), { type: "other" }]],
  ["cyd", []],
  ["dee", [work("İstanbul@X.tr")]],
  ["eve", [work("JOSÉ@EXAMPLE.COM"), home("josé@example.com")]],
  ["fay", [work("ÄRGER@dept7.example"), home("o'Brien@x.ie")]],
  ["gus", [work('say"hi"@X.io'), home("back\\slash@X.io")]],
];

const NEEDLES = [
  "ann@",
  "@dept7.",
  "DEPT7",
  "élodie",
  "ÉLODIE+50%",
  "%_*?[x]",
  "σοφ",
  "ΣΟΦΊΑ@x.gr",
  "istanbul",
  "i̇stanbul@x.tr",
  "José",
  "JOSÉ@example.com",
  "ärger",
  "o'brien",
  'hi"@x',
  "@x.io",
  ".example",
  "example.com",
  "x.tr",
];

describe("migration 8 (the e-mail search the store keeps) on SQLite", () => {
  let store: SqlStore | undefined;
  let directory: string | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
    if (directory) rmSync(directory, { recursive: true, force: true });
    directory = undefined;
  });

  it("converts a database migration 5's triggers kept: no function of ours or SQLite > 3.40 in the schema, and co/sw/ew/eq agree with matchesFilter", async () => {
    directory = mkdtempSync(join(tmpdir(), "scimkit-m8-"));
    const file = join(directory, "scim.db");
    store = await sqlStore({ sqlite: file, migrate: false });
    expect(await runMigrations(store.db, sqliteDialect, throughVersion7)).toEqual([1, 2, 4, 5, 6, 7]);
    // The old schema: what the issue found the stock sqlite3 could not read.
    expect(await schemaSql(store.db)).toMatch(/scimkit_lower[\s\S]*order by e\.key/);
    for (const orgId of ["acme", "beta"]) for (const [id, emails] of TRICKY) await createUser(store, orgId, id, emails);
    await store.close();

    store = await sqlStore({ sqlite: file });
    const applied = await store.db
      .selectFrom("scimkit_migrations")
      .select("version")
      .where("namespace", "=", "scim")
      .where("version", "=", 8)
      .execute();
    expect(applied).toEqual([{ version: 8 }]);
    const schema = await schemaSql(store.db);
    expect(schema).not.toMatch(/scimkit_lower|contentless_delete|create trigger/i);
    const triggers = await sql<{ n: number }>`select count(*) as n from sqlite_schema where type = 'trigger'`.execute(store.db);
    expect(Number(triggers.rows[0]?.n)).toBe(0);
    await expectIndexAgrees(store.db, "after the migration");
    expect(usesTable(store, 'emails.value co "@dept7."'), "the store turned the prefilter on").toBe(true);

    for (const needle of NEEDLES) {
      for (const op of ["co", "sw", "ew", "eq"]) {
        for (const text of [
          `emails.value ${op} ${JSON.stringify(needle)}`,
          `emails[type eq "work" and value ${op} ${JSON.stringify(needle)}]`,
        ]) {
          for (const orgId of ["acme", "beta"])
            expect(await ids(store, orgId, text), `${orgId}: ${text}`).toEqual(await referenceIds(store, orgId, text));
        }
      }
    }
    // Some of them do select something: the comparison above is not between empty lists.
    expect(await ids(store, "acme", 'emails.value co "DEPT7"')).toEqual(["ann", "fay"]);
    expect(await ids(store, "beta", 'emails.value sw "élodie"')).toEqual(["ann"]);
    expect(await ids(store, "acme", 'emails.value ew "x.TR"')).toEqual(["dee"]);
  });

  it("keeps the search equal to the rows' e-mails through every kind of write, and the store's filters on it", async () => {
    store = await sqlStore({ sqlite: ":memory:" });
    expect(usesTable(store, 'emails.value co "@dept7."'), "the store turned the prefilter on").toBe(true);
    const { db } = store;

    for (const orgId of ["acme", "beta"]) {
      await createUser(store, orgId, "ann", [work(`Ann@Dept7.${orgId}.io`), home("ÉLODIE+50%_*?[x]@home.io")]);
      await createUser(store, orgId, "bob", [work("ΣΟΦΊΑ@x.gr"), { type: "other" }]);
      await createUser(store, orgId, "cyd", []);
      await createUser(store, orgId, "dee", [work("İstanbul@x.tr")]);
    }
    await store.create({
      orgId: "acme",
      resourceType: "Group",
      id: "g1",
      now: NOW,
      attributes: { displayName: "G" },
      uniqueKeys: [{ attribute: "displayName", value: "g" }],
      members: ["ann"],
      unknownMembers: "ignore",
    });
    await expectIndexAgrees(db, "after inserts");
    expect(await ids(store, "acme", 'emails[type eq "work" and value co "@DEPT7."]')).toEqual(["ann"]);

    await replaceUser(store, "acme", "ann", userAttributes("ann", [work("ann@dept8.acme.io")]));
    await expectIndexAgrees(db, "after an update that changes e-mails");
    expect(await ids(store, "acme", 'emails.value co "@dept7."')).toEqual([]);
    expect(await ids(store, "acme", 'emails.value co "@dept8."')).toEqual(["ann"]);

    const before = Object.fromEntries(await indexedTexts(db));
    const searchIds = await sql<{ search_id: number }>`select search_id from ${sql.table(keys)} order by search_id`.execute(db);
    await replaceUser(store, "acme", "bob", { ...userAttributes("bob", [work("ΣΟΦΊΑ@x.gr"), { type: "other" }]), active: false });
    expect(Object.fromEntries(await indexedTexts(db)), "after an update that keeps e-mails").toEqual(before);
    expect((await sql<{ search_id: number }>`select search_id from ${sql.table(keys)} order by search_id`.execute(db)).rows).toEqual(
      searchIds.rows,
    );

    await replaceUser(store, "acme", "cyd", userAttributes("cyd", [work("cyd@new.io")]));
    await replaceUser(store, "acme", "dee", userAttributes("dee", []));
    await expectIndexAgrees(db, "after e-mails were added to a user without and all removed from another");
    expect(await ids(store, "acme", 'emails.value eq "CYD@new.io"')).toEqual(["cyd"]);
    expect(await ids(store, "acme", 'emails.value sw "İst"')).toEqual([]);
    expect(await ids(store, "beta", 'emails.value sw "İst"')).toEqual(["dee"]);

    // A write that fails (a uniqueness clash) leaves the search as it was: one transaction.
    const unchanged = Object.fromEntries(await indexedTexts(db));
    await expect(
      store.update({
        orgId: "acme",
        resourceType: "User",
        id: "cyd",
        now: NOW,
        attributes: userAttributes("ann", [work("clash@x.io")]),
        uniqueKeys: [{ attribute: "userName", value: "ann" }],
        unknownMembers: "ignore",
        members: false,
      }),
    ).rejects.toMatchObject({ status: 409 });
    expect(Object.fromEntries(await indexedTexts(db)), "after a failed write").toEqual(unchanged);

    expect(await store.delete({ orgId: "acme", resourceType: "User", id: "ann", now: NOW })).toBe(true);
    await expectIndexAgrees(db, "after a delete");
    expect(await ids(store, "acme", 'emails.value co "ann"')).toEqual([]);

    expect(await store.deleteOrganization?.("beta")).toBe(4);
    await expectIndexAgrees(db, "after an organization delete");
    expect(await ids(store, "beta", 'emails.value co "@x.gr"')).toEqual([]);
    expect(await ids(store, "acme", 'emails.value co "@x.gr"')).toEqual(["bob"]);

    await sql`vacuum`.execute(db);
    await expectIndexAgrees(db, "after VACUUM");
    expect(await ids(store, "acme", 'emails.value co "ΣΟΦ"')).toEqual(["bob"]);
  });

  it("needs no function of ours: a bare connection migrates and writes users; migration 8 run again indexes what it wrote", async () => {
    directory = mkdtempSync(join(tmpdir(), "scimkit-m8-"));
    const file = join(directory, "scim.db");
    store = await sqlStore({ sqlite: file });
    await createUser(store, "acme", "ann", [work("ann@x.io")]);
    await createUser(store, "acme", "bob", [work("bob@x.io")]);
    await store.close();
    store = undefined;

    // A tool's connection: no scimkit_lower, foreign keys off (SQLite's default).
    const database = new Database(file);
    const tool = new Kysely<SqlStoreDatabase>({ dialect: new SqliteDialect({ database }) });
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
      await tool
        .insertInto("scimkit_resources")
        .values(row("cyd", userAttributes("cyd", [work("cyd@x.io")])))
        .execute();
      await tool
        .updateTable("scimkit_resources")
        .set({ attributes: JSON.stringify(userAttributes("ann", [work("new@x.io")])) })
        .where("id", "=", "ann")
        .execute();
      await tool.deleteFrom("scimkit_resources").where("id", "=", "bob").execute();
      // Migrating needs no function either.
      expect(await runMigrations(tool, sqliteDialect, throughVersion8)).toEqual([]);
      // What docs/choosing-a-store.md tells operators to do after such writes.
      await tool.deleteFrom("scimkit_migrations").where("namespace", "=", "scim").where("version", "=", 8).execute();
    } finally {
      await tool.destroy();
    }

    store = await sqlStore({ sqlite: file });
    await expectIndexAgrees(store.db, "after the tool's writes and migration 8 again");
    expect(await ids(store, "acme", 'emails.value co "@x.io"')).toEqual(["ann", "cyd"]);
    expect(await ids(store, "acme", 'emails.value sw "new@"')).toEqual(["ann"]);
  });

  it("does not depend on the resources' rowids, which a .dump renumbers", async () => {
    store = await sqlStore({ sqlite: ":memory:" });
    for (let index = 0; index < 6; index++) await createUser(store, "acme", `u${index}`, [work(`u${index}@Dept${index % 2}.io`)]);
    await store.delete({ orgId: "acme", resourceType: "User", id: "u0", now: NOW });
    // Renumbered as a dump without --preserve-rowids restores them: gaps closed, order kept.
    await sql`update scimkit_resources set rowid = rowid + 1000`.execute(store.db);
    await expectIndexAgrees(store.db, "after renumbering");
    expect(await ids(store, "acme", 'emails.value co "@DEPT1."')).toEqual(["u1", "u3", "u5"]);
  });

  it("where the SQLite build refuses the table it is recorded without it, migration 5's triggers still go, and filters still answer", async () => {
    directory = mkdtempSync(join(tmpdir(), "scimkit-m8-"));
    const file = join(directory, "scim.db");
    store = await sqlStore({ sqlite: file, migrate: false });
    await runMigrations(store.db, sqliteDialect, throughVersion7);
    await createUser(store, "acme", "ann", [work("ann@dept7.io")]);
    // A module that does not exist fails as FTS5 does in a build without it, in a savepoint.
    const outcome = await sqliteDialect.migrationTransaction(store.db, async (trx) => {
      const result = await addSqliteEmailsSearchRows(trx, { module: "scimkit_no_such_module" });
      // The transaction is still usable.
      await trx
        .insertInto("scimkit_migrations")
        .values({ namespace: "scim", version: sqliteEmailsSearchRows.version, name: sqliteEmailsSearchRows.name, applied_at: NOW })
        .execute();
      return result;
    });
    expect(outcome).toEqual({ table: false, reason: expect.stringContaining("scimkit_no_such_module") });
    await store.close();

    store = await sqlStore({ sqlite: file });
    expect(await schemaSql(store.db)).not.toMatch(/scimkit_lower|create trigger/i);
    const tables = await sql<{ name: string }>`select name from sqlite_schema where name = ${keys}`.execute(store.db);
    expect(tables.rows).toEqual([]);
    expect(usesTable(store, 'emails.value co "@dept7."')).toBe(false);
    await createUser(store, "acme", "bob", [work("bob@dept7.io")]);
    expect(await ids(store, "acme", 'emails[type eq "work" and value co "@dept7."]')).toEqual(["ann", "bob"]);
  });

  it("a store opened with migrate: false keeps the tables once its migrate() has made them", async () => {
    directory = mkdtempSync(join(tmpdir(), "scimkit-m8-"));
    const file = join(directory, "scim.db");
    store = await sqlStore({ sqlite: file, migrate: false });
    await runMigrations(store.db, sqliteDialect, throughVersion7);
    await store.close();
    store = await sqlStore({ sqlite: file, migrate: false });
    expect(usesTable(store, 'emails.value co "@dept7."')).toBe(false);
    // Version 8 and any later ones, which are theirs to test.
    expect((await store.migrate())[0]).toBe(8);
    expect(usesTable(store, 'emails.value co "@dept7."')).toBe(true);
    await createUser(store, "acme", "ann", [work("Ann@Dept7.io")]);
    await expectIndexAgrees(store.db, "after a write by that store");
    expect(await ids(store, "acme", 'emails.value co "@dept7."')).toEqual(["ann"]);
  });
});

describe("the e-mail search at 100,000 users", () => {
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
          return {
            org_id: "bench",
            id: id(index),
            resource_type: "User",
            version: 1,
            created: NOW,
            last_modified: NOW,
            external_id: null,
            attributes: JSON.stringify(attributes),
            member_seq: null,
          };
        });
        await trx.insertInto("scimkit_resources").values(rows).execute();
      }
      // Rows inserted behind the store's back: the migration's fill indexes them.
      expect(await addSqliteEmailsSearchRows(trx)).toEqual({ table: true });
    });
  }, 120_000);
  afterAll(async () => store?.close());

  const list = async (text: string, count = 50) => {
    const filter = compileFilter(users, text);
    if (!filter.ok) throw new Error(filter.error.detail);
    return store.list({
      orgId: "bench",
      resourceType: "User",
      filter: filter.value,
      page: { kind: "index", startIndex: 1, count },
      members: false,
    });
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

  it("reads the list through the index (EXPLAIN QUERY PLAN)", async () => {
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
    const plan = await store.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    );
    const details = plan.rows.map((row) => row.detail);
    const shown = details.join("\n");
    // The matches, collected once from the FTS table through the keys…
    expect(
      details.some((detail) => /^SCAN scimkit_emails_search VIRTUAL TABLE INDEX \d+:M/.test(detail)),
      shown,
    ).toBe(true);
    // …probed while the organization's users are read in list order, so the page stops early.
    expect(
      details.some((detail) => detail.startsWith("SEARCH r USING INDEX scimkit_resources_type_id (org_id=? AND resource_type=?)")),
      shown,
    ).toBe(true);
    expect(
      details.filter((detail) => detail.startsWith("SCAN r ") || detail === "SCAN r" || detail.includes("TEMP B-TREE")),
      shown,
    ).toEqual([]);
  });
});

describePostgres("migration 8 (the e-mail search the store keeps) on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  let db: Kysely<SqlStoreDatabase>;
  beforeAll(async () => {
    schema = await createTestSchema(url);
    db = new Kysely<SqlStoreDatabase>({ dialect: new PostgresDialect({ pool: schema.pool() }) });
  });
  afterAll(async () => schema?.drop());

  it("is recorded and changes nothing", async () => {
    expect(await runMigrations(db, postgresDialect, throughVersion7)).toEqual([1, 2, 4, 5, 6, 7]);
    const tablesBefore = await sql<{
      name: string;
    }>`select tablename as name from pg_tables where schemaname = current_schema() order by 1`.execute(db);
    expect(await runMigrations(db, postgresDialect, throughVersion8)).toEqual([8]);
    const tablesAfter = await sql<{
      name: string;
    }>`select tablename as name from pg_tables where schemaname = current_schema() order by 1`.execute(db);
    expect(tablesAfter.rows).toEqual(tablesBefore.rows);
    expect(postgresDialect.indexResources).toBeUndefined();
  });
});
