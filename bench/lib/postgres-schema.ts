/** A fresh PostgreSQL schema per host start, so each measurement starts from the same empty tables. */
import pg from "pg";

export interface BenchSchema {
  readonly name: string;
  /** The server URL with `?schema=<name>`, as the host's `DATABASE_URL`. */
  readonly url: string;
  drop(): Promise<void>;
}

async function run(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates `bench_workers_<pid>_<label>` (dropping a leftover of that name first). */
export async function createBenchSchema(serverUrl: string, label: string): Promise<BenchSchema> {
  const name = `bench_workers_${process.pid}_${label}`.replace(/[^a-z0-9_]/gi, "_").toLowerCase();
  await run(serverUrl, `drop schema if exists ${name} cascade; create schema ${name}`);
  const url = new URL(serverUrl);
  url.searchParams.set("schema", name);
  return { name, url: url.toString(), drop: () => run(serverUrl, `drop schema if exists ${name} cascade`) };
}

/** The server's version, or why it could not be read. */
export async function serverVersion(serverUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  try {
    await client.connect();
    const result = await client.query<{ server_version: string }>("show server_version");
    return result.rows[0]?.server_version ?? "unknown";
  } catch (error) {
    return `unreachable (${String(error)})`;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * `ANALYZE` of the schema's tables after a bulk load — what autovacuum's auto-analyze does within
 * about a minute anyway; without it the planner still plans for the empty tables of a fresh schema.
 */
export async function analyzeSchema(serverUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const tables = await client.query<{ tablename: string }>("select tablename from pg_tables where schemaname = $1", [schema]);
    for (const { tablename } of tables.rows) await client.query(`analyze ${schema}."${tablename.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}
