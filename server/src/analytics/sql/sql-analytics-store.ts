/**
 * `sqlAnalyticsStore`: the `AnalyticsStore` on the SQL store's database (spec §4.6), beside the
 * SCIM tables it reads learners from and clears when an organization is deleted. SQLite and
 * PostgreSQL through the store's Kysely instance and `SqlDialect`: every query is shared Kysely
 * code with bound parameters, every list is keyset-paged along an index, and every summary is one
 * aggregate query. Its tables are its own: created by its migrations, in the `"analytics"`
 * namespace of the store's migration runner.
 */
import { runMigrations, type SqlStore } from "scimkit/sql";
import type { AnalyticsStore, CampaignStore, OrganizationStore } from "../analytics-store.js";
import { adminUserQueries } from "./admin-user-queries.js";
import type { AnalyticsTables } from "./analytics-tables.js";
import { campaignQueries } from "./campaign-queries.js";
import { feedbackQueries } from "./feedback-queries.js";
import { learnerQueries } from "./learner-queries.js";
import { ANALYTICS_MIGRATIONS, analyticsMigrations } from "./migrations/analytics-migrations.js";
import { operationQueries } from "./operation-queries.js";
import { organizationQueries } from "./organization-queries.js";
import { organizationTotalsQueries } from "./organization-totals-queries.js";
import { regionDirectoryQueries } from "./region-directory-queries.js";
import { setupLinkQueries } from "./setup-link-queries.js";
import { simulationQueries } from "./simulation-queries.js";
import { treeSummaryQueries } from "./tree-summary-queries.js";
import { directoryQueries } from "./directory-queries.js";
import { timelineQueries } from "./timeline-queries.js";

/** Options of `sqlAnalyticsStore`. */
export interface SqlAnalyticsStoreOptions {
  /**
   * Whether to bring the analytics tables up to date before returning, as `migrate()` does.
   * Default true; set false when migrations run in a deploy step of their own.
   */
  readonly migrate?: boolean;
}

/** The SQL analytics store: an `AnalyticsStore` and the migration of its tables. */
export interface SqlAnalyticsStore extends AnalyticsStore {
  /**
   * Applies the analytics migrations the database lacks and resolves with their versions (`[]`
   * when it was up to date). Safe to call again, and from several processes at once: it runs in
   * the store's migration transaction.
   */
  migrate(): Promise<readonly number[]>;
}

/**
 * The analytics store over the database of `store` (an `sqlStore`), with the analytics tables
 * brought up to date unless `migrate: false`. It shares the store's connections and
 * transactions, so an organization delete removes SCIM users, groups, tokens and analytics data
 * in one commit; closing `store` closes it.
 *
 * @example
 * const store = await sqlStore({ postgres: process.env.DATABASE_URL });
 * app.use("/analytics/v1", createAnalyticsRouter({ store: await sqlAnalyticsStore(store), scimTokens: store.tokens, … }));
 */
export async function sqlAnalyticsStore(
  store: Pick<SqlStore, "db" | "dialect">,
  options: SqlAnalyticsStoreOptions = {},
): Promise<SqlAnalyticsStore> {
  const { dialect } = store;
  const migrate = (): Promise<readonly number[]> =>
    runMigrations(store.db, dialect, analyticsMigrations, { namespace: ANALYTICS_MIGRATIONS });
  if (options.migrate !== false) await migrate();
  const db = store.db.withTables<AnalyticsTables>();
  // One part per area of the contract, `AnalyticsStore` being their composition; two areas'
  // queries live in several files each.
  const organizations: OrganizationStore = {
    ...organizationQueries(db, dialect),
    ...treeSummaryQueries(db, dialect),
    ...organizationTotalsQueries(db, dialect),
  };
  const campaigns: CampaignStore = { ...campaignQueries(db, dialect), ...timelineQueries(db) };
  return {
    ...organizations,
    ...adminUserQueries(db, dialect),
    ...learnerQueries(db, dialect),
    ...directoryQueries(db, dialect),
    ...campaigns,
    ...simulationQueries(db, dialect),
    ...feedbackQueries(db),
    ...operationQueries(db, dialect),
    ...regionDirectoryQueries(db, dialect),
    ...setupLinkQueries(db),
    migrate,
  };
}
