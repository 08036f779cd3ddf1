import { afterAll, beforeAll } from "vitest";
import { describeStoreConformance } from "../../testkit/index.js";
import { createTestSchema, describePostgres, type TestSchema } from "./postgres-test-database.fixture.js";
import { sqlStore, type SqlStore } from "./sql-store.js";

describePostgres("sql store on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  let store: SqlStore | undefined;

  // One schema and one store for the file: every test works in random organizations of its own.
  beforeAll(async () => {
    schema = await createTestSchema(url);
    store = await sqlStore({ postgres: schema.pool() });
  });

  afterAll(async () => {
    await store?.close();
    await schema?.drop();
  });

  describeStoreConformance({
    name: "sql (PostgreSQL)",
    createStore: () => {
      if (!store) throw new Error("the PostgreSQL store did not open (see beforeAll)");
      return store;
    },
    destroyStore: () => {},
  });
});
