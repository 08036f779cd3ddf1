/**
 * Reads member ids straight out of a `members[…]` value filter, for groups whose member list is not
 * loaded: `members[value eq "a" or value eq "b"]` names exactly the members `a` and `b`.
 */
import type { Filter, ValuePathFilter } from "../filter/filter-ast.js";
import type { ResolvedPath } from "../schema/resolved-path.js";

function ids(filter: Filter<ResolvedPath>): readonly string[] | undefined {
  switch (filter.kind) {
    case "compare":
      return filter.op === "eq" && filter.path.subAttribute?.name === "value" && typeof filter.value === "string"
        ? [filter.value]
        : undefined;
    case "or": {
      const parts = filter.filters.map(ids);
      return parts.every((part) => part !== undefined) ? [...new Set(parts.flat())] : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * The member ids a value filter on `members` selects, when it is `value eq "id"` or an `or` of
 * such comparisons; undefined for any other filter (`display eq "x"`, `value sw "a"`, `and`, `not`),
 * whose answer depends on member data that only a loaded member list has.
 */
export function memberIdsOfFilter(filter: ValuePathFilter<ResolvedPath>): readonly string[] | undefined {
  return ids(filter.filter);
}
