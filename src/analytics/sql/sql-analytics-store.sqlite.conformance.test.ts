import { sqlStore } from "../../store/sql/sql-store.js";
import { describeAnalyticsStoreConformance } from "../testkit/describe-analytics-store-conformance.js";
import { sqlAnalyticsStore } from "./sql-analytics-store.js";

// A private in-memory database per check: the kit wants an empty store, and migrating takes a few milliseconds.
describeAnalyticsStoreConformance("sql (SQLite)", async () => {
  const store = await sqlStore({ sqlite: ":memory:" });
  return { analytics: await sqlAnalyticsStore(store), resources: store, tokens: store.tokens, close: () => store.close() };
});
