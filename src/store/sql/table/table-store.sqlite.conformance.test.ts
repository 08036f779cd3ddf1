import { describeStoreConformance } from "../../../testkit/index.js";
import { sqliteDialect } from "../dialects/sqlite-dialect.js";
import { openSqlite } from "../open-sqlite.js";
import {
  createSchemaA,
  createSchemaB,
  mappingA,
  mappingAOwnMeta,
  mappingB,
  MAPPING_A_SKIPS,
  MAPPING_B_SKIPS,
} from "./table-mappings.fixture.js";
import { tableStore } from "./table-store.js";

describeStoreConformance({
  name: "table store (SQLite, mapping A)",
  createStore: async () => {
    const db = await openSqlite(":memory:");
    await createSchemaA(db, "sqlite");
    const store = await tableStore({ kysely: db, dialect: sqliteDialect, ...mappingA });
    return { ...store, close: () => db.destroy() };
  },
  skip: MAPPING_A_SKIPS,
});

describeStoreConformance({
  name: "table store (SQLite, mapping B)",
  createStore: async () => {
    const db = await openSqlite(":memory:");
    await createSchemaB(db, "sqlite");
    const store = await tableStore({ kysely: db, dialect: sqliteDialect, ...mappingB });
    return { ...store, close: () => db.destroy() };
  },
  skip: MAPPING_B_SKIPS,
});

describeStoreConformance({
  name: "table store (SQLite, mapping A′: the application's version and time columns)",
  createStore: async () => {
    const db = await openSqlite(":memory:");
    await createSchemaA(db, "sqlite", { ownMeta: true });
    const store = await tableStore({ kysely: db, dialect: sqliteDialect, ...mappingAOwnMeta });
    return { ...store, close: () => db.destroy() };
  },
  skip: MAPPING_A_SKIPS,
});
