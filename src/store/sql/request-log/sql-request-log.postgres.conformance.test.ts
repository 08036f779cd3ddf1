import { afterAll, beforeAll } from "vitest";
import { describeRequestLogConformance } from "../../../testkit/request-log/describe-request-log-conformance.js";
import { createTestSchema, describePostgres, type TestSchema } from "../postgres-test-database.fixture.js";
import { sqlStore, type SqlStore } from "../sql-store.js";
import { sqlRequestLogUnderTest } from "./sql-request-log-under-test.fixture.js";

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

  describeRequestLogConformance("sqlRequestLog (PostgreSQL)", (settings) => sqlRequestLogUnderTest(store, settings));
});
