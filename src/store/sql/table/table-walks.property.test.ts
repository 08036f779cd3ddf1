/**
 * Property (issue 29): a `startIndex` page the table store reads from a remembered position is
 * exactly the page a plain OFFSET query over the application's table returns at that moment —
 * through creates and deletes made between the pages by this store and by a second one on the
 * same database, and through the application's own inserts, deletes and moves of rows between
 * organizations in plain SQL, which the store hears of only through the triggers
 * (`tableStoreTriggersSql`). Without the triggers, the same walks page by OFFSET. On a SQLite
 * file and on PostgreSQL.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import { Kysely, PostgresDialect, sql, SqliteDialect } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeStoreConformance } from "../../../testkit/index.js";
import { addGroup, addUser, groups, pathOf, users } from "../../memory/memory-store.fixture.js";
import type { ListRequest, SortSpec } from "../../resource-store.js";
import { postgresDialect } from "../dialects/postgres-dialect.js";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import { sqliteDialect } from "../dialects/sqlite-dialect.js";
import { registerSqliteFunctions } from "../filter/register-sqlite-functions.js";
import { openSqlite } from "../open-sqlite.js";
import { createTestSchema, describePostgres, type TestSchema } from "../postgres-test-database.fixture.js";
import { createSchemaA, MAPPING_A_SKIPS, mappingA } from "./table-mappings.fixture.js";
import { type TableStore, type TableStoreOptions, tableStore } from "./table-store.js";
import { type TableStoreTriggersOptions, tableStoreTriggersSql } from "./table-store-triggers-sql.js";

type Kind = "User" | "Group";

type Command =
  | { readonly kind: "create"; readonly type: Kind; readonly by: 0 | 1 }
  | { readonly kind: "appInsert"; readonly type: Kind; readonly by: 0 | 1 }
  | { readonly kind: "delete" | "appDelete" | "appMove" | "appTouch"; readonly type: Kind; readonly by: 0 | 1; readonly pick: number }
  | { readonly kind: "page"; readonly type: Kind; readonly startIndex: number; readonly count: number; readonly sort: number }
  | { readonly kind: "next"; readonly count: number }
  | { readonly kind: "recreate" };

const SORTS: readonly ((type: Kind) => SortSpec | undefined)[] = [
  () => undefined,
  (type) => ({ path: pathOf(type === "User" ? users : groups, "id"), order: "ascending" }),
  (type) => ({ path: pathOf(type === "User" ? users : groups, "id"), order: "descending" }),
];

const kind = fc.constantFrom<Kind>("User", "User", "Group");
const by = fc.constantFrom(0 as const, 1 as const);
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom("create" as const, "appInsert" as const), type: kind, by }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constantFrom("delete" as const, "appDelete" as const, "appMove" as const, "appTouch" as const),
      type: kind,
      by,
      pick: fc.nat(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("page" as const),
      type: kind,
      startIndex: fc.integer({ min: 1, max: 12 }),
      count: fc.integer({ min: 1, max: 5 }),
      sort: fc.nat(SORTS.length - 1),
    }),
  },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("next" as const), count: fc.integer({ min: 1, max: 5 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "recreate" as const }) },
);

/** One database with the application's schema A and two stores over it. */
interface Opened {
  readonly name: "sqlite" | "postgres";
  readonly dialect: SqlDialect;
  /** The application's own connection, which the first store shares; it records every statement. */
  readonly app: Kysely<object>;
  /** What ran on `app` since the last `statements.length = 0`. */
  readonly statements: string[];
  /** The store under test, over `app`. */
  readonly reader: TableStore;
  /** Another store on the same database, as another process would be. */
  readonly other: TableStore;
  close(): Promise<void>;
}

const TABLES: Readonly<Record<Kind, { readonly table: string; readonly name: string }>> = {
  User: { table: "users", name: "email" },
  Group: { table: "teams", name: "name" },
};

/** Installs the triggers, twice: the statements are for a migration that may run again. */
async function installTriggers<DB>(db: Kysely<DB>, options: TableStoreTriggersOptions, dialect: SqlDialect): Promise<void> {
  for (let round = 0; round < 2; round += 1) {
    for (const statement of tableStoreTriggersSql(options, dialect)) await sql.raw(statement).execute(db);
  }
}

function agreement(name: string, open: (triggers: boolean) => Promise<Opened>, runs: number): void {
  describe.each([true, false])(`${name}, triggers installed: %s`, (triggers) => {
    let opened: Opened;
    beforeAll(async () => {
      opened = await open(triggers);
    }, 60_000);
    afterAll(async () => {
      await opened?.close();
    });

    /** The id text in code-point order, as the store's list order compares ids. */
    const idText = () => (opened.name === "postgres" ? sql`cast(id as text) collate "C"` : sql`cast(id as text)`);

    /** The page by a plain OFFSET query over the application's table, and its total. */
    async function offsetPage(orgId: string, type: Kind, sort: SortSpec | undefined, startIndex: number, count: number) {
      const { table } = TABLES[type];
      const direction = sort?.order === "descending" ? sql`desc` : sql`asc`;
      const page = await sql<{ readonly id: string }>`select cast(id as text) as id from ${sql.table(table)} where org_id = ${orgId}
        order by ${idText()} ${direction} limit ${count} offset ${startIndex - 1}`.execute(opened.app);
      const total = await sql<{
        readonly total: unknown;
      }>`select count(*) as total from ${sql.table(table)} where org_id = ${orgId}`.execute(opened.app);
      return { ids: page.rows.map((row) => row.id), total: Number(total.rows[0]?.total) };
    }

    /** The ids of `orgId`'s rows of `type`, in id order. */
    async function idsOf(orgId: string, type: Kind): Promise<string[]> {
      const rows = await sql<{
        readonly id: string;
      }>`select cast(id as text) as id from ${sql.table(TABLES[type].table)} where org_id = ${orgId} order by ${idText()}`.execute(
        opened.app,
      );
      return rows.rows.map((row) => row.id);
    }

    /** Whether the statements of the last list followed a position: a generation read and no OFFSET. */
    const followed = () =>
      opened.statements.some((statement) => statement.includes("list_generation")) &&
      !opened.statements.some((statement) => /\boffset\b/i.test(statement));

    it("gives the OFFSET page at every step of walks interleaved with the store's writes and the application's own", async () => {
      let follows = 0;
      let run = 0;
      let serial = 0;
      await fc.assert(
        fc.asyncProperty(fc.nat(12), fc.array(command, { minLength: 5, maxLength: 40 }), async (seeded, commands) => {
          run += 1;
          const orgId = `walk-${run}`;
          const elsewhere = `elsewhere-${run}`;
          // Rows the application had before the walk, so that walks have pages to go through.
          for (let index = 0; index < seeded; index += 1) {
            for (const { table, name } of Object.values(TABLES)) {
              serial += 1;
              await sql`insert into ${sql.table(table)} (org_id, ${sql.id(name)}) values (${orgId}, ${`seed${serial}@example.com`})`.execute(
                opened.app,
              );
            }
          }
          const stores = [opened.reader, opened.other] as const;
          let walk: { type: Kind; startIndex: number; sort: SortSpec | undefined } = { type: "User", startIndex: 1, sort: undefined };
          for (const step of commands) {
            if (step.kind === "create") {
              serial += 1;
              if (step.type === "User") await addUser(stores[step.by], orgId, "unused", `walker${serial}@example.com`);
              else await addGroup(stores[step.by], orgId, "unused", `Team ${serial}`);
              continue;
            }
            if (step.kind === "appInsert") {
              // The application's own insert, into the walked organization or the other one (from where it may move in).
              serial += 1;
              const { table, name } = TABLES[step.type];
              await sql`insert into ${sql.table(table)} (org_id, ${sql.id(name)}) values (${step.by === 0 ? orgId : elsewhere}, ${`app${serial}@example.com`})`.execute(
                opened.app,
              );
              continue;
            }
            if (step.kind === "recreate") {
              await opened.other.deleteOrganization?.(orgId);
              continue;
            }
            if (step.kind === "page" || step.kind === "next") {
              if (step.kind === "page") walk = { type: step.type, startIndex: step.startIndex, sort: SORTS[step.sort]?.(step.type) };
              const request: ListRequest = {
                orgId,
                resourceType: walk.type,
                ...(walk.sort ? { sort: walk.sort } : {}),
                page: { kind: "index", startIndex: walk.startIndex, count: step.count },
                members: walk.type === "Group",
              };
              opened.statements.length = 0;
              const listed = await opened.reader.list(request);
              if (followed()) follows += 1;
              const expected = await offsetPage(orgId, walk.type, walk.sort, walk.startIndex, step.count);
              expect(listed.resources.map((resource) => resource.id)).toEqual(expected.ids);
              expect(listed.totalResults).toBe(expected.total);
              walk = { ...walk, startIndex: walk.startIndex + listed.resources.length };
              continue;
            }
            // A row picked among the walked organization's (for a move: either organization's).
            const from = step.kind === "appMove" && step.by === 1 ? elsewhere : orgId;
            const ids = await idsOf(from, step.type);
            const id = ids[step.pick % Math.max(1, ids.length)];
            if (id === undefined) continue;
            const { table, name } = TABLES[step.type];
            if (step.kind === "delete") await stores[step.by].delete({ orgId, resourceType: step.type, id });
            if (step.kind === "appDelete") await sql`delete from ${sql.table(table)} where id = ${Number(id)}`.execute(opened.app);
            if (step.kind === "appMove") {
              await sql`update ${sql.table(table)} set org_id = ${from === orgId ? elsewhere : orgId} where id = ${Number(id)}`.execute(
                opened.app,
              );
            }
            if (step.kind === "appTouch") {
              // Names the organization column without changing it, beside a column no list order reads.
              await sql`update ${sql.table(table)} set org_id = org_id, ${sql.id(name)} = ${sql.id(name)} where id = ${Number(id)}`.execute(
                opened.app,
              );
            }
          }
        }),
        { numRuns: runs },
      );
      if (triggers) expect(follows).toBeGreaterThan(0);
      else expect(follows).toBe(0);
    }, 120_000);

    // Each variant's own checks, declared only where they apply (no test skipped without a reason).
    if (triggers) {
      it("follows the position page 1 ended at, and not once the application's own delete or move shifts the rows", async () => {
        const orgId = "planted";
        for (let index = 0; index < 6; index += 1) await addUser(opened.reader, orgId, "unused", `planted${index}@example.com`);
        const page = (startIndex: number): ListRequest => ({
          orgId,
          resourceType: "User",
          page: { kind: "index", startIndex, count: 2 },
          members: false,
        });
        const ids = async (startIndex: number) => {
          opened.statements.length = 0;
          return (await opened.reader.list(page(startIndex))).resources.map((resource) => resource.id);
        };
        const all = await idsOf(orgId, "User");
        expect(await ids(1)).toEqual(all.slice(0, 2));
        expect(await ids(3)).toEqual(all.slice(2, 4));
        // Page 2 of the walk is a keyset range after page 1's last row: no OFFSET in any statement.
        expect(followed()).toBe(true);
        expect(opened.statements.join("\n")).not.toMatch(/\boffset\b/i);
        // The application deletes the first row in plain SQL: the rows after page 2 move up by one, and
        // the remembered position (after page 2's last row) would skip one. The trigger moved the
        // generation, so the store reads by OFFSET.
        await sql`delete from users where id = ${Number(all[0])}`.execute(opened.app);
        expect(await ids(5)).toEqual(all.slice(5, 7));
        expect(followed()).toBe(false);
        // A walk from the start, at the new generation, follows its positions again.
        const now = all.slice(1);
        expect(await ids(1)).toEqual(now.slice(0, 2));
        expect(await ids(3)).toEqual(now.slice(2, 4));
        expect(followed()).toBe(true);
        // The application moves the first row to another organization: the same shift, by an update.
        await sql`update users set org_id = ${"planted-elsewhere"} where id = ${Number(now[0])}`.execute(opened.app);
        expect(await ids(5)).toEqual(now.slice(5, 7));
        expect(followed()).toBe(false);
      });
    } else {
      it("pages by OFFSET and reads no generation", async () => {
        const orgId = "untriggered";
        for (let index = 0; index < 4; index += 1) await addUser(opened.reader, orgId, "unused", `plain${index}@example.com`);
        const all = await idsOf(orgId, "User");
        for (const startIndex of [1, 3]) {
          opened.statements.length = 0;
          const listed = await opened.reader.list({
            orgId,
            resourceType: "User",
            page: { kind: "index", startIndex, count: 2 },
            members: false,
          });
          expect(listed.resources.map((resource) => resource.id)).toEqual(all.slice(startIndex - 1, startIndex + 1));
          expect(opened.statements.join("\n")).toMatch(/\boffset\b/i);
          expect(opened.statements.join("\n")).not.toContain("list_generation");
        }
      });
    }

    if (triggers) {
      it("keeps the generation of a single-organization table ({ fixed }) by its triggers", async () => {
        const { app, dialect } = opened;
        const id = sql.raw(
          opened.name === "sqlite" ? "integer primary key autoincrement" : "integer generated by default as identity primary key",
        );
        await sql`create table solo_users (id ${id}, email text not null)`.execute(app);
        const solo: Pick<TableStoreOptions, "organization" | "users"> = {
          organization: { fixed: "solo" },
          users: { table: "solo_users", id: { column: "id", kind: "integer" }, columns: { userName: "email" } },
        };
        await installTriggers(app, solo, dialect);
        const store = await tableStore({ kysely: app, dialect, ...solo });
        try {
          for (let index = 0; index < 7; index += 1)
            await sql`insert into solo_users (email) values (${`solo${index}@example.com`})`.execute(app);
          const all = async () =>
            (await sql<{ readonly id: string }>`select cast(id as text) as id from solo_users order by ${idText()}`.execute(app)).rows.map(
              (row) => row.id,
            );
          const ids = async (startIndex: number) => {
            opened.statements.length = 0;
            const listed = await store.list({
              orgId: "solo",
              resourceType: "User",
              page: { kind: "index", startIndex, count: 2 },
              members: false,
            });
            return listed.resources.map((resource) => resource.id);
          };
          const before = await all();
          expect(await ids(1)).toEqual(before.slice(0, 2));
          expect(await ids(3)).toEqual(before.slice(2, 4));
          expect(followed()).toBe(true);
          // The application gives the last row the smallest id: every row after it moves down one place,
          // and the position after page 2 would skip one.
          await sql`update solo_users set id = 0 where id = ${Number(before[before.length - 1])}`.execute(app);
          const after = await all();
          expect(after.slice(4, 6)).not.toEqual(before.slice(4, 6));
          expect(await ids(5)).toEqual(after.slice(4, 6));
          expect(followed()).toBe(false);
          // An update naming the id without changing it moves nothing: the walk still follows.
          expect(await ids(1)).toEqual(after.slice(0, 2));
          await sql`update solo_users set id = id, email = email`.execute(app);
          expect(await ids(3)).toEqual(after.slice(2, 4));
          expect(followed()).toBe(true);
        } finally {
          await store.close();
        }
      });
    }
  });
}

/** The application's database: schema A, and the triggers when asked for. */
async function prepare(app: Kysely<object>, name: "sqlite" | "postgres", dialect: SqlDialect, triggers: boolean): Promise<void> {
  await createSchemaA(app, name);
  if (triggers) await installTriggers(app, mappingA, dialect);
}

describe("table store startIndex walks on a SQLite file", () => {
  const directories: string[] = [];
  afterAll(() => {
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  });
  agreement(
    "SQLite",
    async (triggers) => {
      const directory = mkdtempSync(join(tmpdir(), "scimkit-table-walks-"));
      directories.push(directory);
      const file = join(directory, "app.db");
      const database = new Database(file);
      registerSqliteFunctions(database);
      database.pragma("journal_mode = WAL");
      const statements: string[] = [];
      const app = new Kysely<object>({ dialect: new SqliteDialect({ database }), log: (event) => void statements.push(event.query.sql) });
      await prepare(app, "sqlite", sqliteDialect, triggers);
      const reader = await tableStore({ kysely: app, dialect: sqliteDialect, ...mappingA });
      const other = await tableStore({ sqlite: file, ...mappingA });
      return {
        name: "sqlite",
        dialect: sqliteDialect,
        app,
        statements,
        reader,
        other,
        close: async () => {
          await other.close();
          await app.destroy();
        },
      };
    },
    60,
  );
});

describePostgres("table store startIndex walks on PostgreSQL", (url) => {
  agreement(
    "PostgreSQL",
    async (triggers) => {
      const schema: TestSchema = await createTestSchema(url);
      const statements: string[] = [];
      const app = new Kysely<object>({
        dialect: new PostgresDialect({ pool: schema.pool() }),
        log: (event) => void statements.push(event.query.sql),
      });
      await prepare(app, "postgres", postgresDialect, triggers);
      const reader = await tableStore({ kysely: app, dialect: postgresDialect, ...mappingA });
      const other = await tableStore({
        kysely: new Kysely<object>({ dialect: new PostgresDialect({ pool: schema.pool() }) }),
        dialect: postgresDialect,
        ...mappingA,
      });
      return { name: "postgres", dialect: postgresDialect, app, statements, reader, other, close: () => schema.drop() };
    },
    25,
  );
});

// Every write path of the store (deletes of members, of an organization, …) with the triggers firing in it.
describeStoreConformance({
  name: "table store (SQLite, mapping A, with the list-generation triggers)",
  createStore: async () => {
    const db = await openSqlite(":memory:");
    await createSchemaA(db, "sqlite");
    await installTriggers(db, mappingA, sqliteDialect);
    const store = await tableStore({ kysely: db, dialect: sqliteDialect, ...mappingA });
    return { ...store, close: () => db.destroy() };
  },
  skip: MAPPING_A_SKIPS,
});
