/**
 * Bringing a database up to date (the issue: versioned migrations, run on start or by
 * `store.migrate()`, idempotent, safe when two processes start at once).
 */
import { sql, type Kysely } from "kysely";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import type { Migration } from "./migration.js";
import { sqlMigrations } from "./sql-migrations.js";

/**
 * Applies the migrations `db` has not recorded in `scimkit_migrations`, in version order, and
 * returns the versions it applied (none when the database was up to date). Everything happens in
 * one `SqlDialect.migrationTransaction`: a second process waits for the first, then finds nothing
 * to do, and a failing migration leaves the database as it was (PostgreSQL and SQLite both
 * roll back DDL).
 *
 * @example await runMigrations(db, postgresDialect) // [1] the first time, [] afterwards
 */
export function runMigrations(
  db: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  migrations: readonly Migration[] = sqlMigrations,
): Promise<readonly number[]> {
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  for (const [index, migration] of ordered.entries()) {
    if (!Number.isInteger(migration.version) || migration.version < 1 || ordered[index - 1]?.version === migration.version) {
      throw new Error(`runMigrations: migration versions must be distinct positive integers (${migration.version})`);
    }
  }
  return dialect.migrationTransaction(db, async (trx) => {
    // Created under the migration lock, so two processes never race on the DDL itself.
    await trx.schema
      .createTable("scimkit_migrations")
      .ifNotExists()
      .addColumn("version", sql`integer`, (column) => column.primaryKey())
      .addColumn("name", dialect.columnTypes.text, (column) => column.notNull())
      .addColumn("applied_at", dialect.columnTypes.text, (column) => column.notNull())
      .execute();
    const rows = await trx.selectFrom("scimkit_migrations").select("version").execute();
    const applied = new Set(rows.map((row) => Number(row.version)));
    const done: number[] = [];
    for (const migration of ordered) {
      if (applied.has(migration.version)) continue;
      await migration.up(trx, dialect);
      await trx
        .insertInto("scimkit_migrations")
        .values({ version: migration.version, name: migration.name, applied_at: new Date().toISOString() })
        .execute();
      done.push(migration.version);
    }
    return done;
  });
}
