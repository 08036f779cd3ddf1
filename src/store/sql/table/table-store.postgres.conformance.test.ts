import { Kysely, PostgresDialect } from "kysely";
import { afterAll, beforeAll } from "vitest";
import { describeStoreConformance } from "../../../testkit/index.js";
import { postgresDialect } from "../dialects/postgres-dialect.js";
import { createTestSchema, describePostgres, type TestSchema } from "../postgres-test-database.fixture.js";
import {
  createSchemaA,
  createSchemaB,
  mappingA,
  mappingAOwnMeta,
  mappingB,
  MAPPING_A_SKIPS,
  MAPPING_B_SKIPS,
} from "./table-mappings.fixture.js";
import { tableStore, type TableStore } from "./table-store.js";

describePostgres("table store on PostgreSQL, mapping A", (url) => {
  let schema: TestSchema | undefined;
  let db: Kysely<object> | undefined;
  let store: TableStore | undefined;

  // The application's schema, made once by "its own migration"; every test works in organizations of its own.
  beforeAll(async () => {
    schema = await createTestSchema(url);
    db = new Kysely<object>({ dialect: new PostgresDialect({ pool: schema.pool() }) });
    await createSchemaA(db, "postgres");
    store = await tableStore({ kysely: db, dialect: postgresDialect, ...mappingA });
  });

  afterAll(async () => {
    await store?.close();
    await schema?.drop();
  });

  describeStoreConformance({
    name: "table store (PostgreSQL, mapping A)",
    createStore: () => {
      if (!store) throw new Error("the PostgreSQL table store did not open (see beforeAll)");
      return store;
    },
    destroyStore: () => {},
    skip: MAPPING_A_SKIPS,
  });
});

describePostgres("table store on PostgreSQL, mapping B", (url) => {
  let schema: TestSchema | undefined;
  let store: TableStore | undefined;

  beforeAll(async () => {
    schema = await createTestSchema(url);
    const db = new Kysely<object>({ dialect: new PostgresDialect({ pool: schema.pool() }) });
    await createSchemaB(db, "postgres");
    store = await tableStore({ kysely: db, dialect: postgresDialect, ...mappingB });
  });

  afterAll(async () => {
    await store?.close();
    await schema?.drop();
  });

  describeStoreConformance({
    name: "table store (PostgreSQL, mapping B)",
    createStore: () => {
      if (!store) throw new Error("the PostgreSQL table store did not open (see beforeAll)");
      return store;
    },
    destroyStore: () => {},
    skip: MAPPING_B_SKIPS,
  });
});

describePostgres("table store on PostgreSQL, mapping A′ (the application's version and time columns)", (url) => {
  let schema: TestSchema | undefined;
  let store: TableStore | undefined;

  beforeAll(async () => {
    schema = await createTestSchema(url);
    const db = new Kysely<object>({ dialect: new PostgresDialect({ pool: schema.pool() }) });
    await createSchemaA(db, "postgres", { ownMeta: true });
    store = await tableStore({ kysely: db, dialect: postgresDialect, ...mappingAOwnMeta });
  });

  afterAll(async () => {
    await store?.close();
    await schema?.drop();
  });

  describeStoreConformance({
    name: "table store (PostgreSQL, mapping A′)",
    createStore: () => {
      if (!store) throw new Error("the PostgreSQL table store did not open (see beforeAll)");
      return store;
    },
    destroyStore: () => {},
    skip: MAPPING_A_SKIPS,
  });
});
