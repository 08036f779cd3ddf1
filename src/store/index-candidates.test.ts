import { describe, expect, it } from "vitest";
import { unwrap } from "../result.js";
import type { CompareFilter, Filter } from "../scim/filter/filter-ast.js";
import { compileFilter } from "../scim/filter/resolve-filter.js";
import { attribute } from "../scim/schema/attribute-definition.js";
import type { ResolvedPath } from "../scim/schema/resolved-path.js";
import { createSchemaRegistry, type ResourceSchema } from "../scim/schema/schema-registry.js";
import { candidateIds, indexKeyOf, indexKeysOf, type IndexKey } from "./index-candidates.js";

const BADGE_URN = "urn:example:params:scim:schemas:extension:badge:2.0:User";
const registry = createSchemaRegistry({
  schemas: [
    {
      id: BADGE_URN,
      name: "Badge",
      description: "A case-exact unique badge number",
      attributes: [attribute("badge", { caseExact: true, uniqueness: "server" })],
    },
  ],
  extensions: [{ resourceType: "User", schema: BADGE_URN, required: false }],
});
const users = registry.resourceType("User")!;
const groups = registry.resourceType("Group")!;

const filterOf = (text: string, schema: ResourceSchema = users): Filter<ResolvedPath> => unwrap(compileFilter(schema, text));

function comparisonOf(text: string, schema: ResourceSchema = users): CompareFilter<ResolvedPath> {
  const filter = filterOf(text, schema);
  if (filter.kind !== "compare") throw new Error(`${text} is no comparison`);
  return filter;
}

const keyOf = (text: string, schema?: ResourceSchema) => indexKeyOf(comparisonOf(text, schema));

/** What a store's indexes would hold; a key it does not list has no resource. */
const index: Readonly<Record<string, readonly string[]>> = {
  "id u1": ["u1"],
  "id u2": ["u2"],
  "id u3": ["u3"],
  "externalId E1": ["u1", "u2"],
  "externalId e1": ["u3"],
  "unique userName alice": ["u1"],
  "unique userName bob": ["u2"],
  "unique userName carol": ["u3"],
  [`unique ${BADGE_URN}:badge B-1`]: ["u1"],
};

const nameOf = (key: IndexKey): string => (key.index === "unique" ? `unique ${key.attribute} ${key.value}` : `${key.index} ${key.value}`);

/** `candidateIds` over `index`, with every key it asked for. */
function candidates(text: string): { readonly ids: readonly string[] | undefined; readonly asked: readonly string[] } {
  const asked: string[] = [];
  const ids = candidateIds(filterOf(text), (key) => {
    asked.push(nameOf(key));
    return index[nameOf(key)] ?? [];
  });
  return { ids, asked };
}

describe("indexKeyOf", () => {
  it("keys ids and externalIds exactly, since RFC 7643 §3.1 makes both caseExact", () => {
    expect(keyOf('id eq "U2"')).toEqual({ index: "id", value: "U2" });
    expect(keyOf('externalId eq "E1"')).toEqual({ index: "externalId", value: "E1" });
  });

  it("lower-cases the value of a unique attribute that is not caseExact, as uniqueKeysOf does", () => {
    expect(keyOf('userName eq "ALICE"')).toEqual({ index: "unique", attribute: "userName", value: "alice" });
    expect(keyOf('displayName eq "STAFF"', groups)).toEqual({ index: "unique", attribute: "displayName", value: "staff" });
  });

  it("keeps the case of a caseExact unique extension attribute and names it with its URN", () => {
    expect(keyOf(`${BADGE_URN}:badge eq "B-1"`)).toEqual({ index: "unique", attribute: `${BADGE_URN}:badge`, value: "B-1" });
  });

  it("leaves every other comparison to a scan", () => {
    for (const text of [
      'userName ne "alice"',
      'userName sw "a"',
      "userName eq null",
      'displayName eq "Alice"',
      'name.givenName eq "Alice"',
      'emails.value eq "a@example.com"',
      'meta.created eq "2024-01-01T00:00:00Z"',
    ]) {
      expect(keyOf(text), text).toBeUndefined();
    }
  });

  it("does not key an id or externalId a schema made case-insensitive: only a scan matches those", () => {
    const { path } = comparisonOf('externalId eq "E1"');
    for (const name of ["id", "externalId"]) {
      const relaxed = { ...path, attribute: { ...path.attribute, name, caseExact: false } };
      expect(indexKeyOf({ kind: "compare", path: relaxed, op: "eq", value: "E1" }), name).toBeUndefined();
    }
  });
});

describe("candidateIds", () => {
  it("answers an indexed comparison from the lookup, and [] when the index has nothing", () => {
    expect(candidates('externalId eq "E1"').ids).toEqual(["u1", "u2"]);
    expect(candidates('externalId eq "e1"').ids).toEqual(["u3"]);
    expect(candidates('userName eq "dave"').ids).toEqual([]);
  });

  it("leaves present, not and valuePath filters to a scan", () => {
    for (const text of ["userName pr", 'not (id eq "u1")', 'emails[type eq "work"]']) {
      expect(candidates(text), text).toEqual({ ids: undefined, asked: [] });
    }
  });

  it("narrows an and to its most selective indexed child", () => {
    expect(candidates('externalId eq "E1" and userName eq "bob"').ids).toEqual(["u2"]);
    expect(candidates('title eq "x" and externalId eq "E1"').ids).toEqual(["u1", "u2"]);
    expect(candidates('title eq "x" and nickName eq "y"').ids).toBeUndefined();
  });

  it("unions an or only when every child is indexed, and then asks for nothing", () => {
    expect(candidates('id eq "u3" or userName eq "alice" or id eq "u1"').ids).toEqual(["u3", "u1"]);
    expect(candidates('id eq "u3" or title eq "x"')).toEqual({ ids: undefined, asked: [] });
  });

  it("combines nested ands and ors", () => {
    expect(candidates('(id eq "u1" or id eq "u2") and externalId eq "E1"').ids).toEqual(["u1", "u2"]);
    expect(candidates('(id eq "u1" or title eq "x") and userName eq "carol"').ids).toEqual(["u3"]);
    expect(candidates('(userName eq "bob" and title eq "x") or id eq "u3"').ids).toEqual(["u2", "u3"]);
  });
});

describe("indexKeysOf", () => {
  it("lists the keys of the indexed comparisons, in order, and none for a hopeless or", () => {
    expect(indexKeysOf(filterOf('userName eq "Bob" and (id eq "u1" or externalId eq "E1") and title eq "x"'))).toEqual([
      { index: "unique", attribute: "userName", value: "bob" },
      { index: "id", value: "u1" },
      { index: "externalId", value: "E1" },
    ]);
    expect(indexKeysOf(filterOf('id eq "u1" or title eq "x"'))).toEqual([]);
    expect(indexKeysOf(filterOf('not (id eq "u1")'))).toEqual([]);
  });

  it("lists every key candidateIds asks for, so a store can fetch them all first", () => {
    for (const text of [
      'id eq "u1"',
      'userName eq "alice" and externalId eq "E1"',
      'id eq "u3" or userName eq "alice" or id eq "u1"',
      '(id eq "u1" or title eq "x") and userName eq "carol"',
      '(userName eq "bob" and title eq "x") or (id eq "u3" and externalId eq "e1")',
      'title eq "x" and (id eq "u1" or (userName eq "bob" and nickName pr))',
    ]) {
      const listed = indexKeysOf(filterOf(text)).map(nameOf);
      expect(listed.length, text).toBeGreaterThan(0);
      expect(listed, text).toEqual(expect.arrayContaining([...candidates(text).asked]));
    }
  });
});
