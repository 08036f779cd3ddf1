/**
 * Opening PostgreSQL for the store with pg, an optional peer dependency that is loaded only when
 * a PostgreSQL store is asked for.
 */
import { Kysely, PostgresDialect, type PostgresPool } from "kysely";
import type { SqlStoreDatabase } from "./sql-tables.js";

/** Schema names the store puts into `search_path` itself: plain identifiers only. */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * A Kysely instance over PostgreSQL: over a pool of its own for a connection string (ended by
 * `destroy()`), or over the caller's pool, which `destroy()` leaves open for its owner. With
 * `schema`, the store's own connections use it as their `search_path`.
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
    return new Kysely<SqlStoreDatabase>({ dialect: new PostgresDialect({ pool: borrowed }) });
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
  });
  // An idle client that loses its server emits on the pool, and an unheard 'error' event would end
  // the process; the next query fails on its own and reports it where it can be handled.
  pool.on("error", () => {});
  return new Kysely<SqlStoreDatabase>({ dialect: new PostgresDialect({ pool }) });
}
