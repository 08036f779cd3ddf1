/**
 * Users (spec §4.6): the learners provisioned through SCIM, read from the SCIM data itself,
 * across the organizations the caller may see.
 */
import type { AnalyticsHandlers } from "../analytics-call.js";
import type { AnalyticsDependencies } from "../analytics-dependencies.js";
import type { LearnerFilter, LearnerStore, OrganizationStore } from "../analytics-store.js";
import { renderUser } from "../render-resources.js";
import { subtreeScope } from "../subtree-scope.js";

/** The handler of the learner list. */
export function userHandlers(dependencies: AnalyticsDependencies<LearnerStore & OrganizationStore>): Pick<AnalyticsHandlers, "listUsers"> {
  return {
    async listUsers(call) {
      const { organizationId, active, department, subtree } = call.query as {
        organizationId?: string;
        active?: boolean;
        department?: string;
        subtree?: boolean;
      };
      // With subtree, the organization and its descendants: a narrower scope rather than a filter.
      const wide = subtree === true && organizationId !== undefined;
      const filter: LearnerFilter = {
        ...(organizationId === undefined || wide ? {} : { orgId: organizationId }),
        ...(active === undefined ? {} : { active }),
        ...(department === undefined ? {} : { department }),
      };
      const scope = wide ? await subtreeScope(dependencies.store, call.scope, organizationId) : call.scope;
      call.sendPage(await dependencies.store.listLearners(scope, filter, call.page()), renderUser);
    },
  };
}
