import { afterAll, beforeAll } from "vitest";
import { createTestSchema, describePostgres, type TestSchema } from "../postgres-test-database.fixture.js";
import { sqlStore, type SqlStore } from "../sql-store.js";
import { sqlRequestLogBehaviour } from "./sql-request-log-behaviour.fixture.js";

describePostgres("sqlRequestLog on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  let store: SqlStore | undefined;

  beforeAll(async () => {
    schema = await createTestSchema(url);
    store = await sqlStore({ postgres: schema.pool() });
  });

  afterAll(async () => {
    await store?.close();
    await schema?.drop();
  });

  sqlRequestLogBehaviour(() => {
    if (!store) throw new Error("the PostgreSQL store did not open (see beforeAll)");
    return store;
  });
});
