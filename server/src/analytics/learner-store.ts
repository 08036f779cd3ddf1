/**
 * The learners of the analytics store (spec §4.6): the Users provisioned through SCIM, read where
 * the SCIM router keeps them, never copied. Part of `AnalyticsStore`.
 */
import type { OrgScope } from "./org-scope.js";
import type { Page, PageRequest } from "./page-request.js";

/** A learner: a User provisioned through SCIM, as the analytics interface shows it. */
export interface Learner {
  /** The SCIM resource id. */
  readonly id: string;
  /** The organization it was provisioned into. */
  readonly orgId: string;
  /** SCIM `userName`. */
  readonly userName: string;
  /** SCIM `displayName`, else `name.formatted`, else given + family name; absent when none. */
  readonly displayName?: string;
  /** The primary e-mail, else the first work e-mail, else the first e-mail; absent when none. */
  readonly email?: string;
  /** SCIM `active`; absent counts as true (as in the SCIM router's events). */
  readonly active: boolean;
  /** Enterprise extension `department`, when set. */
  readonly department?: string;
  /** ISO 8601 `meta.created`. */
  readonly createdAt: string;
  /** ISO 8601 `meta.lastModified`. */
  readonly updatedAt: string;
}

/** Filters of a learner list; all optional and combined with AND. */
export interface LearnerFilter {
  /** Only this organization (still within the scope). */
  readonly orgId?: string;
  /** Only active (true) or inactive (false) learners. */
  readonly active?: boolean;
  /** Exact department, compared case-insensitively. */
  readonly department?: string;
}

/** The learner list of the analytics store, within the caller's scope. */
export interface LearnerStore {
  /** Learners in scope matching `filter`, ordered by (orgId, id); `after` is `"<orgId>\n<id>"`. */
  listLearners(scope: OrgScope, filter: LearnerFilter, page: PageRequest): Promise<Page<Learner>>;
}
