/**
 * One versioned schema change of the SQL store. Migrations are append-only: a released one never
 * changes, a new need is a new version.
 */
import type { Kysely } from "kysely";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";

/** A schema change, applied once per database in `version` order. */
export interface Migration {
  /** Positive, unique, increasing: the order of application and the key in `scimkit_migrations`. */
  readonly version: number;
  /** A short kebab-case description, recorded beside the version. */
  readonly name: string;
  /**
   * Applies the change inside the migration transaction, with the dialect's column types. It runs
   * exactly once per database: `runMigrations` records it in the same transaction.
   */
  up(trx: Kysely<SqlStoreDatabase>, dialect: SqlDialect): Promise<void>;
}
