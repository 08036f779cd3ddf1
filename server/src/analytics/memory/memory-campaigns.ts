/**
 * The training campaigns of the memory analytics store: campaigns, enrolments (with their
 * learners, read from SCIM) and the campaign's figures.
 */
import type { CampaignStore, Enrolment, EnrolmentView } from "../analytics-store.js";
import { rounded, summaryRate } from "../summary-rates.js";
import { isOverdue } from "./is-overdue.js";
import { compareKeys, keysetPage } from "./keyset-page.js";
import type { MemoryAnalyticsState, Owned } from "./memory-analytics-state.js";
import { memoryLearner } from "./memory-learner.js";
import { sees } from "./memory-scope.js";
import { plainCopy } from "./plain-copy.js";
import { sortedValues } from "./sorted-values.js";

/** `owned` as a campaign's user list shows it: with its learner, overdue or not at `asOf`. */
async function enrolmentView(state: MemoryAnalyticsState, orgId: string, owned: Enrolment, asOf: string): Promise<EnrolmentView> {
  const found = await memoryLearner(state, orgId, owned.userId);
  const view: EnrolmentView = { ...plainCopy(owned), overdue: isOverdue(owned, state.campaigns.get(owned.campaignId), asOf) };
  return found === undefined ? view : { ...view, learner: found };
}

/** The `CampaignStore` of the memory analytics store over `state`. */
export function memoryCampaigns(state: MemoryAnalyticsState): CampaignStore {
  const { campaigns, enrolments } = state;
  return {
    async createCampaign(campaign) {
      if (campaigns.has(campaign.id)) throw new Error(`memoryAnalyticsStore: campaign ${campaign.id} exists`);
      campaigns.set(campaign.id, plainCopy(campaign));
    },

    async listCampaigns(scope, page, filter = {}) {
      const matching = sortedValues(campaigns).filter(
        (campaign) => sees(scope, campaign.orgId) && (filter.orgId === undefined || campaign.orgId === filter.orgId),
      );
      return keysetPage(matching, (campaign) => campaign.id, page, plainCopy);
    },

    async getCampaign(scope, id) {
      const campaign = campaigns.get(id);
      return campaign !== undefined && sees(scope, campaign.orgId) ? plainCopy(campaign) : undefined;
    },

    async putEnrolment(orgId, enrolment) {
      let byUser = enrolments.get(enrolment.campaignId);
      if (byUser === undefined) {
        byUser = new Map();
        enrolments.set(enrolment.campaignId, byUser);
      }
      byUser.set(enrolment.userId, { orgId, value: plainCopy(enrolment) });
    },

    async listEnrolments(campaignId, filter, asOf, page) {
      const campaign = campaigns.get(campaignId);
      const matching = sortedValues(enrolments.get(campaignId) ?? new Map<string, Owned<Enrolment>>()).filter(
        ({ value }) =>
          (filter.status === undefined || value.status === filter.status) &&
          (filter.overdue === undefined || isOverdue(value, campaign, asOf) === filter.overdue),
      );
      const selected = keysetPage(
        matching,
        (owned) => owned.value.userId,
        page,
        (owned) => owned,
      );
      const items = await Promise.all(selected.items.map((owned) => enrolmentView(state, owned.orgId, owned.value, asOf)));
      return selected.next === undefined ? { items } : { items, next: selected.next };
    },

    async getEnrolment(campaignId, userId, asOf) {
      const owned = enrolments.get(campaignId)?.get(userId);
      return owned === undefined ? undefined : enrolmentView(state, owned.orgId, owned.value, asOf);
    },

    async campaignSummary(campaignId, asOf) {
      const campaign = campaigns.get(campaignId);
      let enrolled = 0;
      let notStarted = 0;
      let inProgress = 0;
      let completed = 0;
      let overdue = 0;
      let scored = 0;
      let scoreSum = 0;
      for (const { value } of enrolments.get(campaignId)?.values() ?? []) {
        enrolled += 1;
        if (value.status === "not_started") notStarted += 1;
        else if (value.status === "in_progress") inProgress += 1;
        else completed += 1;
        if (isOverdue(value, campaign, asOf)) overdue += 1;
        if (value.score !== undefined) {
          scored += 1;
          scoreSum += value.score;
        }
      }
      return {
        campaignId,
        enrolled,
        notStarted,
        inProgress,
        completed,
        overdue,
        completionRate: summaryRate(completed, enrolled),
        averageScore: scored === 0 ? null : rounded(scoreSum / scored, 2),
        asOf,
      };
    },

    async campaignCompletionTimeline(campaignId) {
      const perDay = new Map<string, number>();
      let enrolled = 0;
      for (const { value } of enrolments.get(campaignId)?.values() ?? []) {
        enrolled += 1;
        // ISO 8601 in UTC: the first ten characters are the UTC day, as the SQL store reads it.
        if (value.status !== "completed" || value.completedAt === undefined) continue;
        const date = value.completedAt.slice(0, 10);
        perDay.set(date, (perDay.get(date) ?? 0) + 1);
      }
      const days = [...perDay.keys()].sort(compareKeys).map((date) => ({ date, completed: perDay.get(date) ?? 0 }));
      return { days, enrolled };
    },
  };
}
