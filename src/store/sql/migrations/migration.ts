/**
 * One versioned schema change of the SQL store, or of a client keeping tables beside it (the
 * analytics interface). Migrations are append-only: a released one never changes, a new need is a
 * new version.
 */
import type { Kysely } from "kysely";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";

/** A schema change, applied once per database in `version` order within its namespace. */
export interface Migration {
  /**
   * Positive, unique within its namespace, increasing: the order of application and, with the
   * namespace, the key in `scimkit_migrations`.
   */
  readonly version: number;
  /** A short kebab-case description, recorded beside the version. */
  readonly name: string;
  /**
   * Where this migration was recorded before it moved to its namespace, when it did: a database
   * that recorded it there has applied it, so `runMigrations` moves the record instead of running
   * the change again (the analytics tables were SCIM version 3 before they got a namespace).
   */
  readonly movedFrom?: MigrationKey;
  /**
   * Applies the change inside the migration transaction, with the dialect's column types. It runs
   * exactly once per database: `runMigrations` records it in the same transaction.
   */
  up(trx: Kysely<SqlStoreDatabase>, dialect: SqlDialect): Promise<void>;
}

/** Where a migration is recorded in `scimkit_migrations`. */
export interface MigrationKey {
  /** Whose migrations: `"scim"` for the store's own, a name of its own for each client. */
  readonly namespace: string;
  /** The migration's version within the namespace. */
  readonly version: number;
}
