/**
 * `sqlStore`: the SQL `ResourceStore` and its token store, ready to mount (architecture §1):
 * SQLite through better-sqlite3, PostgreSQL through pg, or any database through a Kysely
 * instance and a `SqlDialect`. The tables are created by versioned migrations on start.
 */
import { sql, type Kysely, type PostgresPool } from "kysely";
import { createTokenStore, type TokenStore, type TokenStoreOptions } from "../../auth/hashed-token-store.js";
import type { ResourceStore } from "../resource-store.js";
import { postgresDialect } from "./dialects/postgres-dialect.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import { sqliteDialect } from "./dialects/sqlite-dialect.js";
import { listGenerations } from "./migrations/0019-list-generations.js";
import { runMigrations } from "./migrations/run-migrations.js";
import { openPostgres } from "./open-postgres.js";
import { openSqlite, type SqliteThreads } from "./open-sqlite.js";
import { sqlResourceStore, type SqlResourceStoreOptions } from "./sql-resource-store.js";
import { sharedSecret } from "./shared-secret.js";
import type { SqlStoreDatabase } from "./sql-tables.js";
import { sqlTokenRepository } from "./sql-token-repository.js";

/** Where the store keeps its tables: exactly one of `sqlite`, `postgres` or `kysely`. */
export type SqlStoreConnection =
  | {
      /** A SQLite file (created if missing; write-ahead logging) or `":memory:"` for a private in-memory database. */
      readonly sqlite: string;
      /**
       * Where statements run. Default `{}`: in worker threads, a writer and up to 4 readers
       * (`{ readers: n }` for another number; `":memory:"` has one thread), so no statement holds
       * up the event loop. `false`: on the event loop through one connection, as better-sqlite3
       * does by itself — every statement then stalls every request; for tests and scripts only.
       */
      readonly threads?: SqliteThreads;
    }
  | {
      /**
       * A PostgreSQL connection string (the store opens a pool and ends it on `close()`), or a
       * pg `Pool` of yours (the store borrows it and leaves it open). Set `search_path` on your
       * pool (pg option `options: "-c search_path=…"`) to keep the tables in a schema.
       */
      readonly postgres: string | PostgresPool;
      /**
       * With a connection string only: the schema to keep the tables in; `migrate()` creates it.
       * Default: the server's `search_path` (normally `public`).
       */
      readonly schema?: string;
    }
  | {
      /**
       * A Kysely instance of yours, for a database or driver scimkit does not open itself. You
       * own it: `close()` leaves it open. For SQLite, call `registerSqliteFunctions(database)` on
       * the better-sqlite3 connection first (the store checks, and turns foreign keys on itself).
       */
      readonly kysely: Kysely<SqlStoreDatabase>;
      /** The hooks of its database: `sqliteDialect`, `postgresDialect`, or your own. */
      readonly dialect: SqlDialect;
    };

/** Options of `sqlStore`. */
export type SqlStoreOptions = SqlStoreConnection &
  SqlResourceStoreOptions & {
    /**
     * Whether to bring the tables up to date before returning, as `store.migrate()` does. Default
     * true; set false when migrations run in a deploy step of their own.
     */
    readonly migrate?: boolean;
    /** Options of the token store behind `store.tokens`, other than where it keeps tokens. */
    readonly tokens?: Omit<TokenStoreOptions, "repository">;
  };

/** The SQL store: a `ResourceStore`, its token store, and the handles an operator needs. */
export interface SqlStore extends ResourceStore {
  /**
   * Applies the migrations the database lacks and resolves with their versions (`[]` when it
   * was up to date). Safe to call again, and from several processes at once. Indexes a migration
   * adds that need hooks of their own (SQLite's e-mail search tables, migration 8) are used and
   * kept by this store from then on (`SqlDialect.adaptTo`); another process that opened before
   * they existed does not keep them: restart it.
   */
  migrate(): Promise<readonly number[]>;
  /** Closes the connections the store opened; a borrowed pool or Kysely instance stays open. Idempotent. */
  close(): Promise<void>;
  /** Hashed tokens in `scimkit_tokens`: pass as the router's `auth`; issue, rotate and revoke with it. */
  readonly tokens: TokenStore;
  /**
   * The Kysely instance over the store's tables, for operators' queries and tests. On SQLite in
   * threads, each query runs on the writer or on a reader as it reads or writes, a transaction on
   * one of them throughout; temporary tables live on the writer (query them as `temp.name`).
   */
  readonly db: Kysely<SqlStoreDatabase>;
  /** The dialect in use: the one given or implied, with the hooks `SqlDialect.adaptTo` chose for the database. */
  readonly dialect: SqlDialect;
  /**
   * A random secret (256 bits, base64url) kept in the database under `name`: generated by the
   * first call on this database, from any process, and the same for every store on it from then
   * on. Pass `await store.sharedSecret("cursor")` as the router's `cursorSecret`, so every host on
   * the database opens the cursors another sealed, and a restart keeps them valid.
   */
  sharedSecret(name: string): Promise<string>;
}

interface Opened {
  readonly db: Kysely<SqlStoreDatabase>;
  readonly dialect: SqlDialect;
  /** Whether `close()` destroys `db` (false for a caller's Kysely instance). */
  readonly owned: boolean;
  /** The schema `migrate()` creates first, if any. */
  readonly schema?: string;
}

async function open(options: SqlStoreConnection): Promise<Opened> {
  if ("sqlite" in options) {
    const db = await openSqlite(options.sqlite, options.threads === undefined ? {} : { threads: options.threads });
    return { db, dialect: sqliteDialect, owned: true };
  }
  if ("postgres" in options) {
    const db = await openPostgres(options.postgres, options.schema);
    return { db, dialect: postgresDialect, owned: true, ...(options.schema === undefined ? {} : { schema: options.schema }) };
  }
  return { db: options.kysely, dialect: options.dialect, owned: false };
}

/** Whether migration 19 (`scimkit_list_generations`) has been applied to `db`. */
async function hasListGenerations(db: Kysely<SqlStoreDatabase>): Promise<boolean> {
  try {
    const row = await db
      .selectFrom("scimkit_migrations")
      .select("version")
      .where("namespace", "=", "scim")
      .where("version", "=", listGenerations.version)
      .executeTakeFirst();
    return row !== undefined;
  } catch {
    // No migrations table: a database opened with `migrate: false` before its first migration.
    return false;
  }
}

/**
 * Opens a SQL store and, unless `migrate: false`, brings its tables up to date. SQLite runs in
 * worker threads (`threads`), so its synchronous driver never blocks the event loop.
 *
 * @example
 * const store = await sqlStore({ sqlite: "scim.db" });          // or { postgres: process.env.DATABASE_URL }
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth: store.tokens }));
 */
export async function sqlStore(options: SqlStoreOptions): Promise<SqlStore> {
  const { db, dialect, owned, schema } = await open(options);
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    if (owned) await db.destroy();
  };

  // The hooks in use; `adapt` adds those that the tables the migrations made here call for
  // (SQLite's e-mail search). The store reads them from this object at each call, so hooks added
  // by a later `migrate()` take effect at once.
  const active: SqlDialect = { ...dialect };
  const adapt = async (): Promise<void> => {
    Object.assign(active, await dialect.adaptTo?.(db));
    active.listGenerations = await hasListGenerations(db);
  };

  const migrate = async (): Promise<readonly number[]> => {
    if (schema !== undefined) {
      // Under the migration lock: two processes creating one schema at once would otherwise collide.
      await dialect.migrationTransaction(db, (trx) => sql`create schema if not exists ${sql.id(schema)}`.execute(trx));
    }
    const applied = await runMigrations(db, dialect);
    // A store opened with `migrate: false` keeps a table a migration adds now up to date from now on.
    await adapt();
    return applied;
  };

  try {
    await dialect.prepareConnection?.(db);
    if (options.migrate !== false) await migrate();
    else await adapt();
  } catch (error) {
    await close();
    throw error;
  }

  const resources = sqlResourceStore(db, active, options.now === undefined ? {} : { now: options.now });
  const tokens = createTokenStore({ ...options.tokens, repository: sqlTokenRepository(db, active) });
  return { ...resources, migrate, close, tokens, db, dialect: active, sharedSecret: (name) => sharedSecret(db, name) };
}
