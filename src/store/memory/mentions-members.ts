/**
 * Whether a filter or sort reads `members`, so that the memory store loads member lists for the
 * resources it evaluates only when the answer depends on them.
 */
import type { Filter } from "../../scim/filter/filter-ast.js";
import type { ResolvedPath } from "../../scim/schema/resolved-path.js";

/** Whether `path` names the group `members` attribute or one of its sub-attributes. */
export function isMembersPath(path: ResolvedPath): boolean {
  return !path.extension && path.attribute.name === "members";
}

/** Whether any path in `filter` names `members` (`members.value eq "…"`, `members[type eq "User"]`). */
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
