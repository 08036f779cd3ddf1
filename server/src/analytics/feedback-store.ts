/**
 * Learners' feedback on campaigns and simulations in the analytics store (spec §4.6). Part of
 * `AnalyticsStore`.
 */
import type { PageRequest, Page } from "./page-request.js";

/** A learner's free-text feedback on a campaign or a simulation. */
export interface FeedbackComment {
  /** Service-assigned id (UUID v7); list order. */
  readonly id: string;
  /** The campaign or simulation it is about. */
  readonly subject: { readonly kind: "campaign" | "simulation"; readonly id: string };
  /** The learner's SCIM id. */
  readonly userId: string;
  /** 1–5, when given. */
  readonly rating?: number;
  /** 1–4000 characters. */
  readonly comment: string;
  /** ISO 8601 time. */
  readonly createdAt: string;
}

/**
 * Feedback comments in the analytics store, listed without a scope: their callers have read the
 * campaign or simulation within theirs.
 */
export interface FeedbackStore {
  /** Stores a feedback comment. */
  addFeedback(orgId: string, comment: FeedbackComment): Promise<void>;
  /** The comments on a campaign or simulation, by id (oldest first). */
  listFeedback(subject: FeedbackComment["subject"], page: PageRequest): Promise<Page<FeedbackComment>>;
}
