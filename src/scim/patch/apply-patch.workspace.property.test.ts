/**
 * One PATCH works on each multi-valued attribute as an indexed list kept across its operations
 * (architecture §4b). Whatever the operations, that must answer as applying them one request at a time
 * does, where every operation starts from a fresh read of the attribute: same resource, same
 * success or failure.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fuzzParameters, PROPERTY_TIMEOUT } from "../fuzz.fixture.js";
import type { ScimObject } from "../schema/normalize-value.js";
import { applyPatch } from "./apply-patch.js";
import { PATCH_OP, users } from "./patch.fixture.js";

const value = fc.constantFrom("a@x", "b@x", "A@x", "c@x", "d@x");
const type = fc.constantFrom("work", "home", "Work", "other");
const email = fc.record({ value, type, primary: fc.boolean() }, { requiredKeys: ["value"] });
const operation = fc.oneof(
  // Changes the compared sub-attribute of the elements it selects.
  fc.record({ op: fc.constant("replace"), path: value.map((v) => `emails[value eq "${v}"].value`), value }),
  fc.record({ op: fc.constant("replace"), path: type.map((t) => `emails[type eq "${t}"].type`), value: type }),
  // Moves primary.
  fc.record({ op: fc.constant("replace"), path: value.map((v) => `emails[value eq "${v}"].primary`), value: fc.boolean() }),
  fc.record({
    op: fc.constantFrom("add", "replace"),
    path: fc.tuple(value, type).map(([v, t]) => `emails[value eq "${v}" and type eq "${t}"]`),
    value: fc.record({ primary: fc.boolean() }),
  }),
  // Removes elements, by filter and by value.
  fc.record({ op: fc.constant("remove"), path: fc.tuple(value, type).map(([v, t]) => `emails[value eq "${v}" or type eq "${t}"]`) }),
  fc.record({ op: fc.constant("remove"), path: fc.constant("emails"), value: fc.array(fc.record({ value }), { maxLength: 2 }) }),
  // Adds elements, some already present.
  fc.record({ op: fc.constant("add"), path: fc.constant("emails"), value: fc.array(email, { maxLength: 3 }) }),
  fc.record({ op: fc.constant("replace"), path: fc.constant("emails"), value: fc.array(email, { maxLength: 2 }) }),
  // Scans rather than looks up.
  fc.record({ op: fc.constant("replace"), path: fc.constant('emails[value sw "a"].type'), value: type }),
  fc.record({ op: fc.constant("remove"), path: fc.constant("emails.primary") }),
);

function body(operations: readonly unknown[]): unknown {
  return { schemas: [PATCH_OP], Operations: operations };
}

describe("a PATCH's working lists", () => {
  it(
    "answer as the same operations applied one request at a time",
    () => {
      fc.assert(
        fc.property(
          fc.uniqueArray(email, { maxLength: 5, selector: (element) => `${element.value}|${element.type ?? ""}` }),
          fc.array(operation, { minLength: 1, maxLength: 12 }),
          (initial, operations) => {
            // At most one primary, as any stored resource has.
            const seeded = initial.map((element, index) => ({ ...element, primary: index === 0 && element.primary === true }));
            const resource: ScimObject = { userName: "bjensen", emails: seeded };
            const together = applyPatch(users, resource, body(operations));
            let current: ScimObject | undefined = resource;
            for (const single of operations) {
              const step = applyPatch(users, current, body([single]));
              if (!step.ok) {
                current = undefined;
                break;
              }
              current = step.value.resource;
            }
            expect(together.ok).toBe(current !== undefined);
            if (together.ok && current) expect(together.value.resource).toEqual(current);
          },
        ),
        fuzzParameters(400),
      );
    },
    PROPERTY_TIMEOUT,
  );
});
