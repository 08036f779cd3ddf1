/**
 * The training campaigns of the analytics store (spec §4.6): campaigns, the enrolments of their
 * learners, and their figures. Part of `AnalyticsStore`.
 */
import type { Learner } from "./learner-store.js";
import type { OrgScope } from "./org-scope.js";
import type { Page, PageRequest } from "./page-request.js";

/** A training campaign of one organization. */
export interface Campaign {
  /** Service-assigned id (UUID v7). */
  readonly id: string;
  /** Its organization. */
  readonly orgId: string;
  /** Name, 1–200 characters. */
  readonly name: string;
  /** Optional description. */
  readonly description?: string;
  /** ISO 8601 start. */
  readonly startsAt: string;
  /** ISO 8601 due time; an unfinished enrolment past it is overdue. Absent: never overdue. */
  readonly dueAt?: string;
  /** ISO 8601 creation time. */
  readonly createdAt: string;
}

/** How far a learner is in a campaign. */
export type EnrolmentStatus = "not_started" | "in_progress" | "completed";

/** One learner's enrolment in one campaign. */
export interface Enrolment {
  /** The campaign. */
  readonly campaignId: string;
  /** The learner's SCIM id. */
  readonly userId: string;
  /** `not_started`, `in_progress` or `completed`. */
  readonly status: EnrolmentStatus;
  /** 0–100. */
  readonly progressPercent: number;
  /** 0–100, when scored. */
  readonly score?: number;
  /** ISO 8601 enrolment time. */
  readonly enrolledAt: string;
  /** ISO 8601 time of the first progress; absent while not started. */
  readonly startedAt?: string;
  /** ISO 8601 completion time; absent until completed. */
  readonly completedAt?: string;
  /** ISO 8601 time of the last recorded progress. */
  readonly updatedAt: string;
}

/** An enrolment as a campaign's user list shows it: with the learner and whether it is overdue. */
export interface EnrolmentView extends Enrolment {
  /** The learner, when it still exists in SCIM (absent after the user was deleted). */
  readonly learner?: Learner;
  /** Not completed and the campaign's `dueAt` is before `asOf`. */
  readonly overdue: boolean;
}

/** Filters of a campaign's user list. */
export interface EnrolmentFilter {
  /** Only this status. */
  readonly status?: EnrolmentStatus;
  /** Only overdue (true) or not overdue (false) enrolments. */
  readonly overdue?: boolean;
}

/** A campaign's aggregate figures, computed by the store (SQL aggregates, not JavaScript). */
export interface CampaignSummary {
  /** The campaign. */
  readonly campaignId: string;
  /** Enrolments in all. */
  readonly enrolled: number;
  /** Enrolments `not_started`. */
  readonly notStarted: number;
  /** Enrolments `in_progress`. */
  readonly inProgress: number;
  /** Enrolments `completed`. */
  readonly completed: number;
  /** Not completed, past `dueAt` at `asOf`. */
  readonly overdue: number;
  /** completed / enrolled, 0–1, rounded to 4 decimals; 0 when nobody is enrolled. */
  readonly completionRate: number;
  /** Mean score of scored enrolments, rounded to 2 decimals; null when none is scored. */
  readonly averageScore: number | null;
  /** The time the figures were computed for. */
  readonly asOf: string;
}

/** A campaign's completions over time (issue 18: the console's training chart). */
export interface CompletionTimeline {
  /** The days on which at least one enrolment was completed, ascending; days without are absent. */
  readonly days: readonly { readonly date: string; readonly completed: number }[];
  /** Enrolments in all. */
  readonly enrolled: number;
}

/**
 * Campaigns and enrolments in the analytics store. The methods keyed by a campaign id alone check no
 * scope: their callers have read the campaign within theirs. Every method resolves once its change is visible to every later call from any process sharing
 * the storage. `undefined`/`false` mean "no such thing in scope" — the HTTP layer renders both the
 * same 404, so another organization's data and nonexistent data are indistinguishable.
 */
export interface CampaignStore {
  /** Stores a campaign; rejects when `id` exists. */
  createCampaign(campaign: Campaign): Promise<void>;
  /** Campaigns in scope, by id. */
  listCampaigns(scope: OrgScope, page: PageRequest, filter?: { readonly orgId?: string }): Promise<Page<Campaign>>;
  /** The campaign, when in scope. */
  getCampaign(scope: OrgScope, id: string): Promise<Campaign | undefined>;
  /** Creates or replaces the enrolment of (`campaignId`, `userId`). */
  putEnrolment(orgId: string, enrolment: Enrolment): Promise<void>;
  /** The campaign's enrolments by user id, with learners; `overdue` as of `asOf`. */
  listEnrolments(campaignId: string, filter: EnrolmentFilter, asOf: string, page: PageRequest): Promise<Page<EnrolmentView>>;
  /** One enrolment, with its learner; `undefined` when the user is not enrolled. */
  getEnrolment(campaignId: string, userId: string, asOf: string): Promise<EnrolmentView | undefined>;
  /** Aggregates over the campaign's enrolments as of `asOf`. */
  campaignSummary(campaignId: string, asOf: string): Promise<CampaignSummary>;
  /** Completed enrolments per UTC day of `completedAt`, and the enrolments in all (one aggregate query on SQL). */
  campaignCompletionTimeline(campaignId: string): Promise<CompletionTimeline>;
}
