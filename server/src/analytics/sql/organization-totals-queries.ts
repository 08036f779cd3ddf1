/**
 * `organizationTotals` in SQL (issue 30, point 5): one statement of scalar subqueries over the
 * organizations held (a CTE, so the ids left out are bound once), each a count along the
 * `(org_id, resource_type, id)` index of `scimkit_resources` — one row returned, never the users —
 * so the organizations, users and groups it answers are of one snapshot. SQLite and PostgreSQL alike.
 */
import { sql, type Kysely } from "kysely";
import type { SqlDialect } from "scimkit/sql";
import type { AnalyticsStore } from "../analytics-store.js";
import { MAX_TOTALS_EXCEPTIONS } from "../organization-store.js";
import type { AnalyticsDatabase } from "./analytics-tables.js";
import { learnerConditions, LEARNER_TYPE } from "./learner-queries.js";

type Counted = Record<string, number | string | bigint | null>;

/** The totals member of `AnalyticsStore` over `db`. */
export function organizationTotalsQueries(db: Kysely<AnalyticsDatabase>, dialect: SqlDialect): Pick<AnalyticsStore, "organizationTotals"> {
  return {
    async organizationTotals(options = {}) {
      const except = options.except ?? [];
      if (except.length > MAX_TOTALS_EXCEPTIONS) {
        throw new Error(`organizationTotals: more than ${MAX_TOTALS_EXCEPTIONS} organizations left out`);
      }
      // Named once, so the ids left out are bound once whatever reads them.
      const left = except.length === 0 ? sql`` : sql`where id not in (${sql.join(except)})`;
      const active = sql.join(learnerConditions(dialect, { active: true }), sql` and `);
      const { rows } = await sql<Counted>`with held(id) as (select id from scimkit_organizations ${left}) select
        (select count(*) from held) as organizations,
        (select count(*) from scimkit_resources r where r.resource_type = ${LEARNER_TYPE} and r.org_id in (select id from held)) as users,
        (select count(*) from scimkit_resources r where r.resource_type = ${LEARNER_TYPE} and r.org_id in (select id from held) and ${active}) as active_users,
        (select count(*) from scimkit_resources r where r.resource_type = ${"Group"} and r.org_id in (select id from held)) as groups`.execute(
        db,
      );
      // PostgreSQL answers count(*) as a bigint, which pg gives as decimal text.
      const count = (column: string): number => Number(rows[0]?.[column] ?? 0);
      return { organizations: count("organizations"), users: count("users"), activeUsers: count("active_users"), groups: count("groups") };
    },
  };
}
