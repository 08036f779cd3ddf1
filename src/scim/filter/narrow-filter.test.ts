/**
 * `narrowFilter` (RFC 7644 §3.4.2.1): a filter of a root search decided for one resource type.
 * The property: for a Group, the narrowed filter answers as the whole filter does when every
 * attribute the Group lacks has no value — which is how the filter, bound to the User schema,
 * reads a Group's JSON.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { unwrap } from "../../result.js";
import type { ScimObject } from "../schema/normalize-value.js";
import { createSchemaRegistry } from "../schema/schema-registry.js";
import type { ParsedFilter } from "./filter-ast.js";
import { matchesFilter } from "./matches-filter.js";
import { narrowFilter } from "./narrow-filter.js";
import { parseFilter } from "./parse-filter.js";
import { resolveFilter } from "./resolve-filter.js";

const registry = createSchemaRegistry();
const users = registry.resourceType("User")!;
const groups = registry.resourceType("Group")!;

function parsed(text: string): ParsedFilter {
  return unwrap(parseFilter(text));
}

/** The narrowed filter of `text` for groups, printed back as the test reads it. */
function forGroups(text: string): ParsedFilter | boolean {
  return narrowFilter(groups, parsed(text)).filter;
}

describe("narrowFilter", () => {
  it("keeps a filter whose every path the type defines, unchanged", () => {
    const filter = parsed('userName eq "a" and (emails[type eq "work"] or not (title pr))');
    const narrowed = narrowFilter(users, filter);
    expect(narrowed.filter).toEqual(filter);
    expect([...narrowed.unknownPaths]).toEqual([]);
  });

  it("decides a leaf the type lacks as a test of no value: eq and pr false, ne and eq null true", () => {
    expect(forGroups('userName eq "a"')).toBe(false);
    expect(forGroups("userName pr")).toBe(false);
    expect(forGroups('userName sw "a"')).toBe(false);
    expect(forGroups("userName eq null")).toBe(true);
    expect(forGroups('userName ne "a"')).toBe(true);
    expect(forGroups("userName ne null")).toBe(false);
    expect(forGroups("not (userName pr)")).toBe(true);
  });

  it("folds and, or and not around the decided leaves", () => {
    expect(forGroups('userName eq "a" or displayName eq "b"')).toEqual(parsed('displayName eq "b"'));
    expect(forGroups('userName eq "a" and displayName eq "b"')).toBe(false);
    expect(forGroups('not (userName eq "a") and displayName eq "b" and externalId pr')).toEqual(
      parsed('displayName eq "b" and externalId pr'),
    );
    expect(forGroups('not (userName eq "a" or displayName eq "b")')).toEqual(parsed('not (displayName eq "b")'));
  });

  it("decides a value path on an attribute the type lacks, or on a sub-attribute its elements lack", () => {
    expect(forGroups('emails[type eq "work"]')).toBe(false);
    expect(forGroups('members[value eq "x" and nothing eq "y"]')).toBe(false);
    // An element satisfies `not (nothing pr)` whatever it holds: some element is enough.
    expect(forGroups("members[not (nothing pr)]")).toEqual(parsed("members pr"));
    expect(forGroups('members[value eq "x" or nothing eq "y"]')).toEqual(parsed('members[value eq "x"]'));
  });

  it("reports every path the type does not define, as written", () => {
    const { unknownPaths } = narrowFilter(groups, parsed('userName eq "a" or members[nothing pr] or name.givenName sw "x"'));
    expect([...unknownPaths].sort()).toEqual(["members.nothing", "name.givenName", "userName"]);
    // Including those behind an operand that already decides, and inside `attr[…]` on an attribute the type lacks.
    const decided = narrowFilter(groups, parsed('userName eq "a" and (shoeSize gt 3 or emails[nothing pr])'));
    expect(decided.filter).toBe(false);
    expect([...decided.unknownPaths].sort()).toEqual(["emails", "emails.nothing", "shoeSize", "userName"]);
  });

  const group: fc.Arbitrary<ScimObject> = fc.record(
    {
      id: fc.constantFrom("g1", "g2"),
      displayName: fc.constantFrom("Admins", "Bakers"),
      externalId: fc.constantFrom("x1", "x2"),
      members: fc.array(fc.record({ value: fc.constantFrom("u1", "u2"), type: fc.constant("User") }), { maxLength: 2 }),
    },
    { requiredKeys: ["id"] },
  );
  const leaf = fc.constantFrom(
    'userName eq "a"',
    "userName pr",
    "userName eq null",
    'userName ne "a"',
    'title sw "x"',
    'emails[type eq "work"]',
    'displayName eq "Admins"',
    'displayName co "a"',
    "displayName eq null",
    "externalId pr",
    'externalId ne "x1"',
    'id eq "g1"',
  );
  const filter: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      fc.tuple(tie("node"), fc.constantFrom("and", "or"), tie("node")).map(([a, op, b]) => `(${a}) ${op} (${b})`),
      tie("node").map((inner) => `not (${inner})`),
    ),
  })).node;

  it("answers for a Group as the whole filter does when the Group's missing attributes have no value", () => {
    fc.assert(
      fc.property(filter, group, (text, resource) => {
        // Every leaf path is a User's, so bound to User the filter reads a Group's JSON with the Group's gaps.
        const expected = matchesFilter(resource, unwrap(resolveFilter(users, parsed(text))));
        const narrowed = narrowFilter(groups, parsed(text)).filter;
        const actual = typeof narrowed === "boolean" ? narrowed : matchesFilter(resource, unwrap(resolveFilter(groups, narrowed)));
        expect(actual).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});
