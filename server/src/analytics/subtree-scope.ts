/**
 * A list narrowed to one organization and its descendants (issue 17, item 4): `?organizationId=
 * acme&subtree=true` reads the company and its divisions, within what the caller may see.
 */
import type { OrganizationStore, OrgScope } from "./analytics-store.js";

/**
 * `scope` narrowed to `orgId`'s subtree (one recursive query), or to nothing when the caller may
 * not see `orgId` itself — so the answer never tells whether an organization it cannot see has
 * descendants it can.
 *
 * @example const scope = await subtreeScope(store, call.scope, "acme") // { orgIds: ["acme", "acme-amer", "acme-emea"] }
 */
export async function subtreeScope(store: Pick<OrganizationStore, "listSubtreeIds">, scope: OrgScope, orgId: string): Promise<OrgScope> {
  const visible = "all" in scope ? undefined : new Set(scope.orgIds);
  if (visible !== undefined && !visible.has(orgId)) return { orgIds: [] };
  const members = await store.listSubtreeIds([orgId]);
  return { orgIds: visible === undefined ? members : members.filter((id) => visible.has(id)) };
}
