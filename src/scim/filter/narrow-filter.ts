/**
 * A filter of a search across resource types (RFC 7644 §3.4.2.1, a query at the service root)
 * narrowed to one of them: every comparison of an attribute the type does not define is decided
 * in advance, as the RFC asks — "For filtered attributes that are not part of a particular
 * resource type, the service provider SHALL treat the attribute as if there is no attribute value.
 * For example, a presence or equality filter for an undefined attribute evaluates to false." — and
 * folded away, so what remains binds to the type's schema like any per-type filter.
 */
import type { ResourceSchema } from "../schema/schema-registry.js";
import type { Filter, ParsedFilter } from "./filter-ast.js";

/** What is left of a filter for one resource type. */
export interface NarrowedFilter {
  /**
   * The filter without a path the type lacks, to bind with `resolveFilter`; `true` when it holds
   * for every resource of the type, `false` when for none (the type can be left out of the search).
   */
  readonly filter: ParsedFilter | boolean;
  /** The paths, as written (`attr.sub` inside `attr[…]`), that the type does not define. */
  readonly unknownPaths: ReadonlySet<string>;
}

/**
 * The value of a test on an attribute that has no value, as `matchesFilter` decides it for a
 * resource without the attribute: equality with anything but null fails, so `ne` holds; `eq null`
 * holds; `pr`, substrings and orderings fail.
 */
function testOfAbsent(filter: Filter<string>): boolean {
  if (filter.kind === "present") return false;
  if (filter.kind !== "compare") throw new Error(`testOfAbsent: not a leaf (${filter.kind})`);
  if (filter.op === "eq") return filter.value === null;
  if (filter.op === "ne") return filter.value !== null;
  return false;
}

/**
 * `filter` for the resource type `schema`: leaves on paths the type does not define become the
 * constant they evaluate to, and `and`, `or`, `not` and `attr[…]` fold around the constants. An
 * `attr[…]` whose inner filter holds for any element becomes `attr pr`.
 */
export function narrowFilter(schema: ResourceSchema, filter: ParsedFilter): NarrowedFilter {
  const unknownPaths = new Set<string>();
  const defines = (path: string): boolean => {
    if (schema.resolvePath(path).ok) return true;
    unknownPaths.add(path);
    return false;
  };

  const narrow = (node: ParsedFilter, within: string | undefined): ParsedFilter | boolean => {
    switch (node.kind) {
      case "compare":
      case "present":
        return defines(within === undefined ? node.path : `${within}.${node.path}`) ? node : testOfAbsent(node);
      case "and":
      case "or": {
        // `and` is decided by a false operand and ignores true ones; `or` the other way round.
        // Every operand is narrowed, decided or not, so that each unknown path is reported.
        const decisive = node.kind === "or";
        const kept: ParsedFilter[] = [];
        let decided = false;
        for (const child of node.filters) {
          const narrowed = narrow(child, within);
          if (typeof narrowed !== "boolean") kept.push(narrowed);
          else if (narrowed === decisive) decided = true;
        }
        if (decided) return decisive;
        if (kept.length === 0) return !decisive;
        const [only] = kept;
        return kept.length === 1 && only ? only : { kind: node.kind, filters: kept };
      }
      case "not": {
        const inner = narrow(node.filter, within);
        return typeof inner === "boolean" ? !inner : { kind: "not", filter: inner };
      }
      case "valuePath": {
        const defined = defines(node.path);
        const inner = narrow(node.filter, node.path);
        // An attribute with no value has no element to satisfy anything.
        if (!defined) return false;
        if (inner === false) return false;
        if (inner === true) return { kind: "present", path: node.path };
        return { kind: "valuePath", path: node.path, filter: inner };
      }
    }
  };

  return { filter: narrow(filter, undefined), unknownPaths };
}
