/**
 * The directory (issue 18): an organization's SCIM users and groups as the operator console
 * browses them, read from the SCIM data through the analytics store. Scoped as every
 * `/organizations/{id}/…` route: an organization the caller may not see is 404, like one that
 * does not exist.
 */
import { notFound } from "../analytics-problem.js";
import type { AnalyticsCall, AnalyticsHandlers } from "../analytics-call.js";
import type { AnalyticsDirectory, DirectoryUserDetail } from "../analytics-directory.js";
import type { AnalyticsDependencies } from "../analytics-dependencies.js";
import type { OrganizationStore } from "../analytics-store.js";
import { sendJson } from "../send-json.js";

type DirectoryHandlers = Pick<
  AnalyticsHandlers,
  "listDirectoryUsers" | "getDirectoryUser" | "listDirectoryGroups" | "listDirectoryGroupMembers"
>;

/** The user as the console shows it: its SCIM attributes, `id` and `meta` as a SCIM response has them (RFC 7643 §3.1), and its groups. */
function renderDirectoryUser(user: DirectoryUserDetail): unknown {
  return {
    ...user.attributes,
    id: user.id,
    meta: { resourceType: "User", created: user.created, lastModified: user.lastModified, version: `W/"${user.version}"` },
    groups: user.groups,
  };
}

/** The handlers of the directory operations. */
export function directoryHandlers(dependencies: AnalyticsDependencies<AnalyticsDirectory & OrganizationStore>): DirectoryHandlers {
  const { store } = dependencies;

  /** The organization id of the path, or 404 when it is unknown or outside the caller's scope. */
  async function organizationOf(call: AnalyticsCall): Promise<string> {
    const id = call.params["id"] ?? "";
    // No organization id holds U+0000, and PostgreSQL refuses it as a parameter: nothing to look up.
    const organization = id.includes("\u0000") ? undefined : await store.getOrganization(call.scope, id);
    if (organization === undefined) throw notFound("There is no organization with this id among those you may see.");
    return organization.id;
  }

  const searchOf = (call: AnalyticsCall): string | undefined => call.query["search"] as string | undefined;

  return {
    async listDirectoryUsers(call) {
      const orgId = await organizationOf(call);
      call.sendPage(await store.listDirectoryUsers(orgId, searchOf(call), call.page()), (user) => user);
    },

    async getDirectoryUser(call) {
      const orgId = await organizationOf(call);
      const user = await store.getDirectoryUser(orgId, call.params["userId"] ?? "");
      if (user === undefined) throw notFound("The organization has no user with this id.");
      sendJson(call.response, 200, renderDirectoryUser(user));
    },

    async listDirectoryGroups(call) {
      const orgId = await organizationOf(call);
      call.sendPage(await store.listDirectoryGroups(orgId, searchOf(call), call.page()), (group) => group);
    },

    async listDirectoryGroupMembers(call) {
      const orgId = await organizationOf(call);
      // Read before the group check: a malformed cursor is 400 whether or not the group exists.
      const page = call.page();
      const members = await store.listGroupMembers(orgId, call.params["groupId"] ?? "", page);
      if (members === undefined) throw notFound("The organization has no group with this id.");
      call.sendPage(members, (member) => member);
    },
  };
}
