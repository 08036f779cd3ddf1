import { sqlStore } from "scimkit/sql";
import { describeAnalyticsStoreConformance } from "@scimkit/server/testkit";
import { sqlAnalyticsStore } from "./sql-analytics-store.js";

// A private in-memory database per check: the kit wants an empty store, and migrating takes a few milliseconds.
describeAnalyticsStoreConformance("sql (SQLite)", async () => {
  const store = await sqlStore({ sqlite: ":memory:" });
  return { analytics: await sqlAnalyticsStore(store), resources: store, tokens: store.tokens, close: () => store.close() };
});
