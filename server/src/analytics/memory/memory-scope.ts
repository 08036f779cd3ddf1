/**
 * What an `OrgScope` lets a read of the memory analytics store see: an organization's records,
 * and the admin users sharing an organization with it.
 */
import type { AdminUser, OrgScope } from "../analytics-store.js";

/**
 * A scope's ids as a set, made once per scope object (a request's): a caller with a subtree of
 * thousands of organizations costs one lookup per check, not a scan of its list (issue 27).
 */
const scopeSets = new WeakMap<OrgScope, ReadonlySet<string>>();

function scopeSet(scope: { readonly orgIds: readonly string[] }): ReadonlySet<string> {
  let set = scopeSets.get(scope);
  if (set === undefined) {
    set = new Set(scope.orgIds);
    scopeSets.set(scope, set);
  }
  return set;
}

/** Whether `scope` sees the records of organization `orgId`. */
export function sees(scope: OrgScope, orgId: string): boolean {
  return "all" in scope || scopeSet(scope).has(orgId);
}

/** Whether `scope` sees admin user `user`: it shares an organization with it. */
export function seesAdminUser(scope: OrgScope, user: AdminUser): boolean {
  if ("all" in scope) return true;
  const visible = scopeSet(scope);
  return user.organizationIds.some((orgId) => visible.has(orgId));
}
