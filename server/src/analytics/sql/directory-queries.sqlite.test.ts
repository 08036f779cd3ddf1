import Database from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { describe } from "vitest";
import { type SqlStoreDatabase, registerSqliteFunctions, sqlStore, sqliteDialect } from "scimkit/sql";
import { directoryQueriesBehaviour, explainOf } from "./directory-queries-behaviour.fixture.js";

describe("directory reads on SQLite", () => {
  directoryQueriesBehaviour({
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
    async analyze(db) {
      await sql`analyze`.execute(db);
    },
    plans: {
      memberRange:
        /SEARCH m USING (PRIMARY KEY|(COVERING )?INDEX sqlite_autoindex_scimkit_members_1) \(org_id=\? AND group_id=\? AND member_id>\?\)/,
      memberCount: /SEARCH m USING COVERING INDEX \S+ \(org_id=\? AND group_id=\?\)/,
      // GLOB 'u0999*' on the BINARY key column becomes a range (SQLite's LIKE/GLOB optimization).
      userNameRange:
        /SEARCH k USING (COVERING )?INDEX sqlite_autoindex_scimkit_unique_keys_1 \(org_id=\? AND resource_type=\? AND attribute=\? AND value>\? AND value<\?\)/,
      groupsOfMember: /SEARCH m USING (COVERING )?INDEX scimkit_members_member \(org_id=\? AND member_id=\?\)/,
      sort: /TEMP B-TREE/,
    },
  });
});
