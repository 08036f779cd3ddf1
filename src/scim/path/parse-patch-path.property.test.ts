/**
 * Properties of PATCH path parsing (RFC 7644 §3.5.2, `PATH = attrPath / valuePath [subAttr]`) over
 * generated and mutated paths: valid paths bind, anything else fails as a 400 `invalidPath` — the
 * one error RFC 7644 §3.12 gives a malformed path, even when the fault is in its filter — and
 * nothing throws.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ScimType } from "../../errors.js";
import {
  anyText,
  expectPristinePrototypes,
  expectScimFailure,
  fuzzParameters,
  mutatedText,
  PROPERTY_TIMEOUT,
  PROTOTYPE_KEYS,
} from "../fuzz.fixture.js";
import { ENTERPRISE_URN, USER_URN } from "../sample-resources.fixture.js";
import { createSchemaRegistry } from "../schema/schema-registry.js";
import { parsePatchPath } from "./parse-patch-path.js";

const registry = createSchemaRegistry();
const users = registry.resourceType("User")!;
const groups = registry.resourceType("Group")!;

/** Attribute paths of a User, plain, dotted, URN-qualified and in any case. */
const userAttributePaths = fc
  .oneof(
    fc.constantFrom(
      "userName",
      "name",
      "name.familyName",
      "displayName",
      "nickName",
      "title",
      "active",
      "emails",
      "emails.value",
      "phoneNumbers.type",
      "addresses.country",
      "roles",
      "x509Certificates.value",
      `${USER_URN}:userName`,
      `${USER_URN}:name.givenName`,
      `${ENTERPRISE_URN}:manager`,
      `${ENTERPRISE_URN}:manager.value`,
      `${ENTERPRISE_URN}:department`,
      "urn:ietf:params:scim:schemas:extension:enterprise:2.0:employeeNumber",
    ),
  )
  .chain((path) => fc.mixedCase(fc.constant(path)));

// Every sub-attribute filtered on below is a string: its comparison value is a JSON string.
const filterValue = fc
  .oneof(fc.string({ unit: "binary", maxLength: 16 }), fc.constantFrom("work", "home"))
  .map((text) => JSON.stringify(text));

/** `attr[filter]` and `attr[filter].sub` on the multi-valued complex attributes of a User. */
const userValuePaths = fc
  .tuple(
    fc.constantFrom(
      ["emails", ["type", "value", "display"], ["value", "type", "primary"]] as const,
      ["phoneNumbers", ["type", "value"], ["value", "type"]] as const,
      ["addresses", ["type", "country", "locality"], ["streetAddress", "country"]] as const,
      ["roles", ["value", "type"], ["value", "display"]] as const,
    ),
    fc.nat(),
    fc.constantFrom("eq", "ne", "co", "sw", "ew", "pr"),
    filterValue,
    fc.option(fc.nat(), { nil: undefined }),
  )
  .map(([[attribute, filterSubs, selectable], pick, op, value, sub]) => {
    const filterSub = filterSubs[pick % filterSubs.length] ?? "value";
    const comparison = op === "pr" ? `${filterSub} pr` : `${filterSub} ${op} ${value}`;
    const tail = sub === undefined ? "" : `.${selectable[sub % selectable.length] ?? "value"}`;
    return `${attribute}[${comparison}]${tail}`;
  });

const validUserPaths = fc.oneof(userAttributePaths, userValuePaths);
const validGroupPaths = fc.oneof(
  fc.constantFrom("displayName", "members", "externalId", "members.value"),
  fc.uuid().map((id) => `members[value eq "${id}"]`),
  fc.uuid().map((id) => `members[value eq "${id}"].display`),
);

const expectPathResult =
  (schema: typeof users) =>
  (text: string): void => {
    const result = parsePatchPath(schema, text);
    expectScimFailure(result, [ScimType.invalidPath]);
  };

describe("PATCH path properties", { timeout: PROPERTY_TIMEOUT }, () => {
  it("every generated valid path binds, on users and on groups", () => {
    fc.assert(
      fc.property(validUserPaths, (text) => {
        const result = parsePatchPath(users, text);
        if (!result.ok) throw new Error(`${text}: ${result.error.detail}`);
        expect(result.value.text).toBe(text);
      }),
      fuzzParameters(300),
    );
    fc.assert(
      fc.property(validGroupPaths, (text) => {
        const result = parsePatchPath(groups, text);
        if (!result.ok) throw new Error(`${text}: ${result.error.detail}`);
      }),
      fuzzParameters(100),
    );
  });

  it("any text binds or fails with 400 invalidPath, never an exception", () => {
    fc.assert(fc.property(anyText, expectPathResult(users)), fuzzParameters(400));
    fc.assert(fc.property(anyText, expectPathResult(groups)), fuzzParameters(200));
  });

  it("mutated valid paths (truncated, spliced, swapped, nested, inflated) bind or fail with invalidPath", () => {
    fc.assert(fc.property(mutatedText(validUserPaths), expectPathResult(users)), fuzzParameters(500));
    fc.assert(fc.property(mutatedText(validGroupPaths), expectPathResult(groups)), fuzzParameters(200));
  });

  it("a prototype key anywhere in a path names nothing: invalidPath, and Object.prototype stays clean", () => {
    const positions = fc.constantFrom(
      (key: string) => key,
      (key: string) => `name.${key}`,
      (key: string) => `${key}.value`,
      (key: string) => `emails[${key} eq "x"]`,
      (key: string) => `emails[type eq "work"].${key}`,
      (key: string) => `${key}[value eq "x"]`,
      (key: string) => `${USER_URN}:${key}`,
      (key: string) => `${ENTERPRISE_URN}:${key}`,
      (key: string) => `${ENTERPRISE_URN}:manager.${key}`,
    );
    fc.assert(
      fc.property(fc.constantFrom(...PROTOTYPE_KEYS, "toString", "hasOwnProperty"), positions, (key, position) => {
        const text = position(key);
        for (const schema of [users, groups]) {
          const result = parsePatchPath(schema, text);
          expect(result.ok, text).toBe(false);
          expectScimFailure(result, [ScimType.invalidPath]);
        }
      }),
      fuzzParameters(100),
    );
    expectPristinePrototypes();
  });

  it("a bracketed filter nested past the depth limit is refused as invalidPath", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1, max: 40 }), (depth, maxDepth) => {
        // The path's own brackets are found without recursion; the filter inside them is bounded
        // like any filter.
        const text = `emails[${"(".repeat(depth)}type eq "work"${")".repeat(depth)}]`;
        const result = parsePatchPath(users, text, { maxDepth });
        expect(result.ok).toBe(depth <= maxDepth);
        expectScimFailure(result, [ScimType.invalidPath]);
      }),
      fuzzParameters(200),
    );
  });
});
