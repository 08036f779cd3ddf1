/**
 * Users (spec §4.6): the learners provisioned through SCIM, read from the SCIM data itself,
 * across the organizations the caller may see.
 */
import type { AnalyticsHandlers } from "../analytics-call.js";
import type { AnalyticsDependencies } from "../analytics-dependencies.js";
import type { LearnerFilter } from "../analytics-store.js";
import { renderUser } from "../render-resources.js";

/** The handler of the learner list. */
export function userHandlers(dependencies: AnalyticsDependencies): Pick<AnalyticsHandlers, "listUsers"> {
  return {
    async listUsers(call) {
      const { organizationId, active, department } = call.query as { organizationId?: string; active?: boolean; department?: string };
      const filter: LearnerFilter = {
        ...(organizationId === undefined ? {} : { orgId: organizationId }),
        ...(active === undefined ? {} : { active }),
        ...(department === undefined ? {} : { department }),
      };
      call.sendPage(await dependencies.store.listLearners(call.scope, filter, call.page()), renderUser);
    },
  };
}
