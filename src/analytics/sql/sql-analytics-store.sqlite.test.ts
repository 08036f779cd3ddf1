import Database from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { describe } from "vitest";
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
      runStatements(db, ["create trigger scimkit_test_refuse before delete on scimkit_organizations begin select raise(abort, 'refused by the test'); end"]),
    allowOrganizationDeletes: (db) => runStatements(db, ["drop trigger scimkit_test_refuse"]),
    async analyze(db) {
      await sql`analyze`.execute(db);
    },
  });
});
