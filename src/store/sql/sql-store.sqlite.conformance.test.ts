import { describeStoreConformance } from "../../testkit/index.js";
import { sqlStore } from "./sql-store.js";

// A private in-memory database per test: migrating one takes about a millisecond.
describeStoreConformance({ name: "sql (SQLite)", createStore: () => sqlStore({ sqlite: ":memory:" }) });
