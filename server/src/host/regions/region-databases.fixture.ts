/**
 * Two regions' databases for tests with real host processes (issue 30): two SQLite files, or two
 * PostgreSQL databases made for the test and dropped after it, each readable whole as text — a
 * grep of everything a region's database holds.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { describePostgres } from "../../../../src/store/sql/postgres-test-database.fixture.js";
import { freePort } from "../free-port.fixture.js";
import { killHosts } from "../host-process.fixture.js";

/** Where the two regions keep their data, and every byte of it as text for a search. */
export interface RegionDatabases {
  readonly urls: { readonly us: string; readonly eu: string };
  /** Everything `region`'s database holds, as text: a grep of it. */
  contents(region: "us" | "eu"): Promise<string>;
}

/** SCIM's core User schema. */
export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";

/** A learner as the spec's profile requires one (spec §3: name and a work e-mail). */
export function learner(userName: string, active = true): Record<string, unknown> {
  return {
    schemas: [USER_SCHEMA],
    userName,
    active,
    name: { givenName: "Pat", familyName: "Doe" },
    emails: [{ value: userName, type: "work" }],
  };
}

/** Two SQLite files in a scratch directory. */
export function sqliteDatabases(dir: string): RegionDatabases {
  return {
    urls: { us: `sqlite:${join(dir, "us.sqlite")}`, eu: `sqlite:${join(dir, "eu.sqlite")}` },
    async contents(region) {
      // The file and its write-ahead log: a row not yet checkpointed is in the latter.
      return ["", "-wal"]
        .map((suffix) => {
          try {
            return readFileSync(join(dir, `${region}.sqlite${suffix}`)).toString("latin1");
          } catch {
            return "";
          }
        })
        .join("");
    },
  };
}

/** Two databases of the PostgreSQL server at `url`, made for the test. */
export function postgresDatabases(url: string, names: { readonly us: string; readonly eu: string }): RegionDatabases {
  const urlOf = (name: string): string => {
    const database = new URL(url);
    database.pathname = `/${name}`;
    return database.toString();
  };
  return {
    urls: { us: urlOf(names.us), eu: urlOf(names.eu) },
    async contents(region) {
      const client = new pg.Client({ connectionString: urlOf(names[region]) });
      await client.connect();
      try {
        const tables = await client.query<{ schema: string; name: string }>(
          "select table_schema as schema, table_name as name from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema') and table_type = 'BASE TABLE'",
        );
        const texts: string[] = [];
        for (const { schema, name } of tables.rows) {
          const rows = await client.query<{ text: string | null }>(`select string_agg(t::text, ' ') as text from "${schema}"."${name}" t`);
          texts.push(rows.rows[0]?.text ?? "");
        }
        return texts.join(" ");
      } finally {
        await client.end();
      }
    },
  };
}

export async function call(
  url: string,
  init: { method?: string; token?: string; body?: unknown } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: init.method ?? "GET",
    headers: {
      "Content-Type": url.includes("/analytics/") ? "application/json" : "application/scim+json",
      ...(init.token === undefined ? {} : { Authorization: `Bearer ${init.token}` }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text === "" ? {} : JSON.parse(text)) as Record<string, unknown> };
}

/** Polls `probe` until it holds: the regions read each other's directory every second. */
export async function eventually<T>(probe: () => Promise<T>, holds: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (holds(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A suite on two PostgreSQL databases of the test server, made before it and dropped after it. */
export function describeTwoPostgresDatabases(name: string, suite: (databases: () => RegionDatabases) => void): void {
  describePostgres(name, (url) => {
    const suffix = randomBytes(4).toString("hex");
    const names = { us: `scimkit_test_us_${suffix}`, eu: `scimkit_test_eu_${suffix}` };
    const admin = (): pg.Client => new pg.Client({ connectionString: url });
    beforeAll(async () => {
      const client = admin();
      await client.connect();
      for (const database of Object.values(names)) await client.query(`create database ${database}`);
      await client.end();
    });
    afterAll(async () => {
      killHosts();
      const client = admin();
      await client.connect();
      for (const database of Object.values(names)) await client.query(`drop database if exists ${database} with (force)`);
      await client.end();
    });
    suite(() => postgresDatabases(url, names));
  });
}

/** The addresses of a `us` and an `eu` host on free ports, and the environment each is started with. */
export interface RegionPair {
  readonly us: string;
  readonly eu: string;
  readonly env: { readonly us: Record<string, string>; readonly eu: Record<string, string> };
}

/**
 * Two regions' hosts as a test starts them: free ports, each region's URL in both hosts'
 * `SCIMKIT_REGIONS`, one region key, one operator key, one process each, no demo data, each on its
 * database, with `orgs` (`SCIMKIT_ORGS`) and `env` added to both.
 */
export async function regionPair(options: {
  readonly urls: { readonly us: string; readonly eu: string };
  readonly regionKey: string;
  readonly operatorKey: string;
  readonly orgs?: { readonly us?: string; readonly eu?: string };
  readonly env?: Readonly<Record<string, string>>;
}): Promise<RegionPair> {
  const [usPort, euPort] = [await freePort(), await freePort()];
  const us = `http://127.0.0.1:${usPort}`;
  const eu = `http://127.0.0.1:${euPort}`;
  const common = {
    SCIMKIT_REGIONS: `us=${us},eu=${eu}`,
    SCIMKIT_REGION_KEY: options.regionKey,
    SCIMKIT_OPERATOR_KEY: options.operatorKey,
    SCIMKIT_DEMO_DATA: "0",
    SCIMKIT_WORKERS: "1",
    ...options.env,
  };
  const region = (name: "us" | "eu", port: number): Record<string, string> => ({
    ...common,
    PORT: String(port),
    SCIMKIT_REGION: name,
    SCIMKIT_ORGS: options.orgs?.[name] ?? "",
    DATABASE_URL: options.urls[name],
  });
  return { us, eu, env: { us: region("us", usPort), eu: region("eu", euPort) } };
}
