/**
 * A campaign's completion timeline in SQL (issue 18): completed enrolments counted per UTC day of
 * `completed_at` in one aggregate query. The times are ISO 8601 in UTC, so the day is the text's
 * first ten characters in either database — no time-zone conversion.
 */
import { sql, type Kysely } from "kysely";
import type { AnalyticsStore } from "../analytics-store.js";
import type { AnalyticsDatabase } from "./analytics-tables.js";

/** The timeline member of `AnalyticsStore` over `db`. */
export function timelineQueries(db: Kysely<AnalyticsDatabase>): Pick<AnalyticsStore, "campaignCompletionTimeline"> {
  return {
    async campaignCompletionTimeline(campaignId) {
      const day = sql<string>`substr(${sql.ref("completed_at")}, 1, 10)`;
      const [days, total] = await Promise.all([
        db
          .selectFrom("scimkit_enrolments")
          .select([day.as("date"), (eb) => eb.fn.countAll<number | string>().as("completed")])
          .where("campaign_id", "=", campaignId)
          .where("status", "=", "completed")
          .where("completed_at", "is not", null)
          .groupBy(day)
          .orderBy(day)
          .execute(),
        db
          .selectFrom("scimkit_enrolments")
          .select((eb) => eb.fn.countAll<number | string>().as("enrolled"))
          .where("campaign_id", "=", campaignId)
          .executeTakeFirstOrThrow(),
      ]);
      return {
        days: days.map((row) => ({ date: row.date, completed: Number(row.completed) })),
        enrolled: Number(total.enrolled),
      };
    },
  };
}
