import { Kysely, PostgresDialect, sql } from "kysely";
import { afterAll, beforeAll } from "vitest";
import { type SqlStoreDatabase, postgresDialect, sqlStore } from "scimkit/sql";
import { createTestSchema, describePostgres, type TestSchema } from "../../../../src/store/sql/postgres-test-database.fixture.js";
import { directoryQueriesBehaviour, explainOf } from "./directory-queries-behaviour.fixture.js";

describePostgres("directory reads on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;

  beforeAll(async () => {
    schema = await createTestSchema(url);
  });

  afterAll(async () => {
    await schema?.drop();
  });

  directoryQueriesBehaviour({
    async open(queries) {
      if (!schema) throw new Error("the test schema was not created (see beforeAll)");
      const db = new Kysely<SqlStoreDatabase>({
        dialect: new PostgresDialect({ pool: schema.pool() }),
        log: (event) => {
          if (event.level === "query") queries.push(event.query);
        },
      });
      const store = await sqlStore({ kysely: db, dialect: postgresDialect });
      // Leaves the pool to `schema.drop()`, which ends every pool it made.
      return { store, close: () => store.close() };
    },
    async explain(db, query) {
      const plan = await db.executeQuery<{ "QUERY PLAN": string }>(explainOf("explain", query));
      return plan.rows.map((row) => row["QUERY PLAN"]).join("\n");
    },
    async analyze(db) {
      await sql`analyze`.execute(db);
    },
    plans: {
      memberRange:
        /Index (Only )?Scan using scimkit_members_pk on scimkit_members m[\s\S]*Index Cond: \(\(org_id = .*\) AND \(group_id = .*\) AND \(member_id > /,
      // An index of the membership rows by group (a bitmap scan until a vacuum sets the visibility map).
      memberCount:
        /Index (Only )?Scan (using|on) scimkit_members_\w+[\s\S]*Index Cond: \(\(org_id = r\.org_id\) AND \(group_id = r\.id\)\)/,
      // LIKE 'u0999%' on the C-collated key column becomes an index range (>= and <).
      userNameRange: /Index (Only )?Scan using scimkit_unique_keys_pk on scimkit_unique_keys k[\s\S]*value >= /,
      groupsOfMember: /scimkit_members_member/,
      sort: /\bSort\b/,
    },
  });
});
