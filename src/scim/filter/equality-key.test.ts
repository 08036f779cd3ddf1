import { describe, expect, it } from "vitest";
import { attribute, type AttributeDefinition } from "../schema/attribute-definition.js";
import type { ResolvedPath } from "../schema/resolved-path.js";
import { equalityKey, equalityKeys, filterEqualityKey } from "./equality-key.js";
import type { FilterValue } from "./filter-ast.js";
import { matchesFilter } from "./matches-filter.js";

/** What the evaluator answers for `attr eq target` on a resource whose `attr` is `value`. */
function evaluatorSaysEqual(leaf: AttributeDefinition, value: unknown, target: FilterValue): boolean {
  const path: ResolvedPath = { schema: "urn:test", extension: false, attribute: leaf };
  return matchesFilter({ [leaf.name]: value }, { kind: "compare", path, op: "eq", value: target });
}

const values: readonly unknown[] = [
  "Work",
  "work",
  "WORK",
  "wörk",
  "",
  "1",
  1,
  0,
  -0,
  1.5,
  true,
  false,
  null,
  "2025-01-31T12:00:00Z",
  "2025-01-31T13:00:00+01:00",
  "2025-01-31T12:00:00.000Z",
  "not a date",
  {},
  [],
  ["x"],
];
const leaves: readonly AttributeDefinition[] = [
  attribute("s"),
  attribute("exact", { caseExact: true }),
  attribute("bin", { type: "binary" }),
  attribute("ref", { type: "reference" }),
  attribute("when", { type: "dateTime" }),
  attribute("flag", { type: "boolean" }),
  attribute("count", { type: "integer" }),
  attribute("ratio", { type: "decimal" }),
];
// `eq null` holds for an absent value, which no key names: an element index never answers it.
const targets: readonly FilterValue[] = values.filter((value): value is FilterValue => value !== null && typeof value !== "object");

describe("equalityKey", () => {
  it.each(leaves.map((leaf) => [leaf.type, leaf.caseExact, leaf] as const))(
    "%s (caseExact %s): equal keys exactly when the evaluator finds eq",
    (_type, _caseExact, leaf) => {
      for (const value of values) {
        for (const target of targets) {
          const key = equalityKey(value, leaf);
          const wanted = filterEqualityKey(target, leaf);
          const byKeys = key !== undefined && wanted !== undefined && key === wanted;
          expect(byKeys, `${JSON.stringify(value)} eq ${JSON.stringify(target)}`).toBe(evaluatorSaysEqual(leaf, value, target));
        }
      }
    },
  );

  it("folds case unless caseExact, and keys dateTimes by instant", () => {
    expect(equalityKey("Work", attribute("type"))).toBe(equalityKey("work", attribute("type")));
    expect(equalityKey("Work", attribute("id", { caseExact: true }))).not.toBe(equalityKey("work", attribute("id", { caseExact: true })));
    const when = attribute("when", { type: "dateTime" });
    expect(equalityKey("2025-01-31T13:00:00+01:00", when)).toBe(equalityKey("2025-01-31T12:00:00Z", when));
  });

  it("keys every element of an array value, as the evaluator reads one", () => {
    expect(equalityKeys(["A", 3, "b"], attribute("tags"))).toEqual(["sa", "sb"]);
    expect(filterEqualityKey(null, attribute("tags"))).toBeUndefined();
  });
});
