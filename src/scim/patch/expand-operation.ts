/**
 * Turns one PATCH operation into the steps that apply it: the one attribute its path names, or each
 * attribute of a path-less value (RFC 7644 §3.5.2.1, §3.5.2.3).
 */
import { ScimType, restated } from "../../errors.js";
import type { Tolerances } from "../compatibility/compatibility-profile.js";
import { ALL_TOLERANCES } from "../compatibility/compatibility-profiles.js";
import type { FilterLimits } from "../filter/parse-filter.js";
import { parsePatchPath } from "../path/parse-patch-path.js";
import { patchPathOf, type PatchPath } from "../path/patch-path.js";
import { flattenInput, pathKeyIssue, type FlattenedInput } from "../schema/normalize-resource.js";
import { isPlainObject, type ScimObject } from "../schema/normalize-value.js";
import type { ResourceSchema } from "../schema/schema-registry.js";
import { splitExtensionOperation, wholeExtensionOf } from "./extension-path.js";
import { abortInvalidValue, abortPatch } from "./patch-failure.js";
import type { PatchOperation } from "./patch-request.js";
import type { PatchStep } from "./patch-step.js";

function isReadOnly(path: PatchPath): boolean {
  return path.target.attribute.mutability === "readOnly" || path.subAttribute?.mutability === "readOnly";
}

// RFC 7643 §3: `schemas` lists what the resource carries, so the result's is derived, not written.
function isSchemas(path: PatchPath): boolean {
  return !path.target.extension && path.target.attribute.name === "schemas";
}

function requireValue(operation: PatchOperation, origin: string): void {
  // RFC 7644 §3.5.2.1 and §3.5.2.3: the operation "MUST contain a value member"; §3.12 gives
  // `invalidValue` for "A required value was missing".
  if (!operation.hasValue) abortPatch(ScimType.invalidValue, `${origin}: "${operation.op}" requires a "value".`);
}

function explicitStep(
  schema: ResourceSchema,
  operation: PatchOperation,
  text: string,
  limits: Partial<FilterLimits>,
  tolerances: Tolerances,
): PatchStep[] {
  const origin = `Operations[${operation.index}]`;
  const parsed = parsePatchPath(schema, text, limits, tolerances);
  if (!parsed.ok) {
    throw restated(parsed.error, `${origin}: ${parsed.error.detail}`);
  }
  if (operation.op !== "remove") requireValue(operation, origin);
  const path = parsed.value;
  // RFC 7644 §3.5.2: "a client MUST NOT modify an attribute that has mutability readOnly".
  if (isReadOnly(path)) abortPatch(ScimType.mutability, `${origin}: "${text}" is read-only.`);
  if (isSchemas(path)) return [];
  return [{ op: operation.op, path, hasValue: operation.hasValue, value: operation.value, origin }];
}

function pathlessSteps(
  schema: ResourceSchema,
  operation: PatchOperation,
  limits: Partial<FilterLimits>,
  tolerances: Tolerances,
): Iterable<PatchStep> {
  const origin = `Operations[${operation.index}]`;
  // RFC 7644 §3.5.2.2: "If path is unspecified, the operation fails with … noTarget".
  if (operation.op === "remove") abortPatch(ScimType.noTarget, `${origin}: "remove" requires a "path".`);
  requireValue(operation, origin);
  const value = operation.value;
  if (!isPlainObject(value)) {
    abortPatch(ScimType.invalidValue, `${origin}: without a "path", "value" must be an object of attributes to ${operation.op}.`);
  }
  const flattened = flattenInput(schema, value, tolerances);
  if (flattened.pathKeys.length > 0) abortInvalidValue(origin, flattened.pathKeys.map(pathKeyIssue));
  return pathlessValueSteps(schema, operation, value, flattened, limits, tolerances);
}

/**
 * The steps of a path-less value, made as they are taken: parsing a filtered key costs as much as
 * an operation's path, and one value may carry thousands (architecture §4b: the caller pauses between).
 */
function* pathlessValueSteps(
  schema: ResourceSchema,
  operation: PatchOperation,
  value: ScimObject,
  { entries, ignored }: FlattenedInput,
  limits: Partial<FilterLimits>,
  tolerances: Tolerances,
): Generator<PatchStep, void, void> {
  const origin = `Operations[${operation.index}]`;
  const step = (path: PatchPath, entryValue: unknown): PatchStep[] =>
    // RFC 7644 §3.3 ignores readOnly attributes in a resource body; Okta sends `id` in group replaces.
    isReadOnly(path) || isSchemas(path) ? [] : [{ op: operation.op, path, hasValue: true, value: entryValue, origin }];
  for (const entry of entries) yield* step(patchPathOf(entry.path, entry.key), entry.value);
  // Keys with a value filter (`emails[type eq "work"].value`) are paths too; others that name nothing
  // are accepted and not stored (spec §1).
  for (const key of ignored) {
    if (!key.includes("[")) continue;
    const parsed = parsePatchPath(schema, key, limits, tolerances);
    if (parsed.ok) yield* step(parsed.value, value[key]);
  }
}

/**
 * The steps of `operation`, or a thrown `ScimError` for: a path that does not parse (`invalidPath`),
 * a read-only path (`mutability`), a remove without path (`noTarget`), an add or replace without
 * value or with a path-less value that is not an object (`invalidValue`). Read-only attributes
 * inside a path-less value are skipped; an explicit `schemas` path is a no-op; a path naming a whole
 * extension schema works on all its attributes (`splitExtensionOperation`). Errors are thrown
 * at once; the steps of a path-less value are made as they are iterated. With `tolerances.pathKeys`
 * off, a path-less value whose keys are paths (`name.givenName`) fails with `invalidValue`.
 */
export function expandOperation(
  schema: ResourceSchema,
  operation: PatchOperation,
  limits: Partial<FilterLimits>,
  tolerances: Tolerances = ALL_TOLERANCES,
): Iterable<PatchStep> {
  if (operation.path === undefined) return pathlessSteps(schema, operation, limits, tolerances);
  const extension = wholeExtensionOf(schema, operation.path);
  if (extension) {
    // A whole extension (extension-path.ts) is its removals, then its value as a path-less operation.
    const { removals, pathless } = splitExtensionOperation(schema, extension, operation);
    return pathless ? chain(removals, pathlessSteps(schema, pathless, limits, tolerances)) : removals;
  }
  return explicitStep(schema, operation, operation.path, limits, tolerances);
}

function* chain(first: Iterable<PatchStep>, second: Iterable<PatchStep>): Generator<PatchStep, void, void> {
  yield* first;
  yield* second;
}
