/**
 * Properties of body validation (RFC 7643 §2, RFC 7644 §3.3 and §3.5.1) over generated and mutated
 * resource bodies: it never throws or writes into the body, refuses a body that is not a resource
 * with `invalidSyntax` and bad attribute values with `invalidValue`, keeps only what the schema
 * names — never a prototype key — and is idempotent on what it accepts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ScimType } from "../../errors.js";
import { deepEqual } from "../deep-equal.js";
import {
  copyJson,
  deepFreeze,
  defineKey,
  expectPristinePrototypes,
  expectScimFailure,
  fuzzParameters,
  PROPERTY_TIMEOUT,
  hasOrdinaryPrototypes,
  mutatedJson,
  ownKeysDeep,
  PROTOTYPE_KEYS,
} from "../fuzz.fixture.js";
import { GROUP_URN, sampleUserBody } from "../sample-resources.fixture.js";
import { createResourceValidator } from "./create-resource-validator.js";
import { isPlainObject } from "./normalize-value.js";
import { rfc7643Profile, specProfile, type ResourceProfile } from "./resource-profile.js";
import { createSchemaRegistry, type ResourceSchema } from "./schema-registry.js";

const registry = createSchemaRegistry();
const users = registry.resourceType("User")!;
const groups = registry.resourceType("Group")!;

const sampleGroupBody = (): Record<string, unknown> => ({
  schemas: [GROUP_URN],
  displayName: "Tour Guides",
  externalId: "g-1",
  members: [{ value: "2819c223-7f76-453a-919d-413861904646", display: "Babs" }, { value: "902c246b-6245-4190-8e05-00816be7344a" }],
});

const cases: readonly (readonly [string, ResourceSchema, () => Record<string, unknown>, ResourceProfile])[] = [
  ["users under RFC 7643", users, sampleUserBody, rfc7643Profile],
  ["users under the spec profile", users, sampleUserBody, specProfile],
  ["groups under RFC 7643", groups, sampleGroupBody, rfc7643Profile],
  ["groups under the spec profile", groups, sampleGroupBody, specProfile],
];

/** Whether `schemas`, if the body has it (any case), is an array of strings, as `normalizeResource` demands. */
function hasWellFormedSchemas(body: Record<string, unknown>): boolean {
  const declared = body["schemas"] ?? Object.entries(body).find(([key]) => key.toLowerCase() === "schemas")?.[1];
  return declared === undefined || (Array.isArray(declared) && declared.every((urn) => typeof urn === "string"));
}

/** A copy of `body` with every prototype key set on every object inside it. */
function pollutedEverywhere(body: Record<string, unknown>): unknown {
  const copy = copyJson(body);
  const stack: unknown[] = [copy];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== "object" || value === null) continue;
    stack.push(...Object.values(value));
    if (Array.isArray(value)) continue;
    const object = value as Record<string, unknown>;
    defineKey(object, "__proto__", { polluted: true, userName: "intruder" });
    defineKey(object, "constructor", { prototype: { polluted: true } });
    defineKey(object, "prototype", { polluted: true, value: "intruder" });
  }
  return copy;
}

describe.each(cases)("validation properties: %s", { timeout: PROPERTY_TIMEOUT }, (_, schema, sample, profile) => {
  const validator = createResourceValidator(schema, profile);
  const bodies = fc.oneof(
    { arbitrary: mutatedJson(fc.constant(sample())), weight: 4 },
    { arbitrary: fc.jsonValue({ maxDepth: 4 }), weight: 1 },
    { arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }), weight: 1 },
  );

  it("any body is accepted or refused with the RFC's type, never throwing or writing into it", () => {
    fc.assert(
      fc.property(bodies, (body) => {
        // Frozen, so any write into the body throws and fails the property.
        const frozen = deepFreeze(body);
        const result = validator.prepare(frozen);
        // RFC 7644 §3.12: a body that is not a resource is invalidSyntax; bad values are invalidValue.
        const resource = isPlainObject(frozen) && hasWellFormedSchemas(frozen);
        expectScimFailure(result, resource ? [ScimType.invalidValue] : [ScimType.invalidSyntax]);
        if (!resource) expect(result.ok).toBe(false);
      }),
      fuzzParameters(150),
    );
  });

  it("what it accepts holds only schema attributes, no prototype key, and validates to itself", () => {
    fc.assert(
      fc.property(bodies, (body) => {
        const result = validator.prepare(deepFreeze(body));
        if (!result.ok) return;
        const prepared = result.value;
        expect(hasOrdinaryPrototypes(prepared)).toBe(true);
        const keys = ownKeysDeep(prepared);
        for (const key of PROTOTYPE_KEYS) expect(keys).not.toContain(key);
        for (const key of Object.keys(prepared)) {
          if (key === "schemas") continue;
          const extension = schema.findSchema(key);
          expect(extension !== undefined || schema.resolvePath(key).ok, key).toBe(true);
        }
        const again = validator.prepare(deepFreeze(copyJson(prepared)));
        if (!again.ok) throw new Error(`the accepted resource is refused on a second pass: ${again.error.detail}`);
        expect(deepEqual(again.value, prepared)).toBe(true);
      }),
      fuzzParameters(150),
    );
  });

  it("prototype keys on every object of a body change nothing, and Object.prototype stays clean", () => {
    const seeds = fc.oneof(fc.constant(sample()), mutatedJson(fc.constant(sample())));
    fc.assert(
      fc.property(seeds, (body) => {
        if (!isPlainObject(body)) return;
        const clean = validator.prepare(deepFreeze(body));
        const polluted = validator.prepare(deepFreeze(pollutedEverywhere(body)));
        expect(polluted.ok).toBe(clean.ok);
        if (clean.ok && polluted.ok) expect(polluted.value).toEqual(clean.value);
        if (!clean.ok && !polluted.ok) expect(polluted.error.scimType).toBe(clean.error.scimType);
      }),
      fuzzParameters(100),
    );
    expectPristinePrototypes();
  });
});
