/**
 * PATCH (RFC 7644 §3.5.2): applies a PatchOp request to a resource in canonical form and returns
 * the new resource, whether anything changed, and — for a type with members, such as Group — the
 * membership delta a store applies without loading every member.
 */
import { ScimType, isScimError, type ValidationIssue, scimError } from "../../errors.js";
import { fail, ok, type Result } from "../../result.js";
import type { Tolerances } from "../compatibility/compatibility-profile.js";
import { ALL_TOLERANCES } from "../compatibility/compatibility-profiles.js";
import { deepEqual } from "../deep-equal.js";
import type { FilterLimits } from "../filter/parse-filter.js";
import type { PatchPath } from "../path/patch-path.js";
import { schemasFor } from "../schema/normalize-resource.js";
import type { ScimObject } from "../schema/normalize-value.js";
import type { ResourceSchema } from "../schema/schema-registry.js";
import { applyAttributeOperation, createPatchWorkspace, flushWorkspace, type PatchWorkspace } from "./apply-attribute-operation.js";
import { applyMemberOperation } from "./apply-member-operation.js";
import { expandOperation } from "./expand-operation.js";
import { isEmptyMembershipDelta, type MembershipDelta } from "./membership-delta.js";
import { createMembershipDeltaBuilder, type MembershipDeltaBuilder } from "./membership-delta-builder.js";
import { abortInvalidValue } from "./patch-failure.js";
import { patchBounds } from "./patch-bounds.js";
import { parsePatchRequest, type PatchOperation } from "./patch-request.js";
import type { PatchStep } from "./patch-step.js";

export interface ApplyPatchOptions {
  /**
   * Whether `resource.members` holds the group's whole member list. Default true. With false, the
   * group was read without members (architecture §3): member operations only produce the `membership`
   * delta, the result carries no `members`, and a member filter must name members by id.
   */
  readonly membersLoaded?: boolean;
  /** Bounds for the value filters inside paths (`emails[…]`), as for any filter. */
  readonly filterLimits?: Partial<FilterLimits>;
  /**
   * The most operations one request may carry; more is refused whole with 413 naming the limit
   * before any is applied, as RFC 7644 §3.7.4 does for bulk requests. Default: no limit.
   */
  readonly maxPatchOperations?: number;
  /**
   * The most values a multi-valued attribute other than group `members` may hold once patched:
   * the first operation that grows one beyond it, or whose value carries more, fails the patch
   * with 400 `invalidValue` naming the limit. Default: no limit.
   */
  readonly maxValues?: number;
  /**
   * The most distinct member ids the request's membership delta may name (added and removed, or
   * the replacement list); beyond it the patch fails with 413 naming the limit. Members travel as
   * deltas (architecture §3), so this bounds the request, not the group. Default: no limit.
   */
  readonly maxMembers?: number;
  /**
   * Turns the patched resource into the form the caller will store (for the router: the profile's
   * pruning, the required-attribute check, and no writeOnly attribute) before it is compared with
   * the original, so `changed` and `attributesChanged` say whether what is stored changes and the
   * caller compares nothing again. A failure fails the patch. Default: the patched resource as is.
   */
  readonly conform?: (resource: ScimObject) => Result<ScimObject>;
  /**
   * The identity-provider shapes to accept (architecture §4: a compatibility profile's
   * tolerances). Default: every one, as the `generic` profile has them.
   */
  readonly tolerances?: Tolerances;
}

export interface PatchResult {
  /** The patched resource, canonical, with `schemas` derived from what it carries. */
  readonly resource: ScimObject;
  /**
   * False when the patch left the resource as it was (ignoring how `schemas` was spelled), so the
   * caller can skip the write and keep the version. With `membersLoaded: false`, any membership
   * delta that could change the member list counts as a change, since the list is not at hand.
   */
  readonly changed: boolean;
  /**
   * `changed` without the membership: whether the attributes other than unloaded `members`
   * changed. A caller that writes attributes and membership separately (architecture §3) reads both.
   */
  readonly attributesChanged: boolean;
  /** The composed effect of every operation on `members`; absent when none touched them. */
  readonly membership?: MembershipDelta;
}

/** Whether `path` names the `members` of a type with members, kept by the store as a membership. */
export function isMembersPath(schema: ResourceSchema, path: PatchPath): boolean {
  return schema.resourceType.hasMembers === true && !path.target.extension && path.target.attribute.name === "members";
}

function withoutKeys(resource: ScimObject, keys: readonly string[]): ScimObject {
  const copy: ScimObject = { ...resource };
  for (const key of keys) delete copy[key];
  return copy;
}

/** What the operations have done so far: the working copy, its multi-valued attributes, the membership delta. */
interface PatchState {
  readonly resource: ScimObject;
  readonly workspace: PatchWorkspace;
  readonly membersLoaded: boolean;
  readonly options: ApplyPatchOptions;
  readonly tolerances: Tolerances;
  membership: MembershipDeltaBuilder | undefined;
}

/**
 * Composes a step on `members` into `delta` (`applyMemberOperation`), then holds the request to
 * `maxMembers`: the engine and `membershipPatchStepwise` share it, so both read a member operation alike.
 */
export function applyMembersStep(
  resource: ScimObject,
  step: PatchStep,
  delta: MembershipDeltaBuilder,
  membersLoaded: boolean,
  maxMembers: number | undefined,
  tolerances: Tolerances,
  workspace?: PatchWorkspace,
): void {
  applyMemberOperation(resource, step, delta, membersLoaded, workspace, tolerances);
  if (maxMembers !== undefined && delta.size > maxMembers) {
    throw scimError("payloadTooLarge", `${step.origin}: the request names ${delta.size} members; the limit is ${maxMembers} (maxMembers).`);
  }
}

function applyStep(schema: ResourceSchema, state: PatchState, step: PatchStep): void {
  if (isMembersPath(schema, step.path)) {
    state.membership ??= createMembershipDeltaBuilder();
    applyMembersStep(
      state.resource,
      step,
      state.membership,
      state.membersLoaded,
      state.options.maxMembers,
      state.tolerances,
      state.workspace,
    );
  } else {
    applyAttributeOperation(state.resource, step, {
      workspace: state.workspace,
      tolerances: state.tolerances,
      ...(state.options.maxValues === undefined ? {} : { maxValues: state.options.maxValues }),
    });
  }
}

/**
 * Applies the steps of one operation, pausing after each: a path-less value may name thousands of
 * attributes. The type errors of every attribute of a path-less value are reported together, as
 * for a POST body; any other error stops at once.
 */
function* applyOperation(schema: ResourceSchema, state: PatchState, operation: PatchOperation): Generator<void, void, void> {
  const issues: ValidationIssue[] = [];
  for (const step of expandOperation(schema, operation, state.options.filterLimits ?? {}, state.tolerances)) {
    try {
      applyStep(schema, state, step);
    } catch (error) {
      const found = isScimError(error) && error.scimType === ScimType.invalidValue ? error.issues : [];
      if (found.length === 0 && issues.length === 0) throw error;
      // Another kind of error after type errors: the type errors, found first, are the answer.
      if (found.length === 0) break;
      issues.push(...found);
    }
    yield;
  }
  if (issues.length > 0) abortInvalidValue(`Operations[${operation.index}]`, issues);
}

/**
 * Applies a PATCH `body` to `resource` (RFC 7644 §3.5.2) for the resource type `schema`.
 *
 * Never mutates `resource` or `body`, never throws for bad input: every error is a failed `Result`
 * carrying a 400 `ScimError`, and the patch is atomic — the first failing operation fails it all.
 *
 * - Body: `Operations` (any case) is a non-empty array; `schemas`, if present, must include the
 *   PatchOp URN; `op` is add/replace/remove. What `options.tolerances` turns off (architecture §4)
 *   is refused as the RFC says; by default every tolerance below is on.
 * - Paths: `attr`, `attr.sub`, `attr[filter]`, `attr[filter].sub`, URN-qualified and aliased,
 *   case-insensitive. Path-less add/replace values may use nested extension objects, URN keys,
 *   dotted keys and filtered keys; read-only keys in them (`id`, `meta`) are skipped.
 * - Values are normalized (canonical names, `"True"`/`"False"` booleans, a bare string for a
 *   complex attribute with `value`); type errors answer `invalidValue` listing paths.
 * - An explicit read-only path, a change to a set immutable attribute or the removal of a required
 *   one (RFC 7644 §3.5.2.2) answers `mutability`; remove without path answers `noTarget`.
 * - Add or replace on a filter that matches nothing creates the value a conjunction of `eq`
 *   comparisons describes (Entra); any other filter answers `noTarget`. A remove that matches
 *   nothing succeeds unchanged.
 * - `members` of a type that has members (`ResourceTypeDefinition.hasMembers`, as Group): each
 *   operation is also composed into `membership` (see `applyMemberOperation`).
 */
export function applyPatch(
  schema: ResourceSchema,
  resource: ScimObject,
  body: unknown,
  options: ApplyPatchOptions = {},
): Result<PatchResult> {
  const run = applyPatchStepwise(schema, resource, body, options);
  for (;;) {
    const next = run.next();
    if (next.done) return next.value;
  }
}

/**
 * `applyPatch` as a generator that pauses after reading the operations and after each attribute
 * an operation changes, so that a caller can spread a long request over several turns of the event
 * loop (architecture §4b: no request holds it for more than 50 ms). The work between two pauses is one
 * step's: about its own size, plus the elements it selects. Runs to the same `Result` as `applyPatch`; nothing is shared between pauses but
 * the generator's own working copy.
 */
export function* applyPatchStepwise(
  schema: ResourceSchema,
  resource: ScimObject,
  body: unknown,
  options: ApplyPatchOptions = {},
): Generator<void, Result<PatchResult>, void> {
  const tolerances = options.tolerances ?? ALL_TOLERANCES;
  const operations = parsePatchRequest(body, options.maxPatchOperations, tolerances);
  if (!operations.ok) return operations;
  // What the request carries is bounded before any of it is normalized or applied.
  const bounded = patchBounds(schema, operations.value, options, tolerances);
  if (!bounded.ok) return bounded;
  // Reading every operation is a pass over the whole request: a pause of its own.
  yield;
  const membersLoaded = options.membersLoaded ?? true;
  const original = !membersLoaded && schema.resourceType.hasMembers ? withoutKeys(resource, ["members"]) : resource;
  // Shallow is enough: the engine replaces every value it changes and never writes into one.
  const state: PatchState = {
    resource: { ...original },
    workspace: createPatchWorkspace(),
    membersLoaded,
    options,
    tolerances,
    membership: undefined,
  };
  try {
    for (const operation of operations.value) yield* applyOperation(schema, state, operation);
  } catch (error) {
    if (isScimError(error)) return fail(error);
    throw error;
  }
  flushWorkspace(state.resource, state.workspace);
  const membership: MembershipDelta | undefined = state.membership?.build();
  const rest = withoutKeys(state.resource, ["schemas"]);
  const patched: ScimObject = { schemas: schemasFor(schema, rest), ...rest };
  const conformed = options.conform ? options.conform(patched) : ok(patched);
  if (!conformed.ok) return conformed;
  const attributesChanged = !deepEqual(withoutKeys(original, ["schemas"]), withoutKeys(conformed.value, ["schemas"]));
  const membershipChanged = !membersLoaded && membership !== undefined && !isEmptyMembershipDelta(membership);
  return ok({
    resource: conformed.value,
    changed: attributesChanged || membershipChanged,
    attributesChanged,
    ...(membership === undefined ? {} : { membership }),
  });
}
