/**
 * `sqlAnalyticsStore`: the `AnalyticsStore` on the SQL store's database (spec §4.6), beside the
 * SCIM tables it reads learners from and clears when an organization is deleted. SQLite and
 * PostgreSQL through the store's Kysely instance and `SqlDialect`: every query is shared Kysely
 * code with bound parameters, every list is keyset-paged along an index, and every summary is one
 * aggregate query.
 */
import type { SqlStore } from "../../store/sql/sql-store.js";
import type { AnalyticsStore } from "../analytics-store.js";
import { adminUserQueries } from "./admin-user-queries.js";
import { campaignQueries } from "./campaign-queries.js";
import { feedbackQueries } from "./feedback-queries.js";
import { learnerQueries } from "./learner-queries.js";
import { operationQueries } from "./operation-queries.js";
import { organizationQueries } from "./organization-queries.js";
import { simulationQueries } from "./simulation-queries.js";

/**
 * The analytics store over the tables of `store` (an `sqlStore`, whose migrations create the
 * analytics tables too). It shares the store's connections and transactions, so an organization
 * delete removes SCIM users, groups, tokens and analytics data in one commit; closing `store`
 * closes it.
 *
 * @example
 * const store = await sqlStore({ postgres: process.env.DATABASE_URL });
 * app.use("/analytics/v1", createAnalyticsRouter({ store: sqlAnalyticsStore(store), scimTokens: store.tokens, … }));
 */
export function sqlAnalyticsStore(store: Pick<SqlStore, "db" | "dialect">): AnalyticsStore {
  const { db, dialect } = store;
  return {
    ...organizationQueries(db, dialect),
    ...adminUserQueries(db, dialect),
    ...learnerQueries(db, dialect),
    ...campaignQueries(db, dialect),
    ...simulationQueries(db, dialect),
    ...feedbackQueries(db),
    ...operationQueries(db, dialect),
  };
}
