/**
 * Opening PostgreSQL for the store with pg, an optional peer dependency that is loaded only when
 * a PostgreSQL store is asked for.
 */
import { Kysely, PostgresDialect, type PostgresPool } from "kysely";
import type { SqlStoreDatabase } from "./sql-tables.js";
import { unavailableWhenDisconnected } from "./unavailable-when-disconnected.js";

/**
 * How long acquiring a connection may take — opening one, or waiting for a free one of the pool —
 * before the request fails with 503: an unreachable server must not hold requests until the
 * client gives up. A connection string's `connect_timeout` (seconds, as libpq reads it) overrides it.
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

/** `connect_timeout` of a URL connection string in milliseconds, when it names a positive number of seconds. */
function connectTimeoutOf(connectionString: string): number | undefined {
  let seconds: number;
  try {
    seconds = Number(new URL(connectionString).searchParams.get("connect_timeout") ?? Number.NaN);
  } catch {
    return undefined;
  }
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
}

/** Schema names the store puts into `search_path` itself: plain identifiers only. */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * A Kysely instance over PostgreSQL: over a pool of its own for a connection string (ended by
 * `destroy()`), or over the caller's pool, which `destroy()` leaves open for its owner. With
 * `schema`, the store's own connections use it as their `search_path`. Either way a connection
 * that cannot be made or is lost fails the query with a 503 `ScimError` with `retryAfter`
 * (`unavailableWhenDisconnected`); a pool of its own also bounds the wait for a connection
 * (`DEFAULT_CONNECT_TIMEOUT_MS`).
 *
 * @example const db = await openPostgres(process.env.DATABASE_URL, "scim");
 */
export async function openPostgres(source: string | PostgresPool, schema?: string): Promise<Kysely<SqlStoreDatabase>> {
  if (typeof source !== "string") {
    if (schema !== undefined) {
      throw new Error("sqlStore: `schema` needs a connection string; set search_path on your own pool instead");
    }
    // Kysely ends the pool it was given on destroy(); this pool belongs to the caller.
    const borrowed: PostgresPool = { connect: () => source.connect(), end: async () => {} };
    return new Kysely<SqlStoreDatabase>({ dialect: new PostgresDialect({ pool: unavailableWhenDisconnected(borrowed) }) });
  }
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new Error(`sqlStore: schema must be a plain identifier (letters, digits, _), got ${JSON.stringify(schema)}`);
  }
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({
    connectionString: source,
    // JIT off for the session: a filter's per-row JSON subquery makes the planner cost a list above
    // jit_above_cost where an index leaves a few thousand rows, and compiling takes longer than the
    // query runs. List reads outside a transaction rely on it (readTransaction sets it locally too).
    options: `-c jit=off${schema === undefined ? "" : ` -c search_path=${schema}`}`,
    // Without a bound, pg waits for a connection as long as the operating system lets it.
    connectionTimeoutMillis: connectTimeoutOf(source) ?? DEFAULT_CONNECT_TIMEOUT_MS,
    // A server that vanishes without closing (a network partition) is noticed on idle connections too.
    keepAlive: true,
  });
  // An idle client that loses its server emits on the pool, and an unheard 'error' event would end
  // the process; the next query fails on its own and reports it where it can be handled.
  pool.on("error", () => {});
  return new Kysely<SqlStoreDatabase>({ dialect: new PostgresDialect({ pool: unavailableWhenDisconnected(pool) }) });
}
