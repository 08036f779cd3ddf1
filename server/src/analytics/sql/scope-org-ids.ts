/**
 * An `OrgScope` as a query condition: every organization, or a list of ids that may be empty —
 * in which case there is nothing to read, and the store answers without asking the database
 * (an empty `in ()` is not SQL).
 */
import type { OrgScope } from "../analytics-store.js";

/**
 * The organization ids `scope` limits a read to, `undefined` for every organization. An empty
 * array means the read finds nothing.
 *
 * @example const ids = scopeOrgIds(scope); if (ids?.length === 0) return { items: [] };
 */
export function scopeOrgIds(scope: OrgScope): readonly string[] | undefined {
  return "all" in scope ? undefined : scope.orgIds;
}
