/**
 * `tableStore`: a `ResourceStore` over tables the application already has (issue 16), described
 * by a mapping, on SQLite or PostgreSQL through Kysely. The application keeps its own schema and
 * migrations; the store adds small side tables of its own (`table-side-tables.ts`), and its
 * migration may add the triggers that let `startIndex` walks skip OFFSET (`tableStoreTriggersSql`).
 */
import type { Kysely } from "kysely";
import type { ResourceStore } from "../../resource-store.js";
import type { StoreOptions } from "../../store-options.js";
import { postgresDialect } from "../dialects/postgres-dialect.js";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import { sqliteDialect } from "../dialects/sqlite-dialect.js";
import { openPostgres } from "../open-postgres.js";
import { openSqlite } from "../open-sqlite.js";
import type { SqlStoreConnection } from "../sql-store.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import type { GroupTableMapping, OrganizationMapping, TableMapping } from "./table-mapping.js";
import { tableResourceStore } from "./table-resource-store.js";
import { createSideTables } from "./table-side-tables.js";
import { generationTriggerTypes } from "./table-store-triggers-sql.js";

/**
 * Where the application's tables are: its own Kysely instance and dialect (the usual case: the
 * store then never closes it), or a SQLite file or PostgreSQL URL, as `sqlStore` takes them.
 */
export type TableStoreConnection<DB = unknown> =
  | Exclude<SqlStoreConnection, { readonly kysely: unknown }>
  | {
      /**
       * The application's Kysely instance, of any table types. For SQLite, call
       * `registerSqliteFunctions(database)` on its better-sqlite3 connection first (filters fold
       * case as JavaScript does through it; the store checks at start).
       */
      readonly kysely: Kysely<DB>;
      /** The hooks of its database: `sqliteDialect` or `postgresDialect`. */
      readonly dialect: SqlDialect;
    };

/** Options of `tableStore`. */
export type TableStoreOptions<DB = unknown> = TableStoreConnection<DB> &
  StoreOptions & {
    /** Which organization each row belongs to: a column, or one fixed organization. */
    readonly organization: OrganizationMapping;
    /** The table of users (the `User` resource type). */
    readonly users: TableMapping;
    /**
     * The table of groups and the join table of their members. Absent: the store keeps no groups
     * (creating one is a 501, and lists of groups are empty).
     */
    readonly groups?: GroupTableMapping;
  };

/** The table store: a `ResourceStore` with the handles of its connection. */
export interface TableStore extends ResourceStore {
  /** Closes the connections the store opened; the application's own Kysely instance stays open. Idempotent. */
  close(): Promise<void>;
  /** The dialect in use. */
  readonly dialect: SqlDialect;
}

interface Opened {
  readonly db: Kysely<SqlStoreDatabase>;
  readonly dialect: SqlDialect;
  readonly owned: boolean;
}

async function open<DB>(options: TableStoreConnection<DB>): Promise<Opened> {
  if ("sqlite" in options) {
    const db = await openSqlite(options.sqlite, options.threads === undefined ? {} : { threads: options.threads });
    return { db, dialect: sqliteDialect, owned: true };
  }
  if ("postgres" in options) return { db: await openPostgres(options.postgres, options.schema), dialect: postgresDialect, owned: true };
  // The store's queries are raw SQL over the mapping's names, so the instance's table types do not matter.
  return { db: options.kysely as unknown as Kysely<SqlStoreDatabase>, dialect: options.dialect, owned: false };
}

/**
 * Opens a store over the application's tables, creates its side tables where missing and finds
 * which tables have the list-generation triggers (`tableStoreTriggersSql`).
 *
 * @example
 * const store = await tableStore({
 *   kysely: db, dialect: sqliteDialect,
 *   organization: { column: "org_id" },
 *   users: {
 *     table: "users", id: { column: "id", kind: "integer" },
 *     columns: { userName: "email", "name.givenName": "first_name", active: { column: "is_active", type: "boolean" } },
 *     rest: { column: "scim_attributes" },
 *   },
 * });
 */
export async function tableStore<DB>(options: TableStoreOptions<DB>): Promise<TableStore> {
  const { db, dialect, owned } = await open(options);
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    if (owned) await db.destroy();
  };
  let resources: ResourceStore;
  try {
    await dialect.prepareConnection?.(db);
    await createSideTables(db, dialect);
    resources = tableResourceStore(db, dialect, {
      organization: options.organization,
      users: options.users,
      ...(options.groups ? { groups: options.groups } : {}),
      // Read once: triggers installed later count from the next start.
      generations: await generationTriggerTypes(db, dialect, options),
      ...(options.now === undefined ? {} : { now: options.now }),
    });
  } catch (error) {
    await close();
    throw error;
  }
  return { ...resources, close, dialect };
}
