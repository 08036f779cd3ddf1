/**
 * What a POST or PUT body becomes before it reaches the store: validated attributes without the
 * server's own (`id`, `meta`, `schemas`) or writeOnly ones, and — for a type with members — the
 * member ids apart, within the router's write limits.
 */
import type { Tolerances } from "../../scim/compatibility/compatibility-profile.js";
import { type ScimError, invalidValueError, type ValidationIssue, scimError } from "../../errors.js";
import { unwrap } from "../../result.js";
import { patchBounds } from "../../scim/patch/patch-bounds.js";
import { type PatchOperation, parsePatchRequest } from "../../scim/patch/patch-request.js";
import { flattenInput } from "../../scim/schema/normalize-resource.js";
import { isPlainObject, type ScimObject } from "../../scim/schema/normalize-value.js";
import type { ResourceSchema } from "../../scim/schema/schema-registry.js";
import { valueCountIssues } from "../../scim/schema/value-count-issues.js";
import { hasLargeArray } from "../sending/json-pieces.js";
import type { TypeHandler } from "./type-handler.js";
import type { WriteLimits } from "./write-limits.js";

/** A body as the store takes it. */
export interface PreparedWrite {
  /** Canonical attributes, without `id`, `meta`, `schemas`, writeOnly attributes and kept members. */
  readonly attributes: ScimObject;
  /** For a type with members, the distinct member ids in order (`[]` for none); otherwise absent. */
  readonly memberIds: readonly string[] | undefined;
}

/**
 * Drops writeOnly attributes (`password`): RFC 7643 §4.1.1 forbids returning them and we offer no
 * use for them (`changePassword` is unsupported), so keeping a cleartext password would be all risk.
 */
export function withoutWriteOnly(schema: ResourceSchema, resource: ScimObject): ScimObject {
  const copy: ScimObject = { ...resource };
  for (const attribute of schema.core.attributes) {
    if (attribute.mutability === "writeOnly") delete copy[attribute.name];
  }
  for (const { schema: extension } of schema.extensions) {
    const container = copy[extension.id];
    if (!isPlainObject(container) || !extension.attributes.some((attribute) => attribute.mutability === "writeOnly")) continue;
    const kept: ScimObject = { ...container };
    for (const attribute of extension.attributes) if (attribute.mutability === "writeOnly") delete kept[attribute.name];
    if (Object.keys(kept).length === 0) delete copy[extension.id];
    else copy[extension.id] = kept;
  }
  return copy;
}

/**
 * The attributes a store keeps of a validated resource: without `schemas`, `id` and `meta`, which
 * the core renders (RFC 7643 §3.1). A type with members has none here: they travel as a delta.
 */
export function withoutServerAttributes(resource: ScimObject): ScimObject {
  const { schemas: _schemas, id: _id, meta: _meta, ...attributes } = resource;
  return attributes;
}

function memberError(index: number): ScimError {
  return scimError("invalidValue", `members[${index}].value: is required (the member's id).`);
}

function splitMembers(type: TypeHandler, prepared: ScimObject): PreparedWrite {
  const { schemas: _schemas, id: _id, meta: _meta, members, ...attributes } = withoutWriteOnly(type.schema, prepared);
  if (!type.hasMembers) return { attributes: { ...attributes, ...(members === undefined ? {} : { members }) }, memberIds: undefined };
  const elements = Array.isArray(members) ? members : [];
  const ids: string[] = [];
  elements.forEach((element, index) => {
    const value = isPlainObject(element) ? element["value"] : undefined;
    if (typeof value !== "string" || value === "") throw memberError(index);
    ids.push(value);
  });
  return { attributes, memberIds: [...new Set(ids)] };
}

/**
 * Every element of a client's `members` must name a member id. Checked on the raw body because
 * normalization drops readOnly sub-attributes (`display`), and an element left empty would vanish.
 */
function assertMemberValues(type: TypeHandler, body: unknown): void {
  if (!type.hasMembers || !isPlainObject(body)) return;
  const key = Object.keys(body).find((candidate) => candidate.toLowerCase() === "members");
  const members = key === undefined ? undefined : body[key];
  if (!Array.isArray(members)) return;
  members.forEach((element, index) => {
    if (element === null || element === undefined) return;
    const value = isPlainObject(element) ? Object.entries(element).find(([name]) => name.toLowerCase() === "value")?.[1] : element;
    if (typeof value !== "string" || value === "") throw memberError(index);
  });
}

/**
 * The values of each multi-valued attribute and the member ids a raw body carries, within
 * `limits`: counted on the body as sent, before it is normalized (architecture §4b: a bound is
 * checked before the work it bounds), so a body of ten thousand e-mails is refused for its count
 * without normalizing one of them. Members are counted as distinct ids.
 */
function assertRawCounts(type: TypeHandler, body: unknown, limits: WriteLimits, tolerances: Tolerances | undefined): void {
  // Attributes sit at the body's top level or inside an extension's object there: without an
  // array over the smaller limit within those two steps no count can exceed one, so the usual
  // body is not flattened twice (here, and by its validation).
  if (!isPlainObject(body) || !hasLargeArray(body, 2, Math.min(limits.maxValues, limits.maxMembers))) return;
  const issues: ValidationIssue[] = [];
  for (const { key, path, value } of flattenInput(type.schema, body, tolerances).entries) {
    if (!path.attribute.multiValued || path.subAttribute || !Array.isArray(value)) continue;
    if (type.hasMembers && !path.extension && path.attribute.name === "members") {
      // An id that is not a string is refused later, with its own message; here it counts once.
      const ids = new Set(
        value.map((element, index) => {
          const id = isPlainObject(element) ? memberValueOf(element) : element;
          return typeof id === "string" ? id : `\u0000${index}`;
        }),
      );
      if (ids.size > limits.maxMembers) {
        throw scimError("payloadTooLarge", `The request names ${ids.size} members; the limit is ${limits.maxMembers} (maxMembers).`);
      }
    } else if (value.length > limits.maxValues) {
      issues.push({ path: key, message: `holds ${value.length} values; the limit is ${limits.maxValues} (maxValues)` });
    }
  }
  if (issues.length > 0) throw invalidValueError(issues);
}

/** The `value` of a member element, its key in any case. */
function memberValueOf(element: ScimObject): unknown {
  return Object.entries(element).find(([name]) => name.toLowerCase() === "value")?.[1];
}

/**
 * A PATCH body's operations within `limits` by their shape alone — their number, the values they
 * carry per multi-valued attribute, the members they name — before the resource is read or any
 * operation applied (400 or 413 naming the limit, as the engine would after applying them).
 * Returns the operations as read, for a caller that goes on without the engine (`patchMembership`).
 */
export function checkPatchBounds(
  type: TypeHandler,
  body: unknown,
  limits: WriteLimits,
  tolerances?: Tolerances,
): readonly PatchOperation[] {
  const operations = unwrap(parsePatchRequest(body, limits.maxPatchOperations, tolerances));
  unwrap(patchBounds(type.schema, operations, limits, tolerances));
  return operations;
}

/** A POST or PUT body → what to store, within `limits` (400 `invalidValue` or 413 naming the limit). */
export function prepareWrite(type: TypeHandler, body: unknown, limits: WriteLimits, tolerances?: Tolerances): PreparedWrite {
  assertMemberValues(type, body);
  assertRawCounts(type, body, limits, tolerances);
  const prepared = unwrap(type.validator.prepare(body, tolerances));
  const { maxValues, maxMembers } = limits;
  const issues = valueCountIssues(type.schema, prepared, maxValues, (attribute) => type.hasMembers && attribute.name === "members");
  if (issues.length > 0) throw invalidValueError(issues);
  const split = splitMembers(type, prepared);
  if (split.memberIds && split.memberIds.length > maxMembers) {
    throw scimError("payloadTooLarge", `The request names ${split.memberIds.length} members; the limit is ${maxMembers} (maxMembers).`);
  }
  return split;
}
