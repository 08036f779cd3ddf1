/**
 * The one definition of list order (RFC 7644 §3.4.2.3), shared by every store and by cursor
 * paging: what value a resource sorts by, how two values compare, and how ties break.
 */
import { isPlainObject, type ScimObject } from "../schema/normalize-value.js";
import { readAttribute } from "../schema/resource-access.js";
import { leafOf, type ResolvedPath } from "../schema/resolved-path.js";

/**
 * The value a resource sorts by: a string (lower-cased when the attribute is not caseExact, so
 * stores compare it exactly), a number, a boolean, or null when the resource has no value.
 */
export type SortKey = string | number | boolean | null;

/** A resource's place in a list: its sort key and its id, the tie-breaker. */
export interface ListEntry {
  readonly key: SortKey;
  readonly id: string;
}

function elementOf(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  // RFC 7644 §3.4.2.3: a multi-valued attribute sorts by its primary value, else its first.
  return value.find((element) => isPlainObject(element) && element.primary === true) ?? value[0];
}

/** The sort key of `resource` (in the form `resourceView` gives) for `path`. */
export function sortKeyOf(resource: ScimObject, path: ResolvedPath): SortKey {
  let value = elementOf(readAttribute(resource, path));
  if (isPlainObject(value)) value = value[path.subAttribute?.name ?? "value"];
  if (typeof value === "number" || typeof value === "boolean") return value;
  if (typeof value !== "string") return null;
  return leafOf(path).caseExact ? value : value.toLowerCase();
}

const rank = { boolean: 0, number: 1, string: 2 } as const;

/**
 * Orders two sort keys ascending: present values before null; booleans false before true,
 * numbers by value, strings by UTF-16 code unit (ISO 8601 dateTimes, stored in one form, sort
 * chronologically that way). Keys of one attribute share a type; mixed types order by type.
 */
export function compareSortKeys(a: SortKey, b: SortKey): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  const typeA = typeof a as keyof typeof rank;
  const typeB = typeof b as keyof typeof rank;
  if (typeA !== typeB) return rank[typeA] - rank[typeB];
  return a < b ? -1 : 1;
}

/**
 * The list order every store follows: by key in the requested order, then by id ascending.
 * Descending reverses only the key, so a missing value comes first there and ids still break ties
 * the same way, which keeps cursor positions unambiguous.
 */
export function compareListEntries(a: ListEntry, b: ListEntry, order: "ascending" | "descending" = "ascending"): number {
  const byKey = compareSortKeys(a.key, b.key);
  if (byKey !== 0) return order === "descending" ? -byKey : byKey;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
