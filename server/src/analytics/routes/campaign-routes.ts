/**
 * Training campaigns (spec §4.6): list, summary, the learners and their progress, one learner,
 * feedback comments, and the bulk report.
 */
import { notFound } from "../analytics-problem.js";
import type { AnalyticsCall, AnalyticsHandlers } from "../analytics-call.js";
import type { AnalyticsDependencies } from "../analytics-dependencies.js";
import type { Campaign, EnrolmentFilter, EnrolmentStatus } from "../analytics-store.js";
import { renderCampaign, renderCampaignUser, renderFeedback } from "../render-resources.js";
import { campaignUsersReport } from "../report-kinds.js";
import { sendJson } from "../send-json.js";
import { subtreeScope } from "../subtree-scope.js";
import { startReport } from "./start-report.js";

type CampaignHandlers = Pick<
  AnalyticsHandlers,
  | "listCampaigns"
  | "getCampaignSummary"
  | "listCampaignUsers"
  | "getCampaignUser"
  | "listCampaignFeedback"
  | "createCampaignReport"
  | "getCampaignCompletionTimeline"
>;

/** The handlers of the campaign operations. */
export function campaignHandlers(dependencies: AnalyticsDependencies): CampaignHandlers {
  const { store, now } = dependencies;

  /** The campaign of the path, or 404 when it is unknown or of an organization the caller may not see. */
  async function campaignOf(call: AnalyticsCall): Promise<Campaign> {
    const campaign = await store.getCampaign(call.scope, call.params["id"] ?? "");
    if (campaign === undefined) throw notFound("There is no campaign with this id among those you may see.");
    return campaign;
  }

  return {
    async listCampaigns(call) {
      const organizationId = call.query["organizationId"] as string | undefined;
      if (organizationId !== undefined && call.query["subtree"] === true) {
        // The organization and its descendants: a narrower scope rather than a filter.
        call.sendPage(await store.listCampaigns(await subtreeScope(store, call.scope, organizationId), call.page()), renderCampaign);
        return;
      }
      call.sendPage(
        await store.listCampaigns(call.scope, call.page(), organizationId === undefined ? {} : { orgId: organizationId }),
        renderCampaign,
      );
    },

    async getCampaignSummary(call) {
      const campaign = await campaignOf(call);
      sendJson(call.response, 200, await store.campaignSummary(campaign.id, now().toISOString()));
    },

    async listCampaignUsers(call) {
      const campaign = await campaignOf(call);
      const { status, overdue } = call.query as { status?: EnrolmentStatus; overdue?: boolean };
      const filter: EnrolmentFilter = { ...(status === undefined ? {} : { status }), ...(overdue === undefined ? {} : { overdue }) };
      call.sendPage(await store.listEnrolments(campaign.id, filter, now().toISOString(), call.page()), renderCampaignUser);
    },

    async getCampaignUser(call) {
      const campaign = await campaignOf(call);
      const enrolment = await store.getEnrolment(campaign.id, call.params["userId"] ?? "", now().toISOString());
      if (enrolment === undefined) throw notFound("This user is not enrolled in this campaign.");
      sendJson(call.response, 200, renderCampaignUser(enrolment));
    },

    async listCampaignFeedback(call) {
      const campaign = await campaignOf(call);
      call.sendPage(await store.listFeedback({ kind: "campaign", id: campaign.id }, call.page()), renderFeedback);
    },

    async createCampaignReport(call) {
      await startReport(dependencies, call, campaignUsersReport, await campaignOf(call));
    },

    async getCampaignCompletionTimeline(call) {
      const campaign = await campaignOf(call);
      const { days, enrolled } = await store.campaignCompletionTimeline(campaign.id);
      let cumulative = 0;
      const data = days.map(({ date, completed }) => {
        cumulative += completed;
        return { date, completed, cumulative };
      });
      sendJson(call.response, 200, { data, enrolled });
    },
  };
}
