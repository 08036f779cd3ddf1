/**
 * Emptying one organization in the memory analytics store: its analytics records, and its SCIM
 * data through the `ResourceStore` API. Both do their work when called, before their first
 * `await` where the stores allow it, so a delete or a re-creation leaves no moment in between.
 */
import type { MemoryAnalyticsState, Owned } from "./memory-analytics-state.js";
import { withGrants } from "./with-grants.js";

/** Resources read per `ResourceStore.list` call while emptying an organization one by one. */
const CHUNK = 1000;

/** Removes every analytics record of organization `id` and strips it from admin users and pending offers. */
export function deleteAnalyticsRecords(state: MemoryAnalyticsState, id: string): void {
  const { adminUsers, offers, campaigns, simulations, operations, reportRows } = state;
  state.organizations.delete(id);
  state.children = undefined;
  for (const [userId, user] of adminUsers) {
    if (user.organizationIds.includes(id)) {
      const kept = user.organizationIds.filter((orgId) => orgId !== id);
      adminUsers.set(userId, withGrants(user, kept, user.subtreeOrganizationIds ?? []));
    }
  }
  for (const [offerId, offer] of offers) {
    if (offer.entry.organizationIds.includes(id)) {
      const kept = offer.entry.organizationIds.filter((orgId) => orgId !== id);
      offers.set(offerId, { ...offer, entry: withGrants(offer.entry, kept, offer.entry.subtreeOrganizationIds ?? []) });
    }
  }
  for (const [campaignId, campaign] of campaigns) if (campaign.orgId === id) campaigns.delete(campaignId);
  for (const [simulationId, simulation] of simulations) if (simulation.orgId === id) simulations.delete(simulationId);
  for (const [operationId, operation] of operations) {
    if (operation.orgId !== id) continue;
    operations.delete(operationId);
    reportRows.delete(operationId);
  }
  for (const table of [state.enrolments, state.recipients, state.feedback] as const) {
    for (const [key, rows] of table as Map<string, Map<string, Owned<unknown>>>) {
      for (const [rowKey, row] of rows) if (row.orgId === id) rows.delete(rowKey);
      if (rows.size === 0) table.delete(key);
    }
  }
}

/** Empties the organization's SCIM data through the ResourceStore API when it has no bulk delete. */
export async function deleteScimResources(state: MemoryAnalyticsState, orgId: string): Promise<void> {
  const { resources } = state;
  if (resources.deleteOrganization) {
    await resources.deleteOrganization(orgId);
    return;
  }
  for (const resourceType of ["Group", "User"]) {
    for (;;) {
      const { resources: page } = await resources.list({
        orgId,
        resourceType,
        members: false,
        countTotal: false,
        page: { kind: "index", startIndex: 1, count: CHUNK },
      });
      if (page.length === 0) break;
      const time = state.now().toISOString();
      for (const resource of page) await resources.delete({ orgId, resourceType, id: resource.id, now: time });
    }
  }
}
