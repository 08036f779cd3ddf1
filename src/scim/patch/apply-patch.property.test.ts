/**
 * Properties of the PATCH engine (RFC 7644 §3.5.2) over generated and mutated PatchOp bodies: it
 * never throws, never writes into the resource or the body, answers bad input with a 400 of the
 * RFC 7644 §3.12 type that fits the fault, and is atomic — an operation failing after others
 * leaves nothing half-applied.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ScimType } from "../../errors.js";
import { deepEqual } from "../deep-equal.js";
import {
  anyText,
  deepFreeze,
  expectPristinePrototypes,
  expectScimFailure,
  fuzzParameters,
  PROPERTY_TIMEOUT,
  hasOrdinaryPrototypes,
  hostileValue,
  mutatedJson,
  mutatedText,
  ownKeysDeep,
  PROTOTYPE_KEYS,
} from "../fuzz.fixture.js";
import { ENTERPRISE_URN, USER_URN, sampleUserBody } from "../sample-resources.fixture.js";
import { parsePatchPath } from "../path/parse-patch-path.js";
import { createResourceValidator } from "../schema/create-resource-validator.js";
import type { ScimObject } from "../schema/normalize-value.js";
import { rfc7643Profile } from "../schema/resource-profile.js";
import type { ResourceSchema } from "../schema/schema-registry.js";
import { applyPatch } from "./apply-patch.js";
import { BABS, JAMES, PATCH_OP, groups, storedGroup, storedUser, users } from "./patch.fixture.js";

/** Every `scimType` RFC 7644 §3.12 gives a PATCH request's own faults. */
const PATCH_FAULTS = [
  ScimType.invalidSyntax,
  ScimType.invalidPath,
  ScimType.invalidFilter,
  ScimType.invalidValue,
  ScimType.noTarget,
  ScimType.mutability,
] as const;

const USER_PATHS = [
  "userName",
  "nickName",
  "name",
  "name.givenName",
  "displayName",
  "active",
  "emails",
  'emails[type eq "work"]',
  'emails[type eq "work"].value',
  'emails[value co "example"].primary',
  "phoneNumbers",
  "addresses",
  'addresses[type eq "work"].country',
  "roles",
  "x509Certificates",
  "password",
  "externalId",
  "schemas",
  `${USER_URN}:title`,
  `${ENTERPRISE_URN}:manager`,
  `${ENTERPRISE_URN}:manager.value`,
  `${ENTERPRISE_URN}:department`,
  "urn:ietf:params:scim:schemas:extension:enterprise:2.0:employeeNumber",
] as const;

const GROUP_PATHS = [
  "displayName",
  "members",
  `members[value eq "${BABS}"]`,
  `members[value eq "${JAMES}"]`,
  "members.value",
  "externalId",
] as const;

const READ_ONLY_PATHS = [
  "id",
  "meta",
  "meta.created",
  "meta.lastModified",
  "meta.version",
  "meta.resourceType",
  "groups",
  "groups.value",
  `${USER_URN}:id`,
] as const;

/** Values that fit the attributes above, and some that do not. */
const patchValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.string({ maxLength: 20 }), weight: 3 },
  fc.boolean(),
  fc.constantFrom<unknown>(
    { givenName: "Barbara", familyName: "Jensen" },
    [{ value: "babs@example.org", type: "home" }],
    { value: "babs@example.org", type: "other", primary: true },
    [{ value: BABS }, { value: JAMES }],
    { value: JAMES },
    "26118915-6090-4610-87e4-49d8ca9f808d",
    { userName: "babs", nickName: "B", "name.givenName": "Barb", [`${ENTERPRISE_URN}:department`]: "Tours" },
    { [ENTERPRISE_URN]: { manager: { value: "26118915-6090-4610-87e4-49d8ca9f808d" } } },
    { displayName: "Guides", members: [{ value: JAMES }] },
  ),
  hostileValue,
  // Path-less values shaped like a whole user, broken: prototype keys, wrong types, deep nesting.
  mutatedJson(fc.constant(sampleUserBody())),
);

const operation = (paths: readonly string[]): fc.Arbitrary<Record<string, unknown>> =>
  fc.record(
    {
      op: fc.constantFrom("add", "replace", "remove", "Add", "REPLACE", "Remove"),
      path: fc.oneof({ arbitrary: fc.constantFrom(...paths), weight: 5 }, { arbitrary: mutatedText(fc.constantFrom(...paths)), weight: 1 }),
      value: patchValue,
    },
    { requiredKeys: ["op"] },
  );

const patchBody = (paths: readonly string[]): fc.Arbitrary<Record<string, unknown>> =>
  fc.record(
    { schemas: fc.constant([PATCH_OP]), Operations: fc.array(operation(paths), { minLength: 1, maxLength: 4 }) },
    { requiredKeys: ["Operations"] },
  );

/** Bodies for one resource type: generated PatchOps, those mutated, and arbitrary JSON. */
const bodies = (paths: readonly string[]): fc.Arbitrary<unknown> =>
  fc.oneof(
    { arbitrary: patchBody(paths), weight: 4 },
    { arbitrary: mutatedJson(patchBody(paths)), weight: 3 },
    { arbitrary: fc.jsonValue({ maxDepth: 4 }), weight: 1 },
  );

const withoutSchemas = (resource: ScimObject): ScimObject => {
  const { schemas: _schemas, ...rest } = resource;
  return rest;
};

/**
 * Runs one patch on frozen inputs and checks what must hold whatever the body: a Result (never an
 * exception), a PATCH fault on failure, untouched inputs, and on success a clean canonical resource
 * that the write-side validator can check, with `changed` telling the truth.
 */
function checkPatch(schema: ResourceSchema, resource: ScimObject, body: unknown, membersLoaded: boolean): void {
  // Frozen, so any write into them throws and fails the property; the resource is compared too.
  const frozenResource = deepFreeze(resource);
  const resourceBefore = JSON.stringify(frozenResource);
  const result = applyPatch(schema, frozenResource, deepFreeze(body), { membersLoaded });
  expect(JSON.stringify(frozenResource)).toBe(resourceBefore);
  expectScimFailure(result, PATCH_FAULTS);
  if (!result.ok) return;
  const patched = result.value.resource;
  expect(hasOrdinaryPrototypes(patched)).toBe(true);
  for (const key of PROTOTYPE_KEYS) expect(ownKeysDeep(patched)).not.toContain(key);
  expectScimFailure(createResourceValidator(schema, rfc7643Profile).conform(patched), [ScimType.invalidValue]);
  if (!result.value.changed) {
    const original = membersLoaded ? resource : Object.fromEntries(Object.entries(resource).filter(([key]) => key !== "members"));
    expect(deepEqual(withoutSchemas(patched), withoutSchemas(original))).toBe(true);
  }
}

describe("PATCH properties", { timeout: PROPERTY_TIMEOUT }, () => {
  it("any body patches a user or fails with a PATCH fault, never throwing or writing into its inputs", () => {
    fc.assert(
      fc.property(bodies(USER_PATHS), (body) => checkPatch(users, storedUser(), body, true)),
      fuzzParameters(300),
    );
  });

  it("any body patches a group, with or without its members loaded, the same way", () => {
    fc.assert(
      fc.property(bodies(GROUP_PATHS), fc.boolean(), (body, membersLoaded) => checkPatch(groups, storedGroup(), body, membersLoaded)),
      fuzzParameters(200),
    );
    expectPristinePrototypes();
  });

  it("a body that is not an object, or lacks a non-empty Operations array, is invalidSyntax", () => {
    const notObject = fc.oneof(
      fc.constantFrom<unknown>(null, [], "", 0, true),
      fc.array(fc.jsonValue({ maxDepth: 2 })),
      fc.string(),
      fc.double(),
    );
    const noOperations = fc.oneof(
      fc.constant({}),
      fc.constant({ schemas: [PATCH_OP] }),
      fc.constant({ Operations: [] }),
      fc
        .jsonValue({ maxDepth: 2 })
        .filter((value) => !Array.isArray(value))
        .map((value) => ({ schemas: [PATCH_OP], Operations: value })),
    );
    fc.assert(
      fc.property(fc.oneof(notObject, noOperations), (body) => {
        const result = applyPatch(users, storedUser(), deepFreeze(body));
        expect(result.ok).toBe(false);
        expectScimFailure(result, [ScimType.invalidSyntax]);
      }),
      fuzzParameters(200),
    );
  });

  it("an op other than add, remove or replace is invalidSyntax", () => {
    const badOp = fc.oneof(
      fc.string({ maxLength: 10 }).filter((text) => !["add", "remove", "replace"].includes(text.toLowerCase())),
      fc.constantFrom<unknown>(null, 1, true, ["add"], { op: "add" }),
    );
    fc.assert(
      fc.property(badOp, patchValue, (op, value) => {
        const result = applyPatch(users, storedUser(), deepFreeze({ Operations: [{ op, path: "nickName", value }] }));
        expect(result.ok).toBe(false);
        expectScimFailure(result, [ScimType.invalidSyntax]);
      }),
      fuzzParameters(200),
    );
  });

  it("a path that is not a string, or that does not parse, is invalidPath", () => {
    const notString = fc.oneof(
      fc.integer(),
      fc.boolean(),
      fc.array(fc.string(), { maxLength: 2 }),
      fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
    );
    const unparsable = fc
      .oneof(anyText, mutatedText(fc.constantFrom(...USER_PATHS)))
      .filter((text) => text.trim() !== "" && !parsePatchPath(users, text).ok);
    fc.assert(
      fc.property(fc.oneof(notString, unparsable), fc.constantFrom("add", "replace", "remove"), (path, op) => {
        const result = applyPatch(users, storedUser(), deepFreeze({ Operations: [{ op, path, value: "x" }] }));
        expect(result.ok).toBe(false);
        expectScimFailure(result, [ScimType.invalidPath]);
      }),
      fuzzParameters(300),
    );
  });

  it("remove without a path is noTarget (RFC 7644 §3.5.2.2)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("remove", "Remove", "REMOVE"),
        fc.option(patchValue, { nil: undefined }),
        fc.constantFrom(undefined, null, "", "  "),
        (op, value, path) => {
          const raw = { op, ...(path === undefined ? {} : { path }), ...(value === undefined ? {} : { value }) };
          const result = applyPatch(users, storedUser(), deepFreeze({ Operations: [raw] }));
          expect(result.ok).toBe(false);
          expectScimFailure(result, [ScimType.noTarget]);
        },
      ),
      fuzzParameters(100),
    );
  });

  it("a read-only path is mutability (RFC 7644 §3.5.2), whatever the value", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...READ_ONLY_PATHS).chain((path) => fc.mixedCase(fc.constant(path))),
        fc.constantFrom("add", "replace", "remove"),
        patchValue,
        (path, op, value) => {
          const result = applyPatch(users, storedUser(), deepFreeze({ Operations: [{ op, path, value }] }));
          expect(result.ok).toBe(false);
          expectScimFailure(result, [ScimType.mutability]);
        },
      ),
      fuzzParameters(200),
    );
  });

  it("a value of the wrong type for a string or boolean attribute is invalidValue", () => {
    const cases = fc.oneof(
      fc.tuple(
        fc.constantFrom("nickName", "title", "name.givenName", 'emails[type eq "work"].value', `${ENTERPRISE_URN}:department`),
        fc.oneof(fc.double({ noNaN: true }), fc.boolean(), fc.constant({ any: "object" })),
      ),
      fc.tuple(
        fc.constant("active"),
        fc.oneof(
          fc.double({ noNaN: true }),
          fc.string().filter((text) => !/^(true|false)$/i.test(text)),
          fc.constant({ value: true }),
        ),
      ),
    );
    fc.assert(
      fc.property(cases, fc.constantFrom("add", "replace"), ([path, value], op) => {
        const result = applyPatch(users, storedUser(), deepFreeze({ Operations: [{ op, path, value }] }));
        expect(result.ok).toBe(false);
        expectScimFailure(result, [ScimType.invalidValue]);
      }),
      fuzzParameters(200),
    );
  });

  it("is atomic: valid operations followed by a failing one fail the whole patch and change nothing", () => {
    const good = fc.constantFrom(
      { op: "replace", path: "nickName", value: "Babs" },
      { op: "add", path: "emails", value: [{ value: "new@example.org", type: "other" }] },
      { op: "remove", path: "title" },
      { op: "replace", value: { displayName: "B. Jensen" } },
    );
    const bad = fc.constantFrom(
      { op: "replace", path: "id", value: "x" },
      { op: "remove" },
      { op: "replace", path: "nope", value: 1 },
      { op: "add", path: "active", value: "sometimes" },
      { op: "merge", path: "nickName", value: "x" },
      { op: "replace", path: 'emails[value co "zzz"].type', value: "home" },
    );
    fc.assert(
      fc.property(fc.array(good, { minLength: 1, maxLength: 4 }), bad, (prefix, failing) => {
        const resource = storedUser();
        const result = applyPatch(users, resource, deepFreeze({ schemas: [PATCH_OP], Operations: [...prefix, failing] }));
        expect(result.ok).toBe(false);
        expectScimFailure(result, PATCH_FAULTS);
        expect(resource).toEqual(storedUser());
      }),
      fuzzParameters(100),
    );
  });
});
