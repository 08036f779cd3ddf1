/**
 * Hash keys for the `eq` comparison of the filter evaluator: two values of one attribute are `eq`
 * exactly when their keys are equal. With them an `eq` value filter finds its elements in a map
 * instead of comparing with each one (architecture §4b).
 */
import type { AttributeDefinition } from "../schema/attribute-definition.js";
import { parseDateTime } from "../schema/normalize-value.js";
import type { FilterValue } from "./filter-ast.js";

/**
 * The key of one value of `leaf` as `matchesFilter` compares it with `eq`, or undefined when the
 * value equals nothing (wrong JSON type, an unparsable dateTime, any complex value). Strings are
 * folded unless caseExact (RFC 7643 §2.3.1; binary is always case-exact, RFC 7643 §2.3.6),
 * dateTimes keyed by instant (RFC 7644 §3.4.2.2: they compare chronologically).
 */
export function equalityKey(value: unknown, leaf: AttributeDefinition): string | undefined {
  switch (leaf.type) {
    case "string":
    case "reference":
    case "binary":
      if (typeof value !== "string") return undefined;
      return `s${leaf.caseExact || leaf.type === "binary" ? value : value.toLowerCase()}`;
    case "dateTime": {
      const instant = typeof value === "string" ? parseDateTime(value) : undefined;
      return instant === undefined ? undefined : `d${instant}`;
    }
    case "boolean":
      return typeof value === "boolean" ? `b${String(value)}` : undefined;
    case "integer":
    case "decimal":
      // String(-0) is "0": the evaluator's subtraction finds them equal too.
      return typeof value === "number" && Number.isFinite(value) ? `n${String(value)}` : undefined;
    case "complex":
      return undefined;
  }
}

/** The keys of a sub-attribute value: one per element when it is an array, as the evaluator reads it. */
export function equalityKeys(value: unknown, leaf: AttributeDefinition): string[] {
  const values = Array.isArray(value) ? value : [value];
  return values.flatMap((candidate: unknown) => {
    const key = equalityKey(candidate, leaf);
    return key === undefined ? [] : [key];
  });
}

/** The key a filter's comparison value must match; undefined when `attr eq value` can hold for no value. */
export function filterEqualityKey(value: FilterValue, leaf: AttributeDefinition): string | undefined {
  return value === null ? undefined : equalityKey(value, leaf);
}
