/**
 * PostgreSQL for the SQL store's tests (architecture §5): they run when `SCIMKIT_TEST_POSTGRES_URL`
 * names a server and skip with a visible line otherwise; with `SCIMKIT_REQUIRE_POSTGRES=1` (CI)
 * a missing URL fails the run instead. Each test file works in a schema of its own, created once
 * and dropped at the end, so files run in parallel against one database.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { describe } from "vitest";

/** The server the tests use, when there is one. */
export const postgresUrl: string | undefined = process.env["SCIMKIT_TEST_POSTGRES_URL"] || undefined;

/**
 * `describe` when PostgreSQL is available, else `describe.skip` with a line saying why — or, when
 * `SCIMKIT_REQUIRE_POSTGRES=1`, an error, so CI cannot pass by skipping. A vitest project that
 * runs files another project runs too, changing nothing a PostgreSQL block uses, skips the block
 * with the reason its `SCIMKIT_POSTGRES_ELSEWHERE` gives (vitest.config.ts).
 */
export function describePostgres(name: string, body: (url: string) => void): void {
  const elsewhere = process.env["SCIMKIT_POSTGRES_ELSEWHERE"];
  if (elsewhere) {
    // `elsewhere` is the reason, set by the project (vitest.config.ts): which project runs the block.
    describe.skip(`${name} [skipped because ${elsewhere}]`, () => body(""));
    return;
  }
  const url = postgresUrl;
  if (url !== undefined) {
    describe(name, () => body(url));
    return;
  }
  if (process.env["SCIMKIT_REQUIRE_POSTGRES"] === "1") {
    throw new Error(`${name}: SCIMKIT_REQUIRE_POSTGRES=1 but SCIMKIT_TEST_POSTGRES_URL is not set`);
  }
  console.log(
    `[skipped] ${name}: set SCIMKIT_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run the PostgreSQL tests`,
  );
  describe.skip(`${name} [skipped because SCIMKIT_TEST_POSTGRES_URL is not set]`, () => body(""));
}

/** A schema of one test file. */
export interface TestSchema {
  /** `scimkit_test_<random>`. */
  readonly name: string;
  /** A new pool whose connections use the schema (`search_path`), as a second process would have. */
  pool(): pg.Pool;
  /** Ends every pool `pool()` made and drops the schema with everything in it. */
  drop(): Promise<void>;
}

/** Creates a fresh, empty schema `scimkit_test_<random>` on the server at `url`. */
export async function createTestSchema(url: string): Promise<TestSchema> {
  const name = `scimkit_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  await admin.query(`create schema ${name}`);
  const pools: pg.Pool[] = [];
  return {
    name,
    pool() {
      const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${name}` });
      pools.push(pool);
      return pool;
    },
    async drop() {
      await Promise.all(pools.map((pool) => pool.end()));
      await admin.query(`drop schema if exists ${name} cascade`);
      await admin.end();
    },
  };
}
