/**
 * The filter AST (RFC 7644 §3.4.2.2) as readonly data, discriminated by `kind`.
 *
 * It is generic over how an attribute path is held: the parser produces `Filter<string>` (paths
 * exactly as written), `resolveFilter` binds every path to the schema and produces
 * `Filter<ResolvedPath>`. Evaluation in memory and compilation to SQL are separate consumers that
 * switch on `kind` exhaustively.
 */
import type { ResolvedPath } from "../schema/resolved-path.js";

/** RFC 7644 §3.4.2.2 Table 3 comparison operators. */
export type CompareOperator = "eq" | "ne" | "co" | "sw" | "ew" | "gt" | "lt" | "ge" | "le";

/** A comparison value: a JSON literal (RFC 7644 §3.4.2.2 `compValue`). */
export type FilterValue = string | number | boolean | null;

/** `path op value`. */
export interface CompareFilter<P> {
  readonly kind: "compare";
  readonly path: P;
  readonly op: CompareOperator;
  readonly value: FilterValue;
}

/** `path pr`. */
export interface PresentFilter<P> {
  readonly kind: "present";
  readonly path: P;
}

/** `a and b and …` — n-ary so that long chains stay shallow. */
export interface AndFilter<P> {
  readonly kind: "and";
  readonly filters: readonly Filter<P>[];
}

/** `a or b or …` — n-ary so that long chains stay shallow. */
export interface OrFilter<P> {
  readonly kind: "or";
  readonly filters: readonly Filter<P>[];
}

/** `not (filter)`. */
export interface NotFilter<P> {
  readonly kind: "not";
  readonly filter: Filter<P>;
}

/**
 * `attr[filter]`: true when one element of the multi-valued complex attribute `path` satisfies
 * `filter` on its own. The paths inside `filter` name sub-attributes of that element; after
 * resolution they are full paths (`emails.type`). `emails[type eq "work"].value ew "x"` parses to
 * a valuePath whose filter is `type eq "work" and value ew "x"`, both on the same element.
 */
export interface ValuePathFilter<P> {
  readonly kind: "valuePath";
  readonly path: P;
  readonly filter: Filter<P>;
}

export type Filter<P = ResolvedPath> = CompareFilter<P> | PresentFilter<P> | AndFilter<P> | OrFilter<P> | NotFilter<P> | ValuePathFilter<P>;

/** A filter as parsed, before its paths are bound to a schema. */
export type ParsedFilter = Filter<string>;

/** The filter kinds, for exhaustive switches in consumers. */
export type FilterKind = Filter["kind"];
