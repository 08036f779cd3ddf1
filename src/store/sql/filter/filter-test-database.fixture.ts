/**
 * Real databases for the filter compiler's tests: SQLite in memory (better-sqlite3) always, and
 * PostgreSQL when `SCIMKIT_TEST_POSTGRES_URL` is set (architecture §5; `.ci/run` sets it and
 * `SCIMKIT_REQUIRE_POSTGRES=1` makes its absence a failure). Each PostgreSQL database lives in a
 * schema of its own, dropped on close, so test files never see each other's rows.
 */
import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteAdapter, SqliteDialect, sql, type Expression, type SqlBool } from "kysely";
import pg from "pg";
import { describe } from "vitest";
import type { ScimObject } from "../../../scim/schema/normalize-value.js";
import type { StoredMember, StoredResource, UniqueKey } from "../../resource-store.js";
import { indexSqliteEmailsSearch } from "../dialects/sqlite-emails-search-rows.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import type { FilterDialect } from "./filter-dialect.js";
import { createFilterTables, type FixtureDialect } from "./filter-tables.fixture.js";
import { postgresFilterDialect } from "./postgres-filter-dialect.js";
import { registerSqliteFunctions } from "./register-sqlite-functions.js";
import { createSqliteFilterDialect, SQLITE_EMAILS_SEARCH } from "./sqlite-filter-dialect.js";

/** An open test database with the filter tables. */
export interface FilterTestDatabase {
  readonly name: FixtureDialect;
  readonly db: Kysely<SqlStoreDatabase>;
  readonly dialect: FilterDialect;
  close(): Promise<void>;
}

/**
 * A fresh in-memory SQLite database, with `registerSqliteFunctions` applied as the store must, and
 * the e-mail search table of migration 5 (which every SQLite build better-sqlite3 12 bundles can
 * make) used as `sqlStore` uses it.
 */
export async function openSqlite(): Promise<FilterTestDatabase> {
  const database = new Database(":memory:");
  registerSqliteFunctions(database);
  const db = new Kysely<SqlStoreDatabase>({ dialect: new SqliteDialect({ database }) });
  const { emailsSearch } = await createFilterTables(db, "sqlite");
  return { name: "sqlite", db, dialect: createSqliteFilterDialect({ emailsSearch }), close: () => db.destroy() };
}

/** A fresh schema `scimkit_test_<random>` on the PostgreSQL server at `url`, dropped on close. */
export async function openPostgres(url: string): Promise<FilterTestDatabase> {
  const schema = `scimkit_test_${randomBytes(6).toString("hex")}`;
  const pool = new pg.Pool({ connectionString: url, max: 4, options: `-c search_path=${schema}` });
  const db = new Kysely<SqlStoreDatabase>({ dialect: new PostgresDialect({ pool }) });
  await sql`create schema ${sql.id(schema)}`.execute(db);
  await createFilterTables(db, "postgres");
  const close = async (): Promise<void> => {
    await sql`drop schema ${sql.id(schema)} cascade`.execute(db);
    await db.destroy();
  };
  return { name: "postgres", db, dialect: postgresFilterDialect, close };
}

const postgresUrl = process.env["SCIMKIT_TEST_POSTGRES_URL"] || undefined;
if (!postgresUrl && process.env["SCIMKIT_REQUIRE_POSTGRES"] === "1") {
  throw new Error("SCIMKIT_REQUIRE_POSTGRES=1 but SCIMKIT_TEST_POSTGRES_URL is not set: the PostgreSQL filter tests cannot run.");
}
let announced = false;

/** A database the tests of one `describe` block use. */
export interface TestDatabaseTarget {
  readonly name: FixtureDialect;
  open(): Promise<FilterTestDatabase>;
}

/**
 * Runs `body` once per database: SQLite always, PostgreSQL when `SCIMKIT_TEST_POSTGRES_URL` is set
 * — otherwise its block is skipped, and one line on the console says why.
 */
export function describeEachDatabase(title: string, body: (target: TestDatabaseTarget) => void): void {
  describe(`${title} [sqlite]`, () => body({ name: "sqlite", open: openSqlite }));
  if (postgresUrl) {
    describe(`${title} [postgres]`, () => body({ name: "postgres", open: () => openPostgres(postgresUrl) }));
    return;
  }
  if (!announced) {
    announced = true;
    console.log(
      "PostgreSQL filter tests skipped: SCIMKIT_TEST_POSTGRES_URL is not set (CI sets it to postgres://postgres@127.0.0.1:5432/test).",
    );
  }
  describe.skip(`${title} [postgres] — skipped because SCIMKIT_TEST_POSTGRES_URL is not set`, () =>
    body({ name: "postgres", open: () => Promise.reject(new Error("no PostgreSQL")) }));
}

/** A resource row as the store would write it, with its unique keys and members. */
export interface ResourceRow {
  readonly orgId: string;
  readonly resourceType: string;
  readonly resource: StoredResource;
  readonly uniqueKeys: readonly UniqueKey[];
  /** The members in the order they were added (groups only). */
  readonly members?: readonly StoredMember[];
}

/** Whether `db` is SQLite with migration 8's e-mail search tables, which the store itself writes. */
async function hasSqliteEmailsSearch(db: Kysely<SqlStoreDatabase>): Promise<boolean> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return false;
  const found = await sql<{ n: number }>`select count(*) as n from sqlite_schema where name = ${SQLITE_EMAILS_SEARCH.keys}`.execute(db);
  return Number(found.rows[0]?.n) > 0;
}

/**
 * Inserts rows as the store does: `external_id` copies `attributes.externalId`, members get
 * positions, and on SQLite the e-mail search rows are written (`indexSqliteEmailsSearch`).
 */
export async function insertRows(db: Kysely<SqlStoreDatabase>, rows: readonly ResourceRow[]): Promise<void> {
  if (rows.length === 0) return;
  const externalId = (attributes: ScimObject): string | null =>
    typeof attributes["externalId"] === "string" ? attributes["externalId"] : null;
  for (let start = 0; start < rows.length; start += 500) {
    const chunk = rows.slice(start, start + 500);
    await db
      .insertInto("scimkit_resources")
      .values(
        chunk.map(({ orgId, resourceType, resource, members }) => ({
          org_id: orgId,
          id: resource.id,
          resource_type: resourceType,
          version: Number(resource.version),
          created: resource.created,
          last_modified: resource.lastModified,
          external_id: externalId(resource.attributes),
          attributes: JSON.stringify(resource.attributes),
          member_seq: members?.length ?? 0,
        })),
      )
      .execute();
    const keys = chunk.flatMap(({ orgId, resourceType, resource, uniqueKeys }) =>
      uniqueKeys.map((key) => ({
        org_id: orgId,
        resource_type: resourceType,
        attribute: key.attribute,
        value: key.value,
        id: resource.id,
      })),
    );
    if (keys.length > 0) await db.insertInto("scimkit_unique_keys").values(keys).execute();
    const members = chunk.flatMap(({ orgId, resource, members }) =>
      (members ?? []).map((member, position) => ({
        org_id: orgId,
        group_id: resource.id,
        member_id: member.value,
        member_type: member.type,
        position: position + 1,
      })),
    );
    if (members.length > 0) await db.insertInto("scimkit_members").values(members).execute();
  }
  if (await hasSqliteEmailsSearch(db)) {
    for (const { orgId, resource } of rows)
      await indexSqliteEmailsSearch(db, { kind: "write", orgId, id: resource.id, attributes: resource.attributes });
  }
}

/** Empties the tables between property runs. */
export async function deleteRows(db: Kysely<SqlStoreDatabase>): Promise<void> {
  if (await hasSqliteEmailsSearch(db)) {
    await sql`delete from ${sql.table(SQLITE_EMAILS_SEARCH.table)}`.execute(db);
    await sql`delete from ${sql.table(SQLITE_EMAILS_SEARCH.keys)}`.execute(db);
  }
  await db.deleteFrom("scimkit_members").execute();
  await db.deleteFrom("scimkit_unique_keys").execute();
  await db.deleteFrom("scimkit_resources").execute();
}

/** The ids (sorted by code unit) of the rows of one organization and type that satisfy `condition`. */
export async function selectIds(
  db: Kysely<SqlStoreDatabase>,
  orgId: string,
  resourceType: string,
  condition: Expression<SqlBool>,
): Promise<string[]> {
  const rows = await db
    .selectFrom("scimkit_resources as r")
    .select("r.id")
    .where("r.org_id", "=", orgId)
    .where("r.resource_type", "=", resourceType)
    .where(condition)
    .execute();
  return rows.map((row) => row.id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
