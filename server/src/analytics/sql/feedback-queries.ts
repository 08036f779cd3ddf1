/**
 * Feedback comments in SQL (`scimkit_feedback`), listed per campaign or simulation in id order —
 * oldest first, as UUID v7 ids sort by time.
 */
import type { Kysely, Selectable } from "kysely";
import type { AnalyticsDatabase, FeedbackTable } from "./analytics-tables.js";
import type { AnalyticsStore, FeedbackComment } from "../analytics-store.js";
import { pageOf, rowsToRead } from "./keyset-page.js";

function feedbackOf(row: Selectable<FeedbackTable>): FeedbackComment {
  return {
    id: row.id,
    subject: { kind: row.subject_kind === "simulation" ? "simulation" : "campaign", id: row.subject_id },
    userId: row.user_id,
    ...(row.rating === null ? {} : { rating: Number(row.rating) }),
    comment: row.comment,
    createdAt: row.created_at,
  };
}

/** The feedback members of `AnalyticsStore` over `db`. */
export function feedbackQueries(db: Kysely<AnalyticsDatabase>): Pick<AnalyticsStore, "addFeedback" | "listFeedback"> {
  return {
    async addFeedback(orgId, comment) {
      await db
        .insertInto("scimkit_feedback")
        .values({
          id: comment.id,
          org_id: orgId,
          subject_kind: comment.subject.kind,
          subject_id: comment.subject.id,
          user_id: comment.userId,
          rating: comment.rating ?? null,
          comment: comment.comment,
          created_at: comment.createdAt,
        })
        .execute();
    },

    async listFeedback(subject, page) {
      let query = db
        .selectFrom("scimkit_feedback")
        .selectAll()
        .where("subject_kind", "=", subject.kind)
        .where("subject_id", "=", subject.id);
      if (page.after !== undefined) query = query.where("id", ">", page.after);
      const rows = await query.orderBy("id").limit(rowsToRead(page)).execute();
      return pageOf(rows, page, feedbackOf, (comment) => comment.id);
    },
  };
}
