/**
 * What differs between databases for the SQL store (architecture §6.4: dialect differences are small
 * hooks, not forked compilers). A dialect is the filter hooks of `FilterDialect` plus the store
 * hooks below: column types, JSON (de)serialization, row locks, conflict-ignoring inserts and
 * the three kinds of transaction. Everything else — every query of the store — is shared Kysely
 * code, so a third database (MySQL/MariaDB) is one short file.
 */
import type { Expression, InsertQueryBuilder, Kysely, RawBuilder } from "kysely";
import type { ScimObject } from "../../../scim/schema/normalize-value.js";
import type { FilterDialect } from "../filter/filter-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import type { ResourceIndexChange } from "./resource-index-change.js";

/**
 * Why a row is locked inside a write transaction (architecture §3: concurrent writes from several
 * processes lose nothing):
 * - `"reference"`: the row is about to be referenced by a foreign key (a new member); it must not
 *   be deleted until the transaction ends, yet others may still update it.
 * - `"update"`: the row will be updated (never its key); other updaters wait, referencers do not.
 * - `"delete"`: the row will be deleted; everyone else waits, referencers included.
 */
export type RowLock = "reference" | "update" | "delete";

/** The column types the migrations create, per dialect. */
export interface SqlColumnTypes {
  /**
   * Ids, organization ids, type names, unique values: text that is indexed and compared exactly,
   * in code-point order (the core compares strings by UTF-16 code unit, `compareListEntries`).
   *
   * @example sql`text collate "C"` // PostgreSQL
   */
  readonly key: Expression<unknown>;
  /** Free text that is not indexed: ISO 8601 times, labels. */
  readonly text: Expression<unknown>;
  /**
   * A JSON document: what `toJson` writes and `fromJson` reads.
   *
   * @example sql`jsonb` // PostgreSQL; sql`text` // SQLite
   */
  readonly json: Expression<unknown>;
  /** A 64-bit integer: versions and member positions. */
  readonly counter: Expression<unknown>;
}

/** A unit of work inside a transaction, given the transaction's connection. */
export type TransactionWork<T> = (trx: Kysely<SqlStoreDatabase>) => Promise<T>;

/**
 * The hooks of one SQL dialect: the filter hooks (`FilterDialect`) and the store hooks. Ship one
 * per database; `sqliteDialect` and `postgresDialect` are the references.
 *
 * @example
 * export const mysqlDialect: SqlDialect = {
 *   ...mysqlFilterDialect,
 *   columnTypes: { key: sql`varchar(191)`, text: sql`text`, json: sql`json`, counter: sql`bigint` },
 *   rowLock: (lock) => (lock === "reference" ? sql`for share` : sql`for update`),
 *   ignoreConflicts: (query) => query.ignore(),
 *   …
 * };
 */
export interface SqlDialect extends FilterDialect {
  /** Column types for the migrations' DDL. */
  readonly columnTypes: SqlColumnTypes;

  /**
   * Most bind parameters one statement may carry; the store splits long id lists (a replace with
   * 100,000 members) into statements below it. SQLite allows 32,766, PostgreSQL 65,535.
   */
  readonly maxParameters: number;

  /**
   * The value to bind for a JSON column. Never hand the driver a bare object: `pg` would turn an
   * array into a PostgreSQL array.
   *
   * @example (value) => JSON.stringify(value)
   */
  toJson(value: ScimObject): unknown;

  /**
   * A JSON column as read back by the driver (text to parse, or an object the driver already
   * parsed, as `pg` does for `jsonb`), as a fresh object the caller may own.
   */
  fromJson(stored: unknown): ScimObject;

  /**
   * The clause appended to a `SELECT` that takes `lock` on the rows it reads, or `undefined` when
   * the dialect's write transactions already exclude each other (SQLite's `BEGIN IMMEDIATE`).
   *
   * @example (lock) => sql`for no key update` // PostgreSQL, for "update"
   */
  rowLock(lock: RowLock): RawBuilder<unknown> | undefined;

  /**
   * `query` made to skip rows that violate a unique constraint instead of failing, so a clash
   * shows as zero inserted rows and the transaction stays usable (PostgreSQL aborts a transaction
   * on any error). `ON CONFLICT DO NOTHING` in PostgreSQL and SQLite, `INSERT IGNORE` in MySQL.
   */
  ignoreConflicts<DB, TB extends keyof DB, O>(query: InsertQueryBuilder<DB, TB, O>): InsertQueryBuilder<DB, TB, O>;

  /**
   * Runs `work` in a read-write transaction and commits, or rolls back and rethrows. Writers of
   * one row must not both proceed: SQLite takes the write lock up front (`BEGIN IMMEDIATE`),
   * PostgreSQL relies on `rowLock` under READ COMMITTED. A dialect may retry `work` on transient
   * failures (deadlock, serialization failure), so `work` must have no effect outside the database.
   */
  writeTransaction<T>(db: Kysely<SqlStoreDatabase>, work: TransactionWork<T>): Promise<T>;

  /**
   * Run first in a `writeTransaction` whose commit need not wait for the disk: the provisioning
   * log's batches, whose last moments a crash of the database may lose as a crash of the process
   * loses its buffer. PostgreSQL: `SET LOCAL synchronous_commit = off` (the commit is durable a
   * fraction of a second later, never torn). Absent: the transaction commits as every other.
   */
  readonly lazyCommit?: (trx: Kysely<SqlStoreDatabase>) => Promise<void>;

  /**
   * Runs `work` in a read-only transaction that sees one snapshot, so a page, its total and its
   * members agree (PostgreSQL: REPEATABLE READ, READ ONLY).
   */
  readTransaction<T>(db: Kysely<SqlStoreDatabase>, work: TransactionWork<T>): Promise<T>;

  /**
   * Runs the migrations in a transaction that holds a lock no other process migrating the same
   * tables can hold at once, so two processes starting together both succeed: one migrates, the
   * other then finds nothing to do (PostgreSQL: `pg_advisory_xact_lock`; SQLite: the write lock).
   */
  migrationTransaction<T>(db: Kysely<SqlStoreDatabase>, work: TransactionWork<T>): Promise<T>;

  /**
   * The error to throw for `error`, which the database raised: a `ScimError` when the client's
   * input is at fault and the database alone cannot take it (PostgreSQL cannot store U+0000),
   * else `error` itself, which the router reports as a 500. Optional; default: unchanged.
   *
   * @example (error) => (codeOf(error) === "22P05" ? new ScimError(400, ScimType.invalidValue, "…") : error)
   */
  translateError?(error: unknown): unknown;

  /**
   * Session setup run once when the store opens, before migrating: SQLite turns foreign keys on
   * (they cascade member rows). Optional; PostgreSQL needs none.
   */
  prepareConnection?(db: Kysely<SqlStoreDatabase>): Promise<void>;

  /**
   * Keeps rows the dialect derives from resources in step with `change`, inside the write's
   * transaction `trx`, so they commit or roll back with it: SQLite's e-mail search tables
   * (`indexSqliteEmailsSearch`, migration 8), which the store writes rather than triggers, so
   * that the schema needs no function of ours. The store calls it after inserting a resource or
   * replacing its attributes, and before deleting resources. Optional; `adaptTo` supplies it
   * where the tables exist. Default: none (PostgreSQL's column is generated by the database).
   *
   * @example async (trx, change) => { if (change.kind === "delete") await dropSearchRow(trx, change.orgId, change.id); }
   */
  indexResources?(trx: Kysely<SqlStoreDatabase>, change: ResourceIndexChange): Promise<void>;

  /**
   * Hooks that replace the dialect's own over `db`, whose tables are up to date, where a hook
   * depends on what the migrations could create there: SQLite returns a `searchContains` that
   * narrows e-mail filters through `scimkit_emails_search`, and the `indexResources` that keeps
   * it, when migration 8 could create that table (FTS5 and its trigram tokenizer are build
   * options), and nothing otherwise. `sqlStore`
   * calls it once, after migrating on start (or at once with `migrate: false`). Optional;
   * default: none.
   *
   * @example async (db) => ((await hasSearchTable(db)) ? { searchContains } : {})
   */
  adaptTo?(db: Kysely<SqlStoreDatabase>): Promise<Partial<SqlDialect>>;

  /**
   * Whether the database has `scimkit_list_generations` (migration 19): creates and deletes then
   * keep each list's generation, and `startIndex` walks follow the positions earlier pages ended
   * at. `sqlStore` sets it after migrating: false for a database opened with `migrate: false`
   * before that migration was applied there. Default: true.
   */
  listGenerations?: boolean;
}
