/**
 * The PATCH request message (RFC 7644 §3.5.2): checks its structure and lists its operations,
 * before any of them is bound to a schema.
 */
import { ScimType, badRequest, scimError } from "../../errors.js";
import { fail, ok, type Result } from "../../result.js";
import type { Tolerances } from "../compatibility/compatibility-profile.js";
import { ALL_TOLERANCES } from "../compatibility/compatibility-profiles.js";
import { describeJson, isPlainObject, type ScimObject } from "../schema/normalize-value.js";

/** The message schema URN of a PATCH request body (RFC 7644 §3.5.2). */
export const PATCH_OP_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/** RFC 7644 §3.5.2: "MAY be one of add, remove, or replace". */
export type PatchOpName = "add" | "remove" | "replace";

/** One operation of the request, with `op` in canonical lower case. */
export interface PatchOperation {
  /** Position in `Operations`, for error details. */
  readonly index: number;
  readonly op: PatchOpName;
  /** The path, or undefined when the operation has none (null and blank paths count as none). */
  readonly path?: string;
  /** Whether the operation carries a `value` member at all (`null` counts as carried). */
  readonly hasValue: boolean;
  readonly value: unknown;
}

const OP_NAMES: ReadonlySet<string> = new Set(["add", "remove", "replace"]);

/** A member of a JSON object looked up case-insensitively (RFC 7643 §2.1 extends to message attributes). */
function member(object: ScimObject, name: string): { readonly found: boolean; readonly value: unknown } {
  if (Object.hasOwn(object, name)) return { found: true, value: object[name] };
  const key = Object.keys(object).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return key === undefined ? { found: false, value: undefined } : { found: true, value: object[key] };
}

function invalidSyntax<T>(detail: string): Result<T> {
  return fail(badRequest(ScimType.invalidSyntax, detail));
}

/**
 * `schemas` must list the PatchOp URN when present (RFC 7644 §3.5.2). With
 * `Tolerances.missingSchemas`, a body without `schemas` is accepted: its `Operations` leave no doubt
 * what it is. With `Tolerances.foreignSchemaUrns`, other URNs beside the PatchOp one (Google adds a
 * SCIM 1.0 URN) are ignored.
 */
function checkSchemas(body: ScimObject, tolerances: Tolerances): Result<true> {
  const { found, value } = member(body, "schemas");
  if (!found || value === null) {
    return tolerances.missingSchemas
      ? ok(true)
      : invalidSyntax(`A PATCH body must carry "schemas": ["${PATCH_OP_SCHEMA}"] (RFC 7644 §3.5.2).`);
  }
  if (!Array.isArray(value) || !value.every((urn) => typeof urn === "string")) {
    return invalidSyntax(`"schemas" must be an array of URNs containing "${PATCH_OP_SCHEMA}".`);
  }
  if (!value.some((urn: string) => urn.toLowerCase() === PATCH_OP_SCHEMA.toLowerCase())) {
    return invalidSyntax(`"schemas" must contain "${PATCH_OP_SCHEMA}"; it lists ${JSON.stringify(value)}.`);
  }
  const foreign = tolerances.foreignSchemaUrns
    ? undefined
    : value.find((urn: string) => urn.toLowerCase() !== PATCH_OP_SCHEMA.toLowerCase());
  if (foreign !== undefined) {
    return invalidSyntax(`"schemas" must list "${PATCH_OP_SCHEMA}" only (RFC 7644 §3.5.2); it also lists ${JSON.stringify(foreign)}.`);
  }
  return ok(true);
}

function parseOperation(raw: unknown, index: number, tolerances: Tolerances): Result<PatchOperation> {
  const at = `Operations[${index}]`;
  if (!isPlainObject(raw)) return invalidSyntax(`${at} must be an object with "op", "path" and "value".`);
  const op = member(raw, "op").value;
  const name = typeof op === "string" ? op.toLowerCase() : undefined;
  if (name === undefined || !OP_NAMES.has(name)) {
    const found = op === undefined ? "missing" : `not ${describeJson(op)}`;
    return invalidSyntax(`${at}.op must be "add", "remove" or "replace"; it is ${found}.`);
  }
  // Tolerances.anyCaseOps: Entra sends "Add"/"Replace"/"Remove" (Tutorial, User Operations).
  if (!tolerances.anyCaseOps && op !== name) {
    return invalidSyntax(`${at}.op must be "add", "remove" or "replace" in lower case (RFC 7644 §3.5.2); it is ${describeJson(op)}.`);
  }
  const path = member(raw, "path").value;
  if (path !== undefined && path !== null && typeof path !== "string") {
    return fail(badRequest(ScimType.invalidPath, `${at}.path must be a string, not ${describeJson(path)}.`));
  }
  const value = member(raw, "value");
  return ok({
    index,
    op: name as PatchOpName,
    ...(typeof path === "string" && path.trim() !== "" ? { path } : {}),
    hasValue: value.found,
    value: value.value,
  });
}

/**
 * Reads a PATCH body: a JSON object whose `Operations` (any case) is a non-empty array of
 * `{op, path?, value?}` objects (RFC 7644 §3.5.2). Fails with 400 `invalidSyntax` naming the
 * offending operation for anything else, with `invalidPath` for a path that is not a string, and
 * with 413 naming the limit when there are more than `maxOperations` operations. `tolerances`
 * decides whether `op` may be in any case and what `schemas` may be (default: every tolerance).
 */
export function parsePatchRequest(
  body: unknown,
  maxOperations?: number,
  tolerances: Tolerances = ALL_TOLERANCES,
): Result<readonly PatchOperation[]> {
  if (!isPlainObject(body)) return invalidSyntax(`A PATCH body must be a JSON object with "schemas" and "Operations".`);
  const schemas = checkSchemas(body, tolerances);
  if (!schemas.ok) return schemas;
  const operations = member(body, "Operations").value;
  // RFC 7644 §3.5.2: "an array of one or more PATCH operations".
  if (!Array.isArray(operations) || operations.length === 0) {
    return invalidSyntax(`A PATCH body must carry "Operations": an array of one or more operations.`);
  }
  if (maxOperations !== undefined && operations.length > maxOperations) {
    // RFC 7644 §3.7.4 answers a bulk request over its limit with 413; one PATCH over its own is no different.
    return fail(
      scimError(
        "payloadTooLarge",
        `The PATCH request has ${operations.length} operations; the limit is ${maxOperations} (maxPatchOperations).`,
      ),
    );
  }
  const parsed: PatchOperation[] = [];
  for (const [index, raw] of operations.entries()) {
    const operation = parseOperation(raw, index, tolerances);
    if (!operation.ok) return operation;
    parsed.push(operation.value);
  }
  return ok(parsed);
}
