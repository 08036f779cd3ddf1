/**
 * Training campaigns and enrolments in SQL (`scimkit_campaigns`, `scimkit_enrolments`). A
 * campaign's users are its enrolments in user-id order with their learners left-joined from
 * `scimkit_resources`; its summary is one aggregate query.
 */
import { sql, type Kysely, type Selectable, type SqlBool } from "kysely";
import type { SqlDialect } from "scimkit/sql";
import type { AnalyticsDatabase, CampaignsTable, EnrolmentsTable } from "./analytics-tables.js";
import type { AnalyticsStore, Campaign, Enrolment, EnrolmentStatus, EnrolmentView } from "../analytics-store.js";
import { rounded, summaryRate } from "../summary-rates.js";
import { pageOf, rowsToRead } from "./keyset-page.js";
import { joinedLearnerColumns, learnerOfJoined, LEARNER_TYPE, type JoinedLearnerRow } from "./learner-queries.js";
import { scopeOrgIds } from "./scope-org-ids.js";

type CampaignMembers =
  | "createCampaign"
  | "listCampaigns"
  | "getCampaign"
  | "putEnrolment"
  | "listEnrolments"
  | "getEnrolment"
  | "campaignSummary";

function campaignOf(row: Selectable<CampaignsTable>): Campaign {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    ...(row.description === null ? {} : { description: row.description }),
    startsAt: row.starts_at,
    ...(row.due_at === null ? {} : { dueAt: row.due_at }),
    createdAt: row.created_at,
  };
}

/** An enrolment row as the campaign's user list reads it. */
interface EnrolmentViewRow extends Selectable<EnrolmentsTable>, JoinedLearnerRow {
  /** 1 or 0 (`overdueSql`). */
  readonly overdue: number | string;
}

function enrolmentViewOf(row: EnrolmentViewRow, dialect: SqlDialect): EnrolmentView {
  const learner = learnerOfJoined(row, row.org_id, dialect);
  return {
    campaignId: row.campaign_id,
    userId: row.user_id,
    status: row.status as EnrolmentStatus,
    progressPercent: Number(row.progress_percent),
    ...(row.score === null ? {} : { score: Number(row.score) }),
    enrolledAt: row.enrolled_at,
    ...(row.started_at === null ? {} : { startedAt: row.started_at }),
    ...(row.completed_at === null ? {} : { completedAt: row.completed_at }),
    updatedAt: row.updated_at,
    ...(learner === undefined ? {} : { learner }),
    overdue: Number(row.overdue) === 1,
  };
}

/**
 * The columns of `enrolment` of `orgId` beside its key (`campaign_id`, `user_id`): what a put
 * replaces, and what a seeded row holds.
 */
export function enrolmentValues(orgId: string, enrolment: Enrolment): Omit<EnrolmentsTable, "campaign_id" | "user_id"> {
  return {
    org_id: orgId,
    status: enrolment.status,
    progress_percent: enrolment.progressPercent,
    score: enrolment.score ?? null,
    enrolled_at: enrolment.enrolledAt,
    started_at: enrolment.startedAt ?? null,
    completed_at: enrolment.completedAt ?? null,
    updated_at: enrolment.updatedAt,
  };
}

/** Whether the enrolment `e` of the campaign `c` is overdue at `asOf`: unfinished and past `due_at`. */
function overdueSql(asOf: string) {
  const dueAt = sql.ref("c.due_at");
  return sql<SqlBool>`(${sql.ref("e.status")} <> ${"completed"} and ${dueAt} is not null and ${dueAt} < ${asOf})`;
}

/** The campaign and enrolment members of `AnalyticsStore` over `db`. */
export function campaignQueries(db: Kysely<AnalyticsDatabase>, dialect: SqlDialect): Pick<AnalyticsStore, CampaignMembers> {
  const enrolmentViews = (campaignId: string, asOf: string) =>
    db
      .selectFrom("scimkit_enrolments as e")
      .leftJoin("scimkit_campaigns as c", "c.id", "e.campaign_id")
      // The learner by primary key (org_id, id); absent once the SCIM user was deleted.
      .leftJoin("scimkit_resources as r", (join) =>
        join.onRef("r.org_id", "=", "e.org_id").onRef("r.id", "=", "e.user_id").on("r.resource_type", "=", LEARNER_TYPE),
      )
      .selectAll("e")
      .select(joinedLearnerColumns)
      .select(sql<number>`case when ${overdueSql(asOf)} then 1 else 0 end`.as("overdue"))
      .where("e.campaign_id", "=", campaignId);

  return {
    async createCampaign(campaign) {
      await db
        .insertInto("scimkit_campaigns")
        .values({
          id: campaign.id,
          org_id: campaign.orgId,
          name: campaign.name,
          description: campaign.description ?? null,
          starts_at: campaign.startsAt,
          due_at: campaign.dueAt ?? null,
          created_at: campaign.createdAt,
        })
        .execute();
    },

    async listCampaigns(scope, page, filter = {}) {
      const ids = scopeOrgIds(scope);
      if (ids?.length === 0) return { items: [] };
      let query = db.selectFrom("scimkit_campaigns").selectAll();
      if (ids !== undefined) query = query.where("org_id", "in", ids);
      if (filter.orgId !== undefined) query = query.where("org_id", "=", filter.orgId);
      if (page.after !== undefined) query = query.where("id", ">", page.after);
      const rows = await query.orderBy("id").limit(rowsToRead(page)).execute();
      return pageOf(rows, page, campaignOf, (campaign) => campaign.id);
    },

    async getCampaign(scope, id) {
      const ids = scopeOrgIds(scope);
      if (ids?.length === 0) return undefined;
      let query = db.selectFrom("scimkit_campaigns").selectAll().where("id", "=", id);
      if (ids !== undefined) query = query.where("org_id", "in", ids);
      const row = await query.executeTakeFirst();
      return row ? campaignOf(row) : undefined;
    },

    async putEnrolment(orgId, enrolment) {
      const values = enrolmentValues(orgId, enrolment);
      const key = { campaign_id: enrolment.campaignId, user_id: enrolment.userId };
      const replace = () =>
        db
          .updateTable("scimkit_enrolments")
          .set(values)
          .where("campaign_id", "=", key.campaign_id)
          .where("user_id", "=", key.user_id)
          .executeTakeFirst();
      // Replace, else insert; an insert that loses a race to another put replaces what that put wrote.
      if ((await replace()).numUpdatedRows > 0n) return;
      const inserted = await dialect.ignoreConflicts(db.insertInto("scimkit_enrolments").values({ ...key, ...values })).executeTakeFirst();
      if ((inserted.numInsertedOrUpdatedRows ?? 0n) === 0n) await replace();
    },

    async listEnrolments(campaignId, filter, asOf, page) {
      let query = enrolmentViews(campaignId, asOf);
      if (filter.status !== undefined) query = query.where("e.status", "=", filter.status);
      if (filter.overdue !== undefined) query = query.where(filter.overdue ? overdueSql(asOf) : sql<SqlBool>`not ${overdueSql(asOf)}`);
      if (page.after !== undefined) query = query.where("e.user_id", ">", page.after);
      const rows = await query.orderBy("e.user_id").limit(rowsToRead(page)).execute();
      return pageOf(
        rows,
        page,
        (row) => enrolmentViewOf(row, dialect),
        (view) => view.userId,
      );
    },

    async getEnrolment(campaignId, userId, asOf) {
      const row = await enrolmentViews(campaignId, asOf).where("e.user_id", "=", userId).executeTakeFirst();
      return row ? enrolmentViewOf(row, dialect) : undefined;
    },

    async campaignSummary(campaignId, asOf) {
      // One aggregate over the campaign's range of the primary key; sum(case) rather than
      // count(*) filter, which MySQL lacks.
      const count = (condition: ReturnType<typeof overdueSql>) =>
        sql<number | string | null>`sum(case when ${condition} then 1 else 0 end)`;
      const statusIs = (status: EnrolmentStatus) => sql<SqlBool>`${sql.ref("e.status")} = ${status}`;
      const row = await db
        .selectFrom("scimkit_campaigns as c")
        .leftJoin("scimkit_enrolments as e", "e.campaign_id", "c.id")
        .where("c.id", "=", campaignId)
        .select((eb) => [
          eb.fn.count("e.user_id").as("enrolled"),
          count(statusIs("not_started")).as("not_started"),
          count(statusIs("in_progress")).as("in_progress"),
          count(statusIs("completed")).as("completed"),
          count(overdueSql(asOf)).as("overdue"),
          eb.fn.avg("e.score").as("average_score"),
        ])
        .executeTakeFirst();
      const enrolled = Number(row?.enrolled ?? 0);
      const completed = Number(row?.completed ?? 0);
      const average = row?.average_score;
      return {
        campaignId,
        enrolled,
        notStarted: Number(row?.not_started ?? 0),
        inProgress: Number(row?.in_progress ?? 0),
        completed,
        overdue: Number(row?.overdue ?? 0),
        completionRate: summaryRate(completed, enrolled),
        averageScore: average === null || average === undefined ? null : rounded(Number(average), 2),
        asOf,
      };
    },
  };
}
