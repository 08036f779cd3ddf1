/**
 * The two databases a migration's test runs its checks on: a bare SQLite connection in memory,
 * and PostgreSQL on a test schema of its own (when `SCIMKIT_TEST_POSTGRES_URL` is set), both with
 * no migration applied, so each test decides how far to migrate.
 */
import Database from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import { afterAll, beforeAll, describe } from "vitest";
import { postgresDialect } from "../dialects/postgres-dialect.js";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import { sqliteDialect } from "../dialects/sqlite-dialect.js";
import { registerSqliteFunctions } from "../filter/register-sqlite-functions.js";
import { createTestSchema, describePostgres, type TestSchema } from "../postgres-test-database.fixture.js";
import type { SqlStoreDatabase } from "../sql-tables.js";

/** Opens the database a check runs on; `close` ends what the opener made. */
export type OpenMigrationDatabase = () => Promise<{ readonly db: Kysely<SqlStoreDatabase>; close(): Promise<void> }>;

/** A fresh SQLite database in memory, its connection prepared as the store prepares its own. */
export const openSqliteInMemory: OpenMigrationDatabase = async () => {
  const database = new Database(":memory:");
  registerSqliteFunctions(database);
  const db = new Kysely<SqlStoreDatabase>({ dialect: new SqliteDialect({ database }) });
  await sqliteDialect.prepareConnection?.(db);
  return { db, close: () => db.destroy() };
};

/** Runs `checks` as `${name} on SQLite` and `${name} on PostgreSQL`. */
export function describeOnEachDatabase(name: string, checks: (dialect: SqlDialect, open: OpenMigrationDatabase) => void): void {
  describe(`${name} on SQLite`, () => checks(sqliteDialect, openSqliteInMemory));
  describePostgres(`${name} on PostgreSQL`, (url) => {
    let schema: TestSchema | undefined;
    beforeAll(async () => {
      schema = await createTestSchema(url);
    });
    afterAll(async () => {
      await schema?.drop();
    });
    checks(postgresDialect, async () => {
      if (!schema) throw new Error("the test schema was not created (see beforeAll)");
      return { db: new Kysely<SqlStoreDatabase>({ dialect: new PostgresDialect({ pool: schema.pool() }) }), close: async () => undefined };
    });
  });
}
