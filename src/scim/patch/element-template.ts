/**
 * The value a value filter describes: `emails[type eq "work"]` describes `{type: "work"}`. Used when
 * an add or replace names a filtered path that matches nothing and the element has to be created.
 */
import type { Filter, ValuePathFilter } from "../filter/filter-ast.js";
import type { ScimObject } from "../schema/normalize-value.js";
import type { ResolvedPath } from "../schema/resolved-path.js";

/** The `sub eq value` conditions of a conjunction, or undefined when the filter is anything else. */
function equalities(filter: Filter<ResolvedPath>): readonly (readonly [string, unknown])[] | undefined {
  switch (filter.kind) {
    case "compare": {
      const sub = filter.path.subAttribute;
      if (filter.op !== "eq" || filter.value === null || !sub) return undefined;
      return [[sub.name, filter.value]];
    }
    case "and": {
      const parts = filter.filters.map(equalities);
      return parts.every((part) => part !== undefined) ? parts.flat() : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * The element a value filter pins down, when it is a conjunction of `eq` comparisons with non-null
 * values on distinct sub-attributes (`addresses[type eq "work" and primary eq true]` →
 * `{type: "work", primary: true}`); undefined for any other filter (`ne`, `co`, `or`, `pr`, `not`,
 * or two different values for one sub-attribute), because no single element follows from it.
 * Values are already typed and canonical: `resolveFilter` normalized them.
 */
export function elementTemplate(filter: ValuePathFilter<ResolvedPath>): ScimObject | undefined {
  const conditions = equalities(filter.filter);
  if (!conditions) return undefined;
  const element: ScimObject = {};
  for (const [name, value] of conditions) {
    if (Object.hasOwn(element, name) && element[name] !== value) return undefined;
    element[name] = value;
  }
  return element;
}
