/**
 * How an accepted invitation offer joins the admin user its e-mail belongs to (issue 27), the same
 * for every store: an offer exists so that inviting an e-mail tells the inviter nothing about
 * admin users it may not see, and accepting it must give that admin user no more than was offered.
 */
import type { AdminRole } from "./analytics-store.js";
import { analyticsConflictError } from "./analytics-conflict-error.js";
import type { Grants } from "./grants-beyond.js";

/**
 * `holder`'s grants with the offered ones added: every organization of either, with its subtree
 * where either has it. Nothing `holder` has is taken away.
 *
 * @example mergedGrants({ organizationIds: ["a"], subtreeOrganizationIds: [] }, { organizationIds: ["b"], subtreeOrganizationIds: ["b"] }) // { organizationIds: ["a", "b"], subtreeOrganizationIds: ["b"] }
 */
export function mergedGrants(holder: Grants, offered: Grants): Grants {
  return {
    organizationIds: [...new Set([...holder.organizationIds, ...offered.organizationIds])],
    subtreeOrganizationIds: [...new Set([...holder.subtreeOrganizationIds, ...offered.subtreeOrganizationIds])],
  };
}

/**
 * Throws a conflict error when an admin user of role `holder` may not take an offer of role
 * `offered`: an admin user has one role for all its organizations, so an `admin` taking a
 * `viewer` offer would manage what it was only offered to read. A `viewer` taking an `admin`
 * offer stays a viewer: less than offered, never more.
 */
export function refuseWiderRole(holder: AdminRole, offered: AdminRole): void {
  if (holder === "admin" && offered === "viewer") {
    throw analyticsConflictError("The invitation offers the role viewer to an admin user whose role is admin");
  }
}
