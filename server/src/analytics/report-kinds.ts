/**
 * The bulk reports the interface builds: for each kind, its columns (the CSV header, and the keys
 * of each JSON row, in order) and how to read one page of its rows from the store.
 */
import type { AnalyticsStore, Learner, Page, PageRequest, ReportRow } from "./analytics-store.js";

/** A kind of bulk report. */
export interface ReportKind {
  /** `Operation.kind`. */
  readonly kind: string;
  /** The columns of every row, in order. */
  readonly columns: readonly string[];
  /** The number of rows, when the store can say cheaply (from its summary); otherwise undefined. */
  total(store: AnalyticsStore, subjectId: string, asOf: string): Promise<number | undefined>;
  /** One page of rows, in the report's order. */
  page(store: AnalyticsStore, subjectId: string, asOf: string, page: PageRequest): Promise<Page<ReportRow>>;
}

const LEARNER_COLUMNS = ["userId", "userName", "displayName", "email", "department", "active"] as const;

function learnerCells(userId: string, learner: Learner | undefined): Record<string, string | boolean | null> {
  return {
    userId,
    userName: learner?.userName ?? null,
    displayName: learner?.displayName ?? null,
    email: learner?.email ?? null,
    department: learner?.department ?? null,
    active: learner?.active ?? null,
  };
}

/** One row per enrolment of a campaign, `overdue` as of when the report was requested. */
export const campaignUsersReport: ReportKind = {
  kind: "campaign-users-report",
  columns: [...LEARNER_COLUMNS, "status", "progressPercent", "score", "enrolledAt", "startedAt", "completedAt", "updatedAt", "overdue"],
  async total(store, campaignId, asOf) {
    return (await store.campaignSummary(campaignId, asOf)).enrolled;
  },
  async page(store, campaignId, asOf, page) {
    const enrolments = await store.listEnrolments(campaignId, {}, asOf, page);
    return {
      items: enrolments.items.map((enrolment) => ({
        ...learnerCells(enrolment.userId, enrolment.learner),
        status: enrolment.status,
        progressPercent: enrolment.progressPercent,
        score: enrolment.score ?? null,
        enrolledAt: enrolment.enrolledAt,
        startedAt: enrolment.startedAt ?? null,
        completedAt: enrolment.completedAt ?? null,
        updatedAt: enrolment.updatedAt,
        overdue: enrolment.overdue,
      })),
      ...(enrolments.next === undefined ? {} : { next: enrolments.next }),
    };
  },
};

/** One row per recipient of a simulation. */
export const simulationUsersReport: ReportKind = {
  kind: "simulation-users-report",
  columns: [...LEARNER_COLUMNS, "sentAt", "deliveredAt", "openedAt", "clickedAt", "submittedDataAt", "reportedAt"],
  // The summary counts recipients that were sent something, not every recipient row: no cheap total.
  async total() {
    return undefined;
  },
  async page(store, simulationId, _asOf, page) {
    const recipients = await store.listRecipients(simulationId, {}, page);
    return {
      items: recipients.items.map((recipient) => ({
        ...learnerCells(recipient.userId, recipient.learner),
        sentAt: recipient.sentAt ?? null,
        deliveredAt: recipient.deliveredAt ?? null,
        openedAt: recipient.openedAt ?? null,
        clickedAt: recipient.clickedAt ?? null,
        submittedDataAt: recipient.submittedDataAt ?? null,
        reportedAt: recipient.reportedAt ?? null,
      })),
      ...(recipients.next === undefined ? {} : { next: recipients.next }),
    };
  },
};

/**
 * One row per learner of an organization and its descendants (issue 17), by organization and id,
 * each naming its organization: the subtree as it is when each page is read.
 */
export const organizationUsersReport: ReportKind = {
  kind: "organization-users-report",
  columns: ["organizationId", ...LEARNER_COLUMNS],
  async total(store, orgId, asOf) {
    return (await store.treeSummary({ all: true }, orgId, { asOf }))?.totals.learners;
  },
  async page(store, orgId, _asOf, page) {
    // The subtree in one recursive query per page: a division added meanwhile is read from then on.
    const learners = await store.listLearners({ orgIds: await store.listSubtreeIds([orgId]) }, {}, page);
    return {
      items: learners.items.map((learner) => ({ organizationId: learner.orgId, ...learnerCells(learner.id, learner) })),
      ...(learners.next === undefined ? {} : { next: learners.next }),
    };
  },
};

/** The report kinds by `Operation.kind`. */
export const reportKinds: Readonly<Record<string, ReportKind>> = {
  [organizationUsersReport.kind]: organizationUsersReport,
  [campaignUsersReport.kind]: campaignUsersReport,
  [simulationUsersReport.kind]: simulationUsersReport,
};
