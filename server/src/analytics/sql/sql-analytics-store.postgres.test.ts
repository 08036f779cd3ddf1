import { Kysely, PostgresDialect, sql } from "kysely";
import { afterAll, beforeAll } from "vitest";
import { type SqlStoreDatabase, postgresDialect, sqlStore } from "scimkit/sql";
import { createTestSchema, describePostgres, type TestSchema } from "../../../../src/store/sql/postgres-test-database.fixture.js";
import { explainOf, runStatements, sqlAnalyticsStoreBehaviour } from "./sql-analytics-store-behaviour.fixture.js";

describePostgres("sql analytics store on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;

  // One schema for the file; every check works in organizations, campaigns and keys of its own.
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });

  afterAll(async () => {
    await schema?.drop();
  });

  sqlAnalyticsStoreBehaviour({
    async open(queries) {
      if (!schema) throw new Error("the test schema was not created (see beforeAll)");
      const db = new Kysely<SqlStoreDatabase>({
        dialect: new PostgresDialect({ pool: schema.pool() }),
        log: (event) => {
          if (event.level === "query") queries.push(event.query);
        },
      });
      const store = await sqlStore({ kysely: db, dialect: postgresDialect });
      return {
        store,
        queries,
        async close() {
          await store.close();
          // Leaves the pool to `schema.drop()`, which ends every pool it made.
        },
      };
    },
    async explain(db, query) {
      const plan = await db.executeQuery<{ "QUERY PLAN": string }>(explainOf("explain", query));
      return plan.rows.map((row) => row["QUERY PLAN"]).join("\n");
    },
    refuseOrganizationDeletes: (db) =>
      runStatements(db, [
        "create function scimkit_test_refuse() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$",
        "create trigger scimkit_test_refuse before delete on scimkit_organizations for each row execute function scimkit_test_refuse()",
      ]),
    allowOrganizationDeletes: (db) =>
      runStatements(db, ["drop trigger scimkit_test_refuse on scimkit_organizations", "drop function scimkit_test_refuse()"]),
    async analyze(db) {
      await sql`analyze`.execute(db);
    },
  });
});
