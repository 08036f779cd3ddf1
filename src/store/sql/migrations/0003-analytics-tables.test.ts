/**
 * Migration 3 (the analytics tables): on SQLite and PostgreSQL it creates every table with its
 * indexes, on a fresh database and on one already at version 2 holding SCIM data; migrating
 * again applies nothing and changes nothing.
 */
import Database from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import { postgresDialect } from "../dialects/postgres-dialect.js";
import { sqliteDialect } from "../dialects/sqlite-dialect.js";
import { registerSqliteFunctions } from "../filter/register-sqlite-functions.js";
import { createTestSchema, describePostgres, type TestSchema } from "../postgres-test-database.fixture.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { initialTables } from "./0001-initial-tables.js";
import { emailsSearch } from "./0002-emails-search.js";
import { analyticsTables } from "./0003-analytics-tables.js";
import { runMigrations } from "./run-migrations.js";

const throughVersion3 = [initialTables, emailsSearch, analyticsTables];

/** Every table of migration 3 with the indexes it creates (primary keys aside). */
const TABLES: Readonly<Record<string, readonly string[]>> = {
  scimkit_organizations: ["scimkit_organizations_status"],
  scimkit_admin_users: ["scimkit_admin_users_email"],
  scimkit_admin_user_organizations: ["scimkit_admin_user_organizations_org"],
  scimkit_invitations: ["scimkit_invitations_user"],
  scimkit_api_keys: ["scimkit_api_keys_hash", "scimkit_api_keys_subject", "scimkit_api_keys_user"],
  scimkit_campaigns: ["scimkit_campaigns_org"],
  scimkit_enrolments: ["scimkit_enrolments_org_user"],
  scimkit_simulations: ["scimkit_simulations_org"],
  scimkit_simulation_recipients: ["scimkit_simulation_recipients_org_user"],
  scimkit_feedback: ["scimkit_feedback_org", "scimkit_feedback_subject"],
  scimkit_operations: ["scimkit_operations_org"],
  scimkit_report_rows: [],
};

/** The names of the `scimkit_` tables and of their indexes, as the database lists them. */
interface Catalog {
  readonly tables: readonly string[];
  readonly indexes: readonly string[];
}

const catalogs: Readonly<Record<"sqlite" | "postgres", (db: Kysely<SqlStoreDatabase>) => Promise<Catalog>>> = {
  async sqlite(db) {
    const rows = await sql<{ type: string; name: string }>`select type, name from sqlite_master
      where type in ('table', 'index') and name like 'scimkit%' order by name`.execute(db);
    return {
      tables: rows.rows.filter((row) => row.type === "table").map((row) => row.name),
      indexes: rows.rows.filter((row) => row.type === "index").map((row) => row.name),
    };
  },
  async postgres(db) {
    const tables = await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema() order by tablename`.execute(db);
    const indexes = await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema() order by indexname`.execute(db);
    return { tables: tables.rows.map((row) => row.name), indexes: indexes.rows.map((row) => row.name) };
  },
};

function migrationChecks(dialect: SqlDialect, open: () => Promise<{ readonly db: Kysely<SqlStoreDatabase>; close(): Promise<void> }>): void {
  const catalog = catalogs[dialect.name === "postgres" ? "postgres" : "sqlite"];

  it("a fresh database gets every analytics table and index; migrating again applies and changes nothing", async () => {
    const { db, close } = await open();
    try {
      expect(await runMigrations(db, dialect, throughVersion3)).toEqual([1, 2, 3]);
      const created = await catalog(db);
      expect(created.tables).toEqual(expect.arrayContaining(Object.keys(TABLES)));
      expect(created.indexes).toEqual(expect.arrayContaining(Object.values(TABLES).flat()));
      expect(await runMigrations(db, dialect, throughVersion3)).toEqual([]);
      expect(await catalog(db)).toEqual(created);
      const recorded = await db.selectFrom("scimkit_migrations").select(["version", "name"]).where("version", "=", 3).execute();
      expect(recorded.map((row) => [Number(row.version), row.name])).toEqual([[3, "analytics-tables"]]);
    } finally {
      await close();
    }
  });

  it("a database at version 2 with SCIM data gets the tables and keeps its data", async () => {
    const { db, close } = await open();
    try {
      expect(await runMigrations(db, dialect, [initialTables, emailsSearch])).toEqual([1, 2]);
      const time = "2024-01-01T00:00:00.000Z";
      await db
        .insertInto("scimkit_resources")
        .values({ org_id: "acme", id: "u1", resource_type: "User", version: 1, created: time, last_modified: time, external_id: null, attributes: JSON.stringify({ userName: "ada" }), member_seq: null })
        .execute();
      expect(await runMigrations(db, dialect, throughVersion3)).toEqual([3]);
      expect(await db.selectFrom("scimkit_resources").select(["org_id", "id"]).execute()).toEqual([{ org_id: "acme", id: "u1" }]);
      expect(await db.selectFrom("scimkit_organizations").selectAll().execute()).toEqual([]);
    } finally {
      await close();
    }
  });

  it("the unique indexes hold: one e-mail per admin user, one digest per API key", async () => {
    const { db, close } = await open();
    try {
      await runMigrations(db, dialect, throughVersion3);
      const time = "2024-01-01T00:00:00.000Z";
      const admin = (id: string) => ({ id, email: "ada@example.test", role: "admin", status: "invited", invited_at: time, invitation_expires_at: null, activated_at: null, updated_at: time });
      await db.insertInto("scimkit_admin_users").values(admin("a1")).execute();
      await expect(db.insertInto("scimkit_admin_users").values(admin("a2")).execute()).rejects.toThrow();
      const key = (id: string) => ({ id, hash: "f".repeat(64), subject_kind: "operator", admin_user_id: null, created_at: time });
      await db.insertInto("scimkit_api_keys").values(key("k1")).execute();
      await expect(db.insertInto("scimkit_api_keys").values(key("k2")).execute()).rejects.toThrow();
    } finally {
      await close();
    }
  });
}

describe("migration 3 (analytics tables) on SQLite", () => {
  migrationChecks(sqliteDialect, async () => {
    const database = new Database(":memory:");
    registerSqliteFunctions(database);
    const db = new Kysely<SqlStoreDatabase>({ dialect: new SqliteDialect({ database }) });
    await sqliteDialect.prepareConnection?.(db);
    return { db, close: () => db.destroy() };
  });
});

describePostgres("migration 3 (analytics tables) on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  let admin: Kysely<SqlStoreDatabase> | undefined;
  let counter = 0;

  beforeAll(async () => {
    schema = await createTestSchema(url);
    admin = new Kysely<SqlStoreDatabase>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) });
  });

  afterAll(async () => {
    await admin?.destroy();
    await schema?.drop();
  });

  // Each check migrates an empty database: a schema of its own, named after the file's, dropped by the check.
  migrationChecks(postgresDialect, async () => {
    if (!schema || !admin) throw new Error("the test schema was not created (see beforeAll)");
    const owner = admin;
    const name = `${schema.name}_${(counter += 1)}`;
    await sql`create schema ${sql.id(name)}`.execute(owner);
    const db = new Kysely<SqlStoreDatabase>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, options: `-c search_path=${name}` }) }) });
    return {
      db,
      async close() {
        await db.destroy();
        await sql`drop schema if exists ${sql.id(name)} cascade`.execute(owner);
      },
    };
  });
});
