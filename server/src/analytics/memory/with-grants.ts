import type { AdminUser } from "../analytics-store.js";
import { compareKeys } from "./keyset-page.js";

/** `user` with `organizationIds` and `subtreeOrganizationIds` as given, sorted; no subtree member when none. */
export function withGrants(user: AdminUser, organizationIds: readonly string[], subtreeOrganizationIds: readonly string[]): AdminUser {
  const { subtreeOrganizationIds: _previous, ...rest } = user;
  const subtree = subtreeOrganizationIds.filter((orgId) => organizationIds.includes(orgId));
  return {
    ...rest,
    organizationIds: [...organizationIds].sort(compareKeys),
    ...(subtree.length === 0 ? {} : { subtreeOrganizationIds: [...subtree].sort(compareKeys) }),
  };
}
