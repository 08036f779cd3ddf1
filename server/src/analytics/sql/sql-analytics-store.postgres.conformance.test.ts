import { afterAll, beforeAll } from "vitest";
import { createTestSchema, describePostgres, type TestSchema } from "../../../../src/store/sql/postgres-test-database.fixture.js";
import { type SqlStore, sqlStore } from "scimkit/sql";
import { describeAnalyticsStoreConformance } from "@scimkit/server/testkit";
import { emptyScimkitTables } from "./empty-scimkit-tables.fixture.js";
import { sqlAnalyticsStore } from "./sql-analytics-store.js";

describePostgres("sql analytics store on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  let store: SqlStore | undefined;

  // One schema and one store for the file; the kit wants an empty store per check, so each check
  // ends by emptying every table (far cheaper than a schema and a migration per check).
  beforeAll(async () => {
    schema = await createTestSchema(url);
    store = await sqlStore({ postgres: schema.pool() });
  });

  afterAll(async () => {
    await store?.close();
    await schema?.drop();
  });

  describeAnalyticsStoreConformance("sql (PostgreSQL)", async () => {
    const opened = store;
    if (!opened) throw new Error("the PostgreSQL store did not open (see beforeAll)");
    return {
      analytics: await sqlAnalyticsStore(opened),
      resources: opened,
      tokens: opened.tokens,
      close: () => emptyScimkitTables(opened.db),
    };
  });
});
