/**
 * The host server's store, chosen by `DATABASE_URL`: SQLite at `./data/scimkit.db` by default (so
 * `npm start` needs nothing but Node), `sqlite:<path>` for another file, `postgres://…` for
 * PostgreSQL (several hosts may share it), `memory:` for the memory store. Each comes with the
 * analytics store over the same storage, so the analytics interface reads the very learners SCIM
 * provisioned and deleting an organization clears both sides in one place.
 */
import { randomBytes } from "node:crypto";
import type { AnalyticsStore } from "@scimkit/server";
import { memoryAnalyticsStore } from "@scimkit/server";
import { sqlAnalyticsStore } from "@scimkit/server";
import { createTokenStore, type TokenStore } from "scimkit";
import { type AuditTrail, memoryAuditTrail } from "scimkit/audit";
import { memoryStore } from "scimkit/memory";
import type { RateLimiter } from "scimkit/rate-limit";
import type { ReadableRequestLog } from "scimkit/request-log";
import {
  sqlAuditTrail,
  sqlRateLimiter,
  type SqlRequestLog,
  sqlRequestLog,
  type SqlRequestLogOptions,
  sqlStore,
  type SqlStore,
} from "scimkit/sql";
import type { ResourceStore } from "scimkit/store";
import { sql } from "kysely";
import { ensurePrivateFile } from "./private-file.js";
import type { OrganizationDatabase, SqlEngine } from "./regions/organization-tables.js";

/** The resources, the tokens, the analytics, a description for the start-up banner, and how to close them. */
export interface HostStore {
  readonly store: ResourceStore;
  readonly tokens: TokenStore;
  /** Organizations, admin users, keys, campaigns and simulations, beside `store` in the same storage. */
  readonly analytics: AnalyticsStore;
  /** The audit trail of SCIM writes, in the same storage (`scimkit_audit` for SQL). */
  readonly audit: AuditTrail;
  readonly description: string;
  /** A trivial round trip to the database (`SELECT 1`), for `/readyz`. */
  ping(): Promise<void>;
  /**
   * Applies the migrations the database lacks; resolves with the versions applied in each
   * migration namespace (`scim`, `analytics`; all empty: up to date).
   */
  migrate(): Promise<Readonly<Record<string, readonly number[]>>>;
  /**
   * The secret sealing list cursors when `SCIMKIT_CURSOR_SECRET` is not set: kept in the database
   * (`scimkit_settings`), so every host on it shares one and restarts keep cursors valid; the
   * memory store, lost on restart anyway, draws one per process.
   */
  cursorSecret(): Promise<string>;
  /**
   * A rate limiter every host on the database shares (`sqlRateLimiter`), on PostgreSQL, where
   * several hosts may serve one database; absent elsewhere, where one process is the only one
   * and the in-process token bucket is exact and free.
   */
  readonly sharedRateLimiter?: (namespace: string, rate: { readonly requestsPerSecond: number; readonly burst: number }) => RateLimiter;
  /**
   * The provisioning log in the store's database (`sqlRequestLog`), on SQL stores; `close()`
   * flushes and stops it before the store closes, so a shutdown keeps the last requests.
   */
  readonly openRequestLog?: (options: SqlRequestLogOptions) => ReadableRequestLog;
  /** Closes what the store opened: the provisioning log first, then the connections. */
  close(): Promise<void>;
  /** The SQL stores' connection, for moving an organization's rows to another region; absent on memory. */
  readonly sql?: OrganizationDatabase;
}

export interface OpenHostStoreOptions {
  /** Whether to apply the migrations on open. Default true; `scimkit migrate` opens without, then migrates. */
  readonly migrate?: boolean;
}

/** The parts of a SQL-backed `HostStore` every SQL store shares. */
async function sqlHostStore(store: SqlStore, description: string, migrate: boolean, engine: SqlEngine): Promise<HostStore> {
  // Several hosts may serve one PostgreSQL database; a SQLite file has one.
  const shared = engine === "postgres";
  const analytics = await sqlAnalyticsStore(store, { migrate });
  const logs: SqlRequestLog[] = [];
  return {
    store,
    tokens: store.tokens,
    analytics,
    audit: sqlAuditTrail(store.db),
    description,
    sql: { db: store.db, dialect: store.dialect, engine },
    ping: async () => {
      await sql`select 1`.execute(store.db);
    },
    // The store's namespace first: the analytics tables refer to nothing of it, but a reader of the output expects that order.
    migrate: async () => ({ scim: await store.migrate(), analytics: await analytics.migrate() }),
    cursorSecret: () => store.sharedSecret("cursor"),
    ...(shared ? { sharedRateLimiter: (namespace, rate) => sqlRateLimiter(store, { ...rate, namespace }) } : {}),
    openRequestLog: (options) => {
      const log = sqlRequestLog(store, options);
      logs.push(log);
      return log;
    },
    close: async () => {
      await Promise.all(logs.splice(0).map((log) => log.close()));
      await store.close();
    },
  };
}

export const DEFAULT_DATABASE = "./data/scimkit.db";

async function sqliteAt(path: string, migrate: boolean): Promise<HostStore> {
  // Readable by the host's user only, -wal and -shm files included (private-file.ts).
  if (path !== ":memory:") ensurePrivateFile(path);
  return sqlHostStore(await sqlStore({ sqlite: path, migrate }), `SQLite ${path}`, migrate, "sqlite");
}

/** The SQLite file `databaseUrl` names (undefined or empty: the default one), or undefined for another store. */
export function sqlitePathOf(databaseUrl: string | undefined): string | undefined {
  const url = databaseUrl?.trim() ?? "";
  if (url === "") return DEFAULT_DATABASE;
  if (!url.startsWith("sqlite:")) return undefined;
  const path = url.slice("sqlite:".length).replace(/^\/\//, "");
  if (path === "") throw new Error("DATABASE_URL sqlite: needs a path, e.g. sqlite:./data/scimkit.db");
  return path;
}

/** Opens the store `databaseUrl` names (undefined or empty: the default SQLite file). */
export async function openHostStore(databaseUrl: string | undefined, options: OpenHostStoreOptions = {}): Promise<HostStore> {
  const url = databaseUrl?.trim() ?? "";
  const migrate = options.migrate ?? true;
  if (url === "memory:") {
    const store = memoryStore();
    const tokens = createTokenStore();
    const processSecret = randomBytes(32).toString("base64url");
    return {
      store,
      tokens,
      analytics: memoryAnalyticsStore({ resources: store, tokens }),
      audit: memoryAuditTrail(),
      description: "memory (lost on restart)",
      ping: async () => {},
      migrate: async () => ({}),
      cursorSecret: async () => processSecret,
      close: async () => {},
    };
  }
  const path = sqlitePathOf(url);
  if (path !== undefined) return sqliteAt(path, migrate);
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    // `?schema=name` keeps the tables in their own schema (its search_path), e.g. one per deployment.
    const parsed = new URL(url);
    const schema = parsed.searchParams.get("schema") ?? undefined;
    parsed.searchParams.delete("schema");
    const store = await sqlStore({ postgres: parsed.toString(), migrate, ...(schema ? { schema } : {}) });
    const { host, pathname } = parsed;
    // Never print the password that a connection string may carry.
    return sqlHostStore(store, `PostgreSQL ${host}${pathname}`, migrate, "postgres");
  }
  throw new Error(
    `DATABASE_URL must start with postgres://, postgresql://, sqlite: or be memory:; got ${JSON.stringify(url.split(":")[0])}…`,
  );
}
