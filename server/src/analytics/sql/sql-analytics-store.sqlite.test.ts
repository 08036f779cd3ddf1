import Database from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { describe, expect, it } from "vitest";
import { sqlAnalyticsStore } from "../index.js";
import { type SqlStoreDatabase, registerSqliteFunctions, sqlStore, sqliteDialect } from "scimkit/sql";
import { explainOf, runStatements, sqlAnalyticsStoreBehaviour } from "./sql-analytics-store-behaviour.fixture.js";

describe("sql analytics store on SQLite", () => {
  sqlAnalyticsStoreBehaviour({
    async open(queries) {
      const database = new Database(":memory:");
      registerSqliteFunctions(database);
      const db = new Kysely<SqlStoreDatabase>({
        dialect: new SqliteDialect({ database }),
        log: (event) => {
          if (event.level === "query") queries.push(event.query);
        },
      });
      const store = await sqlStore({ kysely: db, dialect: sqliteDialect });
      return {
        store,
        queries,
        async close() {
          await store.close();
          await db.destroy();
        },
      };
    },
    async explain(db, query) {
      const plan = await db.executeQuery<{ detail: string }>(explainOf("explain query plan", query));
      return plan.rows.map((row) => row.detail).join("\n");
    },
    refuseOrganizationDeletes: (db) =>
      runStatements(db, [
        "create trigger scimkit_test_refuse before delete on scimkit_organizations begin select raise(abort, 'refused by the test'); end",
      ]),
    allowOrganizationDeletes: (db) => runStatements(db, ["drop trigger scimkit_test_refuse"]),
    async analyze(db) {
      await sql`analyze`.execute(db);
    },
  });
});

describe("sql analytics store on SQLite, deleting an organization", () => {
  it("removes its e-mails from the store's search rows too (spec §4.6; the search is the store's, migration 8)", async () => {
    const store = await sqlStore({ sqlite: ":memory:" });
    try {
      const analytics = await sqlAnalyticsStore(store);
      const now = "2024-01-01T00:00:00.000Z";
      for (const orgId of ["acme", "beta"]) {
        await analytics.createOrganization({ id: orgId, name: orgId, status: "active", createdAt: now, updatedAt: now });
        for (const name of ["ann", "bob"]) {
          await store.create({
            orgId,
            resourceType: "User",
            id: name,
            now,
            attributes: { userName: name, emails: [{ value: `${name}@${orgId}.io`, type: "work" }] },
            uniqueKeys: [{ attribute: "userName", value: name }],
            unknownMembers: "ignore",
          });
        }
      }
      expect(await analytics.deleteOrganization({ all: true }, "beta")).toBe(true);
      // Not only unreachable through the keys: the text itself is gone from the FTS table.
      const left = await sql<{ n: number }>`select count(*) as n from scimkit_emails_search where emails like '%beta%'`.execute(store.db);
      expect(Number(left.rows[0]?.n)).toBe(0);
      const kept = await sql<{ n: number }>`select count(*) as n from scimkit_emails_search where emails like '%acme%'`.execute(store.db);
      expect(Number(kept.rows[0]?.n)).toBe(2);
    } finally {
      await store.close();
    }
  });
});
