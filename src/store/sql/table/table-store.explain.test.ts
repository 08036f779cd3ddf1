/**
 * Issue 16, architecture §3: the table store answers `userName eq`, `externalId eq` and `id eq`
 * through indexes — the application's own (`users_org_email`, `users_org_external_id`, its
 * primary key) and the store's `scimkit_table_keys` — never by scanning the application's table.
 * The plan checked is the one of the query the store really runs: captured from Kysely's log.
 */
import Database from "better-sqlite3";
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql, type LogEvent } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileFilter } from "../../../scim/filter/resolve-filter.js";
import { createSchemaRegistry } from "../../../scim/schema/schema-registry.js";
import { postgresDialect } from "../dialects/postgres-dialect.js";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import { sqliteDialect } from "../dialects/sqlite-dialect.js";
import { registerSqliteFunctions } from "../filter/register-sqlite-functions.js";
import { createTestSchema, postgresUrl } from "../postgres-test-database.fixture.js";
import { randomUUID } from "node:crypto";
import { createSchemaA, createSchemaB, mappingA, mappingB } from "./table-mappings.fixture.js";
import { tableStore, type TableStore } from "./table-store.js";

const userSchema = createSchemaRegistry().resourceType("User");
const USERS_PER_ORG = 2_000;

interface Target {
  readonly name: "sqlite" | "postgres";
  readonly dialect: SqlDialect;
  open(log: (event: LogEvent) => void): Promise<{ readonly db: Kysely<object>; close(): Promise<void> }>;
}

const targets: Target[] = [
  {
    name: "sqlite",
    dialect: sqliteDialect,
    open: async (log) => {
      const database = new Database(":memory:");
      registerSqliteFunctions(database);
      const db = new Kysely<object>({ dialect: new SqliteDialect({ database }), log });
      return { db, close: () => db.destroy() };
    },
  },
];
if (postgresUrl !== undefined) {
  const url = postgresUrl;
  targets.push({
    name: "postgres",
    dialect: postgresDialect,
    open: async (log) => {
      // A schema per opening, dropped by its own close.
      const own = await createTestSchema(url);
      const db = new Kysely<object>({ dialect: new PostgresDialect({ pool: own.pool() }), log });
      return { db, close: () => own.drop() };
    },
  });
} else {
  console.log("[skipped] table store EXPLAIN on PostgreSQL: set SCIMKIT_TEST_POSTGRES_URL to run it");
}

describe.each(targets)("table store plans on $name", (target) => {
  const queries: CompiledQuery[] = [];
  let opened: Awaited<ReturnType<Target["open"]>> | undefined;
  let store: TableStore | undefined;
  let db: Kysely<object>;

  beforeAll(async () => {
    opened = await target.open((event) => {
      if (event.level === "query") queries.push(event.query);
    });
    db = opened.db;
    await createSchemaA(db, target.name);
    store = await tableStore({ kysely: db, dialect: target.dialect, ...mappingA });
    // The application's own users, in two organizations, and a few provisioned through SCIM.
    for (const org of ["org-a", "org-b"]) {
      const values = Array.from({ length: USERS_PER_ORG }, (_, index) => sql`(${org}, ${`user${index}@example.com`}, ${`ext-${index}`})`);
      await sql`insert into users (org_id, email, scim_external_id) values ${sql.join(values)}`.execute(db);
    }
    for (let index = 0; index < 20; index += 1) {
      await store.create({
        orgId: "org-a",
        resourceType: "User",
        id: `00000000-0000-7000-8000-${String(index).padStart(12, "0")}`,
        now: "2026-01-01T00:00:00.000Z",
        attributes: { userName: `Scim${index}@Example.com`, externalId: `scim-${index}` },
        uniqueKeys: [{ attribute: "userName", value: `scim${index}@example.com` }],
        unknownMembers: "ignore",
      });
    }
    // Keys of org-b's users as well, so the keys table is not small enough to read whole.
    await sql`insert into scimkit_table_keys (org_id, resource_type, attribute, value, id)
      select org_id, 'User', 'userName', email, cast(id as text) from users where org_id = 'org-b'`.execute(db);
    await sql.raw("analyze").execute(db);
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await opened?.close();
  });

  /** The plan of the page query `store.list` runs for `filter`, one line per step. */
  async function plan(filter: string): Promise<string[]> {
    const compiled = compileFilter(userSchema!, filter);
    if (!compiled.ok) throw new Error(compiled.error.detail);
    queries.length = 0;
    await store!.list({
      orgId: "org-a",
      resourceType: "User",
      filter: compiled.value,
      page: { kind: "index", startIndex: 1, count: 10 },
      members: false,
    });
    const query = queries.find((candidate) => candidate.sql.includes("order by"));
    if (!query) throw new Error(`no page query among ${queries.map((q) => q.sql).join("; ")}`);
    if (target.name === "sqlite") {
      const result = await db.executeQuery<{ readonly detail: string }>(
        CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
      );
      return result.rows.map((row) => row.detail);
    }
    const result = await db.executeQuery<{ readonly "QUERY PLAN": string }>(
      CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
    );
    return result.rows.map((row) => row["QUERY PLAN"].trim());
  }

  /** No step reads the application's table or the keys table whole. */
  const expectNoScan = (steps: readonly string[]): void => {
    const scans = steps.filter((step) =>
      target.name === "sqlite" ? /^SCAN (t|k|users|scimkit_table_keys)\b/.test(step) : /Seq Scan on (users|scimkit_table_keys)/.test(step),
    );
    expect(scans, steps.join("\n")).toEqual([]);
  };
  const expectIndex = (steps: readonly string[], pattern: RegExp): void => {
    expect(
      steps.some((step) => pattern.test(step)),
      steps.join("\n"),
    ).toBe(true);
  };

  it("userName eq: the store's key by its primary key, or the application's index of the folded e-mail", async () => {
    const steps = await plan('userName eq "SCIM7@example.com"');
    expectNoScan(steps);
    expectIndex(steps, target.name === "sqlite" ? /sqlite_autoindex_scimkit_table_keys_1/ : /scimkit_table_keys_pkey/);
    expectIndex(steps, /users_org_email_folded/);
  });

  it("userName eq beyond ASCII: PostgreSQL's folded index; on SQLite the organization's rows, not the table", async () => {
    // No index may call scimkit_lower on SQLite (any SQLite tool must open the file), and SQLite's
    // own lower() folds ASCII alone, so a name beyond ASCII is compared row by row in its organization.
    const steps = await plan('userName eq "ÉMILE@example.com"');
    expectNoScan(steps);
    expectIndex(steps, target.name === "sqlite" ? /SEARCH t USING INDEX users_org_\w+ \(org_id=\?\)/ : /users_org_email_folded/);
  });

  it("externalId eq: the application's externalId index", async () => {
    const steps = await plan('externalId eq "ext-42"');
    expectNoScan(steps);
    expectIndex(steps, /users_org_external_id/);
  });

  it("id eq: the application's primary key", async () => {
    const steps = await plan('id eq "42"');
    expectNoScan(steps);
    expectIndex(steps, target.name === "sqlite" ? /INTEGER PRIMARY KEY/ : /users_pkey/);
  });

  it("answers them right: the application's rows and the provisioned ones", async () => {
    const find = async (filter: string): Promise<string[]> => {
      const compiled = compileFilter(userSchema!, filter);
      if (!compiled.ok) throw new Error(compiled.error.detail);
      const result = await store!.list({
        orgId: "org-a",
        resourceType: "User",
        filter: compiled.value,
        page: { kind: "index", startIndex: 1, count: 10 },
        members: false,
      });
      return result.resources.map((resource) => String(resource.attributes["userName"]));
    };
    expect(await find('userName eq "scim7@EXAMPLE.com"')).toEqual(["Scim7@Example.com"]);
    expect(await find('userName eq "user42@example.com"')).toEqual(["user42@example.com"]);
    expect(await find('externalId eq "ext-42"')).toEqual(["user42@example.com"]);
    expect(await find('externalId eq "EXT-42"')).toEqual([]);
    expect(await find('id eq "43"')).toEqual(["user42@example.com"]);
    expect(await find('id eq "043"')).toEqual([]);
  });
});

describe.each(targets)("table store plans on $name, mapping B (UUID ids)", (target) => {
  const queries: CompiledQuery[] = [];
  let opened: Awaited<ReturnType<Target["open"]>> | undefined;
  let store: TableStore | undefined;
  let db: Kysely<object>;
  const ids: string[] = [];

  beforeAll(async () => {
    opened = await target.open((event) => {
      if (event.level === "query") queries.push(event.query);
    });
    db = opened.db;
    await createSchemaB(db, target.name);
    store = await tableStore({ kysely: db, dialect: target.dialect, ...mappingB });
    for (const tenant of ["org-a", "org-b"]) {
      const values = Array.from({ length: USERS_PER_ORG }, (_, index) => {
        const id = randomUUID();
        ids.push(id);
        return sql`(${id}, ${tenant}, ${`user${index}@example.com`}, ${`ext-${index}`})`;
      });
      await sql`insert into accounts (id, tenant, login, external_ref) values ${sql.join(values)}`.execute(db);
    }
    await sql`insert into scimkit_table_keys (org_id, resource_type, attribute, value, id)
      select tenant, 'User', 'userName', login, cast(id as text) from accounts`.execute(db);
    await sql.raw("analyze").execute(db);
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await opened?.close();
  });

  async function plan(filter: string): Promise<string[]> {
    const compiled = compileFilter(userSchema!, filter);
    if (!compiled.ok) throw new Error(compiled.error.detail);
    queries.length = 0;
    await store!.list({
      orgId: "org-a",
      resourceType: "User",
      filter: compiled.value,
      page: { kind: "index", startIndex: 1, count: 10 },
      members: false,
    });
    const query = queries.find((candidate) => candidate.sql.includes("order by"));
    if (!query) throw new Error("no page query");
    if (target.name === "sqlite") {
      const result = await db.executeQuery<{ readonly detail: string }>(
        CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
      );
      return result.rows.map((row) => row.detail);
    }
    const result = await db.executeQuery<{ readonly "QUERY PLAN": string }>(
      CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
    );
    return result.rows.map((row) => row["QUERY PLAN"].trim());
  }

  const expectPlan = (steps: readonly string[], index: RegExp): void => {
    const scans = steps.filter((step) =>
      target.name === "sqlite"
        ? /^SCAN (t|k|accounts|scimkit_table_keys)\b/.test(step)
        : /Seq Scan on (accounts|scimkit_table_keys)/.test(step),
    );
    expect(scans, steps.join("\n")).toEqual([]);
    expect(
      steps.some((step) => index.test(step)),
      steps.join("\n"),
    ).toBe(true);
  };

  it("userName eq, externalId eq and id eq read indexes", async () => {
    expectPlan(
      await plan('userName eq "USER42@example.com"'),
      target.name === "sqlite" ? /sqlite_autoindex_scimkit_table_keys_1/ : /scimkit_table_keys_pkey/,
    );
    expectPlan(await plan('externalId eq "ext-42"'), /accounts_tenant_external_ref/);
    expectPlan(await plan(`id eq "${ids[42]}"`), target.name === "sqlite" ? /sqlite_autoindex_accounts_1/ : /accounts_pkey/);
  });
});
