/**
 * Properties of the filter parser, binder and evaluator (RFC 7644 §3.4.2.2) over generated and
 * mutated filters: valid filters compile, anything else fails as a 400 `invalidFilter` and never
 * throws, the nesting and length guards hold exactly, and evaluation neither throws nor writes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ScimType } from "../../errors.js";
import { unwrap } from "../../result.js";
import {
  anyText,
  deepFreeze,
  expectPristinePrototypes,
  expectScimFailure,
  fuzzParameters,
  PROPERTY_TIMEOUT,
  hostileFragment,
  mutatedJson,
  mutatedText,
} from "../fuzz.fixture.js";
import { ENTERPRISE_URN, sampleUserBody } from "../sample-resources.fixture.js";
import { normalizeResource } from "../schema/normalize-resource.js";
import { isPlainObject } from "../schema/normalize-value.js";
import { TEST_URN, testUsers } from "./filter-schema.fixture.js";
import { matchesFilter } from "./matches-filter.js";
import { parseFilter } from "./parse-filter.js";
import { compileFilter, resolveFilter } from "./resolve-filter.js";

type LeafType = "string" | "whole" | "boolean" | "dateTime" | "integer" | "decimal" | "binary";

/** Attribute paths of the test User type, by the type their comparisons take. */
const LEAVES: readonly (readonly [string, LeafType])[] = [
  ["userName", "string"],
  ["USERNAME", "string"],
  ["name.givenName", "string"],
  ["emails.value", "string"],
  ["emails", "whole"],
  ["emails.primary", "boolean"],
  ["active", "boolean"],
  ["meta.lastModified", "dateTime"],
  ["externalId", "string"],
  ["id", "string"],
  ["title", "string"],
  [`${ENTERPRISE_URN}:department`, "string"],
  [`${ENTERPRISE_URN}:manager.value`, "string"],
  [`${TEST_URN}:level`, "integer"],
  [`${TEST_URN}:score`, "decimal"],
  [`${TEST_URN}:hiredAt`, "dateTime"],
  [`${TEST_URN}:fingerprint`, "binary"],
  [`${TEST_URN}:tags`, "string"],
  ["devices.serial", "string"],
];

/** Sub-attributes usable inside `attr[…]`, per multi-valued complex attribute. */
const VALUE_PATHS: readonly (readonly [string, readonly (readonly [string, LeafType])[]])[] = [
  [
    "emails",
    [
      ["type", "string"],
      ["value", "string"],
      ["primary", "boolean"],
      ["display", "string"],
    ],
  ],
  [
    "addresses",
    [
      ["country", "string"],
      ["locality", "string"],
      ["primary", "boolean"],
    ],
  ],
  [
    "devices",
    [
      ["serial", "string"],
      ["trusted", "boolean"],
      ["lastSeen", "dateTime"],
    ],
  ],
];

// RFC 7644 §3.4.2.2 Table 3: which operators each attribute type supports.
const OPERATORS: Readonly<Record<LeafType, readonly string[]>> = {
  string: ["eq", "ne", "co", "sw", "ew", "gt", "lt", "ge", "le"],
  whole: ["eq", "ne", "co", "sw", "ew"],
  boolean: ["eq", "ne"],
  dateTime: ["eq", "ne", "gt", "lt", "ge", "le"],
  integer: ["eq", "ne", "gt", "lt", "ge", "le"],
  decimal: ["eq", "ne", "gt", "lt", "ge", "le"],
  binary: ["eq", "ne"],
};

function literalOf(type: LeafType): fc.Arbitrary<string> {
  switch (type) {
    case "string":
    case "whole":
    case "binary":
      return fc.string({ unit: "binary", maxLength: 20 }).map((text) => JSON.stringify(text));
    case "boolean":
      return fc.constantFrom("true", "false", "TRUE", '"True"', '"false"');
    case "dateTime":
      return fc
        .date({ min: new Date("1900-01-01T00:00:00Z"), max: new Date("2200-01-01T00:00:00Z"), noInvalidDate: true })
        .map((date) => `"${date.toISOString()}"`);
    case "integer":
      return fc.integer().map(String);
    case "decimal":
      return fc.double({ noNaN: true, noDefaultInfinity: true }).map(String);
  }
}

function comparison(leaves: readonly (readonly [string, LeafType])[]): fc.Arbitrary<string> {
  return fc.constantFrom(...leaves).chain(([path, type]) =>
    fc.oneof(
      fc.tuple(fc.constantFrom(...OPERATORS[type]), literalOf(type)).map(([op, value]) => `${path} ${op} ${value}`),
      fc.constantFrom(`${path} pr`, `${path} PR`, `${path} eq null`, `${path} ne null`),
    ),
  );
}

/** Filters the grammar accepts and the schema binds: comparisons joined by and/or/not/groups. */
function validFilter(leaves: readonly (readonly [string, LeafType])[], valuePaths: boolean): fc.Arbitrary<string> {
  const { filter } = fc.letrec<{ filter: string }>((tie) => ({
    filter: fc.oneof(
      { maxDepth: 4, depthIdentifier: valuePaths ? "outer" : "inner" },
      comparison(leaves),
      fc.tuple(tie("filter"), fc.constantFrom("and", "AND", "or", "Or"), tie("filter")).map(([a, word, b]) => `${a} ${word} ${b}`),
      tie("filter").map((inner) => `(${inner})`),
      tie("filter").map((inner) => `not (${inner})`),
      ...(valuePaths
        ? [
            fc
              .constantFrom(...VALUE_PATHS)
              .chain(([attribute, subs]) =>
                fc
                  .tuple(validFilter(subs, false), fc.option(comparison(subs), { nil: undefined }))
                  .map(([inner, after]) => (after === undefined ? `${attribute}[${inner}]` : `${attribute}[${inner}].${after}`)),
              ),
          ]
        : []),
    ),
  }));
  return filter;
}

const valid = validFilter(LEAVES, true);

/** A user in canonical form, carrying values for most generated paths. */
const storedUser = deepFreeze({
  ...unwrap(normalizeResource(testUsers, sampleUserBody())),
  id: "2819c223-7f76-453a-919d-413861904646",
  meta: { resourceType: "User", created: "2010-01-23T04:56:22.000Z", lastModified: "2011-05-13T04:42:34.000Z" },
});

const expectInvalidFilter = (text: string): void => {
  const result = compileFilter(testUsers, text);
  expectScimFailure(result, [ScimType.invalidFilter]);
};

describe("filter properties", { timeout: PROPERTY_TIMEOUT }, () => {
  it("every generated valid filter parses and binds", () => {
    fc.assert(
      fc.property(valid, (text) => {
        const parsed = parseFilter(text);
        if (!parsed.ok) throw new Error(`${text}: ${parsed.error.detail}`);
        const compiled = compileFilter(testUsers, text);
        if (!compiled.ok) throw new Error(`${text}: ${compiled.error.detail}`);
      }),
      fuzzParameters(300),
    );
  });

  it("any text either compiles or fails with 400 invalidFilter, never an exception", () => {
    fc.assert(fc.property(anyText, expectInvalidFilter), fuzzParameters(500));
  });

  it("mutated valid filters (truncated, spliced, swapped, nested, inflated) compile or fail with invalidFilter", () => {
    fc.assert(fc.property(mutatedText(valid), expectInvalidFilter), fuzzParameters(500));
  });

  it("nesting is accepted up to maxDepth and refused past it, however it is spelled", () => {
    const layer = fc.constantFrom("paren", "not");
    fc.assert(
      fc.property(fc.array(layer, { maxLength: 80 }), fc.boolean(), fc.integer({ min: 1, max: 40 }), (layers, bracket, maxDepth) => {
        // RFC 7644 §3.4.2.2 nests through "(", "not (" and "attr[": each counts one level.
        const core = bracket ? 'emails[type eq "work"]' : 'userName eq "x"';
        const text = layers.reduceRight((inner, kind) => (kind === "paren" ? `(${inner})` : `not (${inner})`), core);
        const depth = layers.length + (bracket ? 1 : 0);
        const result = parseFilter(text, { maxDepth, maxLength: 100_000 });
        expect(result.ok).toBe(depth <= maxDepth);
        expectScimFailure(result, [ScimType.invalidFilter]);
      }),
      fuzzParameters(300),
    );
  });

  it("a filter longer than maxLength is refused before it is read, whatever it holds", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 400 }), hostileFragment, (maxLength, fragment) => {
        const text = `userName eq "${"x".repeat(maxLength)}${fragment}"`;
        const result = parseFilter(text, { maxLength });
        expect(result.ok).toBe(false);
        expectScimFailure(result, [ScimType.invalidFilter]);
      }),
      fuzzParameters(100),
    );
  });

  it("binding never writes into the parsed filter, and evaluation never throws or writes into the resource", () => {
    const resources = fc.oneof(
      fc.constant(storedUser),
      mutatedJson(fc.constant(storedUser)).filter(isPlainObject),
      fc.dictionary(
        fc.constantFrom("userName", "emails", "name", "active", "meta", TEST_URN, ENTERPRISE_URN, "__proto__"),
        fc.jsonValue({ maxDepth: 3 }),
      ),
    );
    fc.assert(
      fc.property(valid, resources, (text, resource) => {
        const parsed = parseFilter(text);
        if (!parsed.ok) throw new Error(parsed.error.detail);
        const frozenAst = deepFreeze(parsed.value);
        const snapshot = structuredClone(frozenAst);
        const bound = resolveFilter(testUsers, frozenAst);
        if (!bound.ok) throw new Error(bound.error.detail);
        expect(frozenAst).toEqual(snapshot);
        // Frozen, so any write into the resource throws and fails the property.
        expect(typeof matchesFilter(deepFreeze(resource), bound.value)).toBe("boolean");
      }),
      fuzzParameters(300),
    );
    expectPristinePrototypes();
  });
});
