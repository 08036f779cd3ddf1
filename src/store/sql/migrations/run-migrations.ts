/**
 * Bringing a database up to date (the issue: versioned migrations, run on start or by
 * `store.migrate()`, idempotent, safe when two processes start at once), one namespace at a time:
 * the store's own (`"scim"`) and each client's that keeps tables beside it (`"analytics"`).
 */
import { sql, type Kysely } from "kysely";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { attemptInSavepoint } from "./attempt-in-savepoint.js";
import type { Migration } from "./migration.js";
import { sqlMigrations } from "./sql-migrations.js";

/** The namespace of the SQL store's own migrations (`sqlMigrations`). */
export const SCIM_MIGRATIONS = "scim";

/** Options of `runMigrations`. */
export interface RunMigrationsOptions {
  /**
   * Whose migrations these are: their versions count in this namespace only, so a client's
   * version 1 is not the store's. Default `"scim"` (`SCIM_MIGRATIONS`), the store's own.
   */
  readonly namespace?: string;
}

/**
 * Creates `scimkit_migrations` keyed by `(namespace, version)`, or brings a table of the
 * namespace-less shape (versions alone, every one the store's) to it, keeping every record.
 */
async function ensureMigrationsTable(trx: Kysely<SqlStoreDatabase>, dialect: SqlDialect): Promise<void> {
  const create = (table: string) =>
    trx.schema
      .createTable(table)
      .ifNotExists()
      .addColumn("namespace", dialect.columnTypes.key, (column) => column.notNull())
      .addColumn("version", sql`integer`, (column) => column.notNull())
      .addColumn("name", dialect.columnTypes.text, (column) => column.notNull())
      .addColumn("applied_at", dialect.columnTypes.text, (column) => column.notNull())
      .addPrimaryKeyConstraint("scimkit_migrations_namespace_pk", ["namespace", "version"])
      .execute();
  await create("scimkit_migrations");
  const namespaced = await attemptInSavepoint(trx, () => sql`select namespace from scimkit_migrations where 1 = 0`.execute(trx));
  if (namespaced.ok) return;
  // A table made before namespaces: its versions are all the store's. SQLite cannot change a
  // primary key in place, so both databases copy it into a table of the new shape.
  await create("scimkit_migrations_namespaced");
  await sql`insert into scimkit_migrations_namespaced (namespace, version, name, applied_at)
    select ${SCIM_MIGRATIONS}, version, name, applied_at from scimkit_migrations`.execute(trx);
  await trx.schema.dropTable("scimkit_migrations").execute();
  await trx.schema.alterTable("scimkit_migrations_namespaced").renameTo("scimkit_migrations").execute();
}

/**
 * Applies the migrations of `namespace` that `db` has not recorded in `scimkit_migrations`, in
 * version order, and returns the versions it applied (none when the database was up to date). A
 * migration that `movedFrom` another key the database recorded is not run again: its record moves.
 * Everything happens in one `SqlDialect.migrationTransaction`: a second process waits for the
 * first, then finds nothing to do, and a failing migration leaves the database as it was
 * (PostgreSQL and SQLite both roll back DDL).
 *
 * @example await runMigrations(db, postgresDialect) // the store's: [1, 2, 4, 5, 6, 7] the first time, [] afterwards
 * @example await runMigrations(db, postgresDialect, myMigrations, { namespace: "billing" }) // a client's tables beside the store's
 */
export function runMigrations(
  db: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  migrations: readonly Migration[] = sqlMigrations,
  options: RunMigrationsOptions = {},
): Promise<readonly number[]> {
  const namespace = options.namespace ?? SCIM_MIGRATIONS;
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  for (const [index, migration] of ordered.entries()) {
    if (!Number.isInteger(migration.version) || migration.version < 1 || ordered[index - 1]?.version === migration.version) {
      throw new Error(`runMigrations: migration versions must be distinct positive integers (${migration.version})`);
    }
  }
  return dialect.migrationTransaction(db, async (trx) => {
    // Created (or reshaped) under the migration lock, so two processes never race on the DDL itself.
    await ensureMigrationsTable(trx, dialect);
    const rows = await trx.selectFrom("scimkit_migrations").select(["namespace", "version"]).execute();
    const applied = new Set(rows.map((row) => `${row.namespace}\u0000${Number(row.version)}`));
    const isApplied = (key: { readonly namespace: string; readonly version: number }) =>
      applied.has(`${key.namespace}\u0000${key.version}`);
    const done: number[] = [];
    for (const migration of ordered) {
      if (isApplied({ namespace, version: migration.version })) continue;
      const moved = migration.movedFrom;
      if (moved && isApplied(moved)) {
        await trx
          .updateTable("scimkit_migrations")
          .set({ namespace, version: migration.version })
          .where("namespace", "=", moved.namespace)
          .where("version", "=", moved.version)
          .execute();
        continue;
      }
      await migration.up(trx, dialect);
      await trx
        .insertInto("scimkit_migrations")
        .values({ namespace, version: migration.version, name: migration.name, applied_at: new Date().toISOString() })
        .execute();
      done.push(migration.version);
    }
    return done;
  });
}
