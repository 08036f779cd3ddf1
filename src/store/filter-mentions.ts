/**
 * Whether a filter or sort reads `members`, so that a store loads member lists for the resources
 * it evaluates only when the answer depends on them (architecture §3: reading a group without members
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
  return filterMentions(filter, isMembersPath);
}

/** Whether any path in `filter` (under `and`, `or`, `not` and brackets too) satisfies `test`. */
export function filterMentions(filter: Filter<ResolvedPath>, test: (path: ResolvedPath) => boolean): boolean {
  switch (filter.kind) {
    case "compare":
    case "present":
      return test(filter.path);
    case "and":
    case "or":
      return filter.filters.some((child) => filterMentions(child, test));
    case "not":
      return filterMentions(filter.filter, test);
    case "valuePath":
      return test(filter.path) || filterMentions(filter.filter, test);
  }
}

const SERVER_ATTRIBUTES = new Set(["id", "meta", "members"]);

/**
 * Whether `path` reads what the store keeps beside a resource's attributes (`id`, `meta`,
 * `members`) and `resourceView` puts back. A filter or sort that reads none of these can be
 * evaluated on `StoredResource.attributes` alone, without building a view per resource.
 */
export function isServerPath(path: ResolvedPath): boolean {
  return !path.extension && SERVER_ATTRIBUTES.has(path.attribute.name);
}
