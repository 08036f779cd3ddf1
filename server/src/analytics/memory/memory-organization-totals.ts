/**
 * `organizationTotals` of the memory analytics store (issue 30, point 5): per organization, the
 * `ResourceStore` is asked for counts only (`totalResults` of an empty page), never for its users.
 */
import { compileFilter, createSchemaRegistry } from "scimkit/core";
import type { ListRequest, ResourceStore } from "scimkit/store";
import { MAX_TOTALS_EXCEPTIONS, type OrganizationTotals } from "../organization-store.js";
import type { MemoryAnalyticsState } from "./memory-analytics-state.js";

/** `active eq false` on the User schema: the users `Learner.active` reads as inactive (absent is active). */
const INACTIVE = (() => {
  const schema = createSchemaRegistry().resourceType("User");
  const compiled = schema === undefined ? undefined : compileFilter(schema, "active eq false");
  if (compiled?.ok !== true) throw new Error("The User schema does not compile active eq false");
  return compiled.value;
})();

/** How many of `orgId`'s resources of `resourceType` match `filter`: a page of none, its total read. */
async function counted(resources: ResourceStore, orgId: string, resourceType: string, filter?: ListRequest["filter"]): Promise<number> {
  const { totalResults } = await resources.list({
    orgId,
    resourceType,
    members: false,
    countTotal: true,
    page: { kind: "index", startIndex: 1, count: 0 },
    ...(filter === undefined ? {} : { filter }),
  });
  return totalResults;
}

/** The totals of every organization of `state` but `except`. */
export async function memoryOrganizationTotals(state: MemoryAnalyticsState, except: readonly string[] = []): Promise<OrganizationTotals> {
  if (except.length > MAX_TOTALS_EXCEPTIONS)
    throw new Error(`organizationTotals: more than ${MAX_TOTALS_EXCEPTIONS} organizations left out`);
  const left = new Set(except);
  // The ids first: an organization created or deleted meanwhile is counted whole or not at all.
  const orgIds = [...state.organizations.keys()].filter((id) => !left.has(id));
  const totals = { organizations: orgIds.length, users: 0, activeUsers: 0, groups: 0 };
  for (const orgId of orgIds) {
    const [users, inactive, groups] = await Promise.all([
      counted(state.resources, orgId, "User"),
      counted(state.resources, orgId, "User", INACTIVE),
      counted(state.resources, orgId, "Group"),
    ]);
    totals.users += users;
    totals.activeUsers += users - inactive;
    totals.groups += groups;
  }
  return totals;
}
