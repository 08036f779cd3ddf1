/**
 * A cheap condition a filter implies, for the planner to start from: where the dialect keeps a
 * search text (`FilterDialect.searchContains`: PostgreSQL's trigram-indexed column
 * `emails_search`, SQLite's FTS5 trigram table `scimkit_emails_search`),
 * `emails.value co "@dept7."` — alone, or inside `emails[type eq "work" and value co "@dept7."]` —
 * implies that the text contains `@dept7.`, and that test reads a few index pages instead of
 * every row's JSON. The compiler ANDs it with the exact condition, which still decides every
 * match, so the prefilter only has to be true wherever the exact condition is.
 */
import type { CompareFilter, Filter } from "../../../scim/filter/filter-ast.js";
import type { ResolvedPath } from "../../../scim/schema/resolved-path.js";
import { allOf, anyOf, sqlCondition, type Condition } from "./sql-condition.js";
import type { CompileScope } from "./sql-filter-context.js";

// JSON escapes `"`, `\` and the control characters — PostgreSQL's and SQLite's JSON exactly these,
// and nothing else — so the search text does not hold them as the value does; and σ/ς fold by
// context, which escaping changes (`\nΣ` folds to `\nς` as text, to `\nσ` as a value). A needle
// with any of them gets no prefilter.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are among what the prefilter cannot match safely.
const UNSAFE = /["\\\u0000-\u001f\u03a3\u03c2\u03c3]/;

/**
 * The needle as it appears in the search text for `op`: each value sits between double quotes, so an
 * equality is `"needle"`, a prefix `"needle`, a suffix `needle"`.
 */
const SEARCH_TEXT: Readonly<Record<string, (needle: string) => string>> = {
  eq: (needle) => `"${needle}"`,
  sw: (needle) => `"${needle}`,
  ew: (needle) => `${needle}"`,
  co: (needle) => needle,
};

/** What `path op value` implies about the resource's search text, or true when nothing. */
function comparePrefilter(scope: CompileScope, { path, op, value }: CompareFilter<ResolvedPath>): Condition {
  const text = SEARCH_TEXT[op];
  const sub = path.subAttribute;
  if (!text || typeof value !== "string" || path.extension || !sub) return true;
  // Only where the exact condition folds case (caseExact false) and reads strings, as the text does.
  if (sub.caseExact || (sub.type !== "string" && sub.type !== "reference")) return true;
  // The compiler folds the filter value as `matchesFilter` does.
  const needle = value.toLowerCase();
  if (needle === "" || UNSAFE.test(needle)) return true;
  const test = scope.dialect.searchContains?.(scope.resource, path.attribute.name, sub.name, text(needle));
  // Nullable: the test is never NULL, but a negation above must not depend on it.
  return test === undefined ? true : sqlCondition(test, true);
}

/**
 * A condition over the resource row that holds wherever `filter` matches, built from the
 * dialect's search text, or true when the filter implies nothing about it: a comparison
 * implies its search test whether it reads the resource (`emails.value co "x"`) or one element
 * inside `emails[…]` (that element's value is among the resource's); `and` implies all its
 * children imply, `or` the disjunction when every branch implies something; `not` and `pr`
 * imply nothing. A comparison of `emails.value` inside another attribute's brackets never holds,
 * so what it would imply is vacuously true.
 */
export function searchPrefilter(scope: CompileScope, filter: Filter<ResolvedPath>): Condition {
  if (!scope.dialect.searchContains) return true;
  switch (filter.kind) {
    case "compare":
      return comparePrefilter(scope, filter);
    case "and":
      return allOf(filter.filters.map((child) => searchPrefilter(scope, child)));
    case "or":
      // A branch that implies nothing (true) makes the whole disjunction true.
      return anyOf(filter.filters.map((child) => searchPrefilter(scope, child)));
    case "valuePath":
      return searchPrefilter(scope, filter.filter);
    case "not":
    case "present":
      return true;
  }
}
