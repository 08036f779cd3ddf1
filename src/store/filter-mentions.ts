/**
 * Whether a filter or sort reads `members`, so that a store loads member lists for the resources
 * it evaluates only when the answer depends on them (DESIGN §3: reading a group without members
 * never loads them).
 */
import type { Filter } from "../scim/filter/filter-ast.js";
import type { ResolvedPath } from "../scim/schema/resolved-path.js";

/**
 * Whether `path` names the group `members` attribute or one of its sub-attributes
 * (`members.value`). Pass a sort path here, a filter to `mentionsMembers`.
 */
export function isMembersPath(path: ResolvedPath): boolean {
  // An extension may define its own `members`; only the core attribute is the member list.
  return !path.extension && path.attribute.name === "members";
}

/**
 * Whether any path in `filter` names `members` (`members.value eq "…"`, `members[type eq "User"]`,
 * also under `not`): only then must a store give the resources it evaluates their member lists.
 *
 * @example mentionsMembers(filter) || (sort !== undefined && isMembersPath(sort.path))
 */
export function mentionsMembers(filter: Filter<ResolvedPath>): boolean {
  switch (filter.kind) {
    case "compare":
    case "present":
      return isMembersPath(filter.path);
    case "and":
    case "or":
      return filter.filters.some(mentionsMembers);
    case "not":
      return mentionsMembers(filter.filter);
    case "valuePath":
      return isMembersPath(filter.path) || mentionsMembers(filter.filter);
  }
}
