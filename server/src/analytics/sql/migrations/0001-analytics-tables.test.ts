/**
 * Analytics migration 1 (the analytics tables; the SQL store's version 3 until the analytics
 * tables got a namespace of their own): on SQLite and PostgreSQL it creates every table with its
 * indexes, on a fresh database and on one already at SCIM version 2 holding SCIM data; migrating
 * again applies nothing and changes nothing. A database migrated before namespaces (SCIM versions
 * 1–7, 3 being these tables) comes up under namespaces with nothing lost and nothing run again.
 * (Moved from src/store/sql/migrations/0003-analytics-tables.test.ts; its checks are the same.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  postgresDialect,
  registerSqliteFunctions,
  runMigrations,
  sqliteDialect,
  sqlMigrations,
  sqlStore,
  type Migration,
  type SqlDialect,
  type SqlStore,
  type SqlStoreDatabase,
} from "scimkit/sql";
import { openSqliteInMemory } from "../../../../../src/store/sql/migrations/migration-databases.fixture.js";
import { createTestSchema, describePostgres, type TestSchema } from "../../../../../src/store/sql/postgres-test-database.fixture.js";
import { sqlAnalyticsStore } from "../sql-analytics-store.js";
import type { AnalyticsTables } from "../analytics-tables.js";
import { analyticsTables } from "./0001-analytics-tables.js";
import { ANALYTICS_MIGRATIONS, analyticsMigrations } from "./analytics-migrations.js";

/** The SQL store's migrations up to version 2, before the analytics tables were. */
const scimThroughVersion2 = sqlMigrations.filter((migration) => migration.version <= 2);
/** The analytics versions after this one, which an upgrade from it applies (once) besides. */
const laterAnalytics = analyticsMigrations.filter((migration) => migration.version > 1).map((migration) => migration.version);

/** SCIM versions 1 and 2, then the analytics tables in their namespace: what version 3 was. */
async function throughAnalytics1(db: Kysely<SqlStoreDatabase>, dialect: SqlDialect): Promise<readonly string[]> {
  const scim = await runMigrations(db, dialect, scimThroughVersion2);
  const analytics = await runMigrations(db, dialect, [analyticsTables], { namespace: ANALYTICS_MIGRATIONS });
  return [...scim, ...analytics.map((version) => `analytics ${version}`)].map(String);
}

/**
 * Migrates `db` as the code before namespaces did: `scimkit_migrations(version, name, applied_at)`
 * keyed by version alone, every migration the store's, the analytics tables as version 3.
 */
async function migrateBeforeNamespaces(db: Kysely<SqlStoreDatabase>, dialect: SqlDialect): Promise<void> {
  const { movedFrom: _movedFrom, ...tables } = analyticsTables;
  const old: readonly Migration[] = [...sqlMigrations, { ...tables, version: 3 }].sort((a, b) => a.version - b.version);
  await dialect.migrationTransaction(db, async (trx) => {
    await sql`create table scimkit_migrations (version integer primary key, name text not null, applied_at text not null)`.execute(trx);
    for (const migration of old) {
      await migration.up(trx, dialect);
      await sql`insert into scimkit_migrations (version, name, applied_at) values (${migration.version}, ${migration.name}, ${"2024-01-01T00:00:00.000Z"})`.execute(
        trx,
      );
    }
  });
}

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
    const tables = await sql<{
      name: string;
    }>`select tablename as name from pg_tables where schemaname = current_schema() order by tablename`.execute(db);
    const indexes = await sql<{
      name: string;
    }>`select indexname as name from pg_indexes where schemaname = current_schema() order by indexname`.execute(db);
    return { tables: tables.rows.map((row) => row.name), indexes: indexes.rows.map((row) => row.name) };
  },
};

function migrationChecks(
  dialect: SqlDialect,
  open: () => Promise<{ readonly db: Kysely<SqlStoreDatabase>; close(): Promise<void> }>,
): void {
  const catalog = catalogs[dialect.name === "postgres" ? "postgres" : "sqlite"];

  it("a fresh database gets every analytics table and index; migrating again applies and changes nothing", async () => {
    const { db, close } = await open();
    try {
      expect(await throughAnalytics1(db, dialect)).toEqual(["1", "2", "analytics 1"]);
      const created = await catalog(db);
      expect(created.tables).toEqual(expect.arrayContaining(Object.keys(TABLES)));
      expect(created.indexes).toEqual(expect.arrayContaining(Object.values(TABLES).flat()));
      expect(await throughAnalytics1(db, dialect)).toEqual([]);
      expect(await catalog(db)).toEqual(created);
      const recorded = await db
        .selectFrom("scimkit_migrations")
        .select(["version", "name"])
        .where("namespace", "=", ANALYTICS_MIGRATIONS)
        .execute();
      expect(recorded.map((row) => [Number(row.version), row.name])).toEqual([[1, "analytics-tables"]]);
    } finally {
      await close();
    }
  });

  it("a database at version 2 with SCIM data gets the tables and keeps its data", async () => {
    const { db, close } = await open();
    try {
      expect(await runMigrations(db, dialect, scimThroughVersion2)).toEqual([1, 2]);
      const time = "2024-01-01T00:00:00.000Z";
      await db
        .insertInto("scimkit_resources")
        .values({
          org_id: "acme",
          id: "u1",
          resource_type: "User",
          version: 1,
          created: time,
          last_modified: time,
          external_id: null,
          attributes: JSON.stringify({ userName: "ada" }),
          member_seq: null,
        })
        .execute();
      expect(await throughAnalytics1(db, dialect)).toEqual(["analytics 1"]);
      expect(await db.selectFrom("scimkit_resources").select(["org_id", "id"]).execute()).toEqual([{ org_id: "acme", id: "u1" }]);
      expect(await db.withTables<AnalyticsTables>().selectFrom("scimkit_organizations").selectAll().execute()).toEqual([]);
    } finally {
      await close();
    }
  });

  it("the unique indexes hold: one e-mail per admin user, one digest per API key", async () => {
    const { db, close } = await open();
    try {
      await throughAnalytics1(db, dialect);
      const analyticsDb = db.withTables<AnalyticsTables>();
      const time = "2024-01-01T00:00:00.000Z";
      const admin = (id: string) => ({
        id,
        email: "ada@example.test",
        role: "admin",
        status: "invited",
        invited_at: time,
        invitation_expires_at: null,
        activated_at: null,
        updated_at: time,
      });
      await analyticsDb.insertInto("scimkit_admin_users").values(admin("a1")).execute();
      await expect(analyticsDb.insertInto("scimkit_admin_users").values(admin("a2")).execute()).rejects.toThrow();
      const key = (id: string) => ({ id, hash: "f".repeat(64), subject_kind: "operator", admin_user_id: null, created_at: time });
      await analyticsDb.insertInto("scimkit_api_keys").values(key("k1")).execute();
      await expect(analyticsDb.insertInto("scimkit_api_keys").values(key("k2")).execute()).rejects.toThrow();
    } finally {
      await close();
    }
  });

  it("a database migrated before namespaces upgrades in place: nothing lost, nothing run again", async () => {
    const { db, close } = await open();
    try {
      await migrateBeforeNamespaces(db, dialect);
      const time = "2024-01-01T00:00:00.000Z";
      await db
        .insertInto("scimkit_resources")
        .values({
          org_id: "acme",
          id: "u1",
          resource_type: "User",
          version: 1,
          created: time,
          last_modified: time,
          external_id: null,
          attributes: JSON.stringify({ userName: "ada" }),
          member_seq: null,
        })
        .execute();
      const analyticsDb = db.withTables<AnalyticsTables>();
      await analyticsDb
        .insertInto("scimkit_organizations")
        .values({ id: "acme", name: "Acme", status: "active", created_at: time, updated_at: time })
        .execute();
      // The migrations table itself is rebuilt with its new key (PostgreSQL names that index);
      // version 3 adds the index of the organization tree, version 4 those of report jobs,
      // version 5 the tables of invitation offers, version 6 that of the region directory, version 7 that of region moves, version 8 that of setup links.
      const later = new Set([
        "scimkit_organizations_parent",
        "scimkit_operations_request",
        "scimkit_operations_expiry",
        "scimkit_operations_status",
      ]);
      const laterTable = (name: string): boolean =>
        name.startsWith("scimkit_invitation_offer") ||
        name.startsWith("scimkit_region_directory") ||
        name.startsWith("scimkit_region_moves") ||
        name.startsWith("scimkit_setup_links");
      const withoutMigrations = ({ tables, indexes }: Catalog): Catalog => ({
        tables: tables.filter((table) => !laterTable(table)),
        indexes: indexes.filter((index) => !index.startsWith("scimkit_migrations") && !later.has(index) && !laterTable(index)),
      });
      const before = withoutMigrations(await catalog(db));

      // The new code: the SCIM store, then the analytics store, each migrating its namespace.
      const store = await sqlStore({ kysely: db, dialect });
      expect(await store.migrate()).toEqual([]);
      const analytics = await sqlAnalyticsStore(store, { migrate: false });
      expect(await analytics.migrate()).toEqual(laterAnalytics);
      expect(await analytics.migrate()).toEqual([]);

      // The same tables and indexes (later versions add columns): nothing of version 1 ran again.
      expect(withoutMigrations(await catalog(db))).toEqual(before);
      const recorded = await db
        .selectFrom("scimkit_migrations")
        .select(["namespace", "version", "name", "applied_at"])
        .orderBy("namespace")
        .orderBy("version")
        .execute();
      expect(recorded.map((row) => [row.namespace, Number(row.version), row.name, row.applied_at])).toEqual([
        ["analytics", 1, "analytics-tables", time],
        ...analyticsMigrations
          .filter((migration) => migration.version > 1)
          .map((migration) => ["analytics", migration.version, migration.name, expect.any(String)]),
        ...sqlMigrations.map((migration) => ["scim", migration.version, migration.name, time]),
      ]);
      expect(await db.selectFrom("scimkit_resources").select(["org_id", "id"]).execute()).toEqual([{ org_id: "acme", id: "u1" }]);
      expect((await analytics.getOrganization({ all: true }, "acme"))?.name).toBe("Acme");
    } finally {
      await close();
    }
  });

  it("a fresh database opened by the SQL store alone gets no analytics tables", async () => {
    const { db, close } = await open();
    try {
      const store = await sqlStore({ kysely: db, dialect });
      const created = await catalog(db);
      expect(created.tables.filter((table) => table in TABLES)).toEqual([]);
      const recorded = await db.selectFrom("scimkit_migrations").select(["namespace", "version"]).execute();
      expect(new Set(recorded.map((row) => row.namespace))).toEqual(new Set(["scim"]));
      await sqlAnalyticsStore(store);
      expect((await catalog(db)).tables).toEqual(expect.arrayContaining(Object.keys(TABLES)));
    } finally {
      await close();
    }
  });
}

describe("analytics migration 1 (analytics tables) on SQLite", () => {
  migrationChecks(sqliteDialect, openSqliteInMemory);
});

describePostgres("analytics migration 1 (analytics tables) on PostgreSQL", (url) => {
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
    const db = new Kysely<SqlStoreDatabase>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, options: `-c search_path=${name}` }) }),
    });
    return {
      db,
      async close() {
        await db.destroy();
        await sql`drop schema if exists ${sql.id(name)} cascade`.execute(owner);
      },
    };
  });
});

/**
 * Two processes starting at once on one database — each a SCIM store and an analytics store —
 * serialize on the migration lock: every migration and every moved record happens once.
 */
async function migrateTogether(open: () => Promise<SqlStore>): Promise<{
  readonly scim: readonly (readonly number[])[];
  readonly analytics: readonly (readonly number[])[];
  readonly recorded: readonly string[];
}> {
  const stores = await Promise.all([open(), open()]);
  try {
    const scim = await Promise.all(stores.map((store) => store.migrate()));
    const analyticsStores = await Promise.all(stores.map((store) => sqlAnalyticsStore(store, { migrate: false })));
    const analytics = await Promise.all(analyticsStores.map((store) => store.migrate()));
    const [first] = stores;
    const rows = first
      ? await first.db.selectFrom("scimkit_migrations").select(["namespace", "version"]).orderBy("namespace").orderBy("version").execute()
      : [];
    return { scim, analytics, recorded: rows.map((row) => `${row.namespace} ${Number(row.version)}`) };
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
}

const EVERY_RECORD = [
  ...analyticsMigrations.map((migration) => `analytics ${migration.version}`),
  ...sqlMigrations.map((migration) => `scim ${migration.version}`),
];

describe("analytics migrations from two processes at once on SQLite", () => {
  const directories: string[] = [];
  afterAll(() => {
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  });
  const freshFile = (): string => {
    const directory = mkdtempSync(join(tmpdir(), "scimkit-analytics-migrations-"));
    directories.push(directory);
    return join(directory, "scim.db");
  };

  it("a fresh database: each migration applied once", { timeout: 30_000 }, async () => {
    const file = freshFile();
    const { analytics, recorded } = await migrateTogether(() => sqlStore({ sqlite: file, migrate: false }));
    expect(analytics.map((versions) => versions.length).sort()).toEqual([0, analyticsMigrations.length]);
    expect(recorded).toEqual(EVERY_RECORD);
  });

  it("a database migrated before namespaces: upgraded once, nothing run again", { timeout: 30_000 }, async () => {
    const file = freshFile();
    const database = new Database(file);
    registerSqliteFunctions(database);
    const db = new Kysely<SqlStoreDatabase>({ dialect: new SqliteDialect({ database }) });
    await sqliteDialect.prepareConnection?.(db);
    await migrateBeforeNamespaces(db, sqliteDialect);
    await db.destroy();
    const { scim, analytics, recorded } = await migrateTogether(() => sqlStore({ sqlite: file, migrate: false }));
    expect(scim).toEqual([[], []]);
    expect([...analytics].sort((a, b) => b.length - a.length)).toEqual([laterAnalytics, []]);
    expect(recorded).toEqual(EVERY_RECORD);
  });
});

describePostgres("analytics migrations from two processes at once on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  let admin: Kysely<SqlStoreDatabase> | undefined;
  let counter = 0;
  const pools: pg.Pool[] = [];

  beforeAll(async () => {
    schema = await createTestSchema(url);
    admin = new Kysely<SqlStoreDatabase>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) });
  });

  const made: string[] = [];

  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    // Schemas beside the test's own: dropping that one leaves them behind.
    for (const name of made) if (admin) await sql`drop schema if exists ${sql.id(name)} cascade`.execute(admin);
    await admin?.destroy();
    await schema?.drop();
  });

  /** A schema of its own, and a way to open a store on it through a pool of its own (a process). */
  const freshSchema = async (): Promise<{ readonly name: string; readonly open: () => Promise<SqlStore> }> => {
    if (!schema || !admin) throw new Error("the test schema was not created (see beforeAll)");
    const name = `${schema.name}_together_${(counter += 1)}`;
    await sql`create schema ${sql.id(name)}`.execute(admin);
    made.push(name);
    const open = (): Promise<SqlStore> => {
      const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${name}` });
      pools.push(pool);
      return sqlStore({ postgres: pool, migrate: false });
    };
    return { name, open };
  };

  it("a fresh database: each migration applied once", { timeout: 30_000 }, async () => {
    const { open } = await freshSchema();
    const { analytics, recorded } = await migrateTogether(open);
    expect(analytics.map((versions) => versions.length).sort()).toEqual([0, analyticsMigrations.length]);
    expect(recorded).toEqual(EVERY_RECORD);
  });

  it("a database migrated before namespaces: upgraded once, nothing run again", { timeout: 30_000 }, async () => {
    const { name, open } = await freshSchema();
    const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${name}` });
    const db = new Kysely<SqlStoreDatabase>({ dialect: new PostgresDialect({ pool }) });
    await migrateBeforeNamespaces(db, postgresDialect);
    await db.destroy();
    const { scim, analytics, recorded } = await migrateTogether(open);
    expect(scim).toEqual([[], []]);
    expect([...analytics].sort((a, b) => b.length - a.length)).toEqual([laterAnalytics, []]);
    expect(recorded).toEqual(EVERY_RECORD);
  });
});
