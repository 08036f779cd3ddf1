/**
 * The organizations a caller of the analytics interface may see (issue 6, issue 17): every one
 * for the operator; for an admin user its organizations, and every present descendant of those
 * it was granted with their subtree — read anew on each request, so a division created or moved
 * under a granted company is in scope from the next request on, and one moved out is not.
 */
import type { ApiKeyCaller } from "./api-keys.js";
import type { OrganizationStore, OrgScope } from "./analytics-store.js";

/**
 * `caller`'s scope; nothing without a caller. One store query for the subtrees of all grants.
 *
 * @example await callerScope(caller, store) // { orgIds: ["acme", "acme-amer", "acme-emea"] }
 */
export async function callerScope(caller: ApiKeyCaller | undefined, store: Pick<OrganizationStore, "listSubtreeIds">): Promise<OrgScope> {
  if (caller === undefined) return { orgIds: [] };
  if (caller.kind === "operator") return { all: true };
  // A setup session sees its one organization, never another, whatever the path names.
  if (caller.kind === "setup") return { orgIds: [caller.link.orgId] };
  const { organizationIds, subtreeOrganizationIds = [] } = caller.adminUser;
  if (subtreeOrganizationIds.length === 0) return { orgIds: organizationIds };
  const below = await store.listSubtreeIds(subtreeOrganizationIds);
  return { orgIds: [...new Set([...organizationIds, ...below])].sort() };
}
