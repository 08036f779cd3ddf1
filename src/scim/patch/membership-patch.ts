/**
 * A PATCH that only adds and removes members (RFC 7644 §3.5.2 on a group's `members`), read as the
 * membership delta it is without the group: such deltas commute and need no version (architecture
 * §3, §4b), so the caller can write one without reading or locking the group. The operations are
 * read by the engine's own code (`expandOperation`, `applyMembersStep`), so the delta, and every
 * bound on it, are the engine's.
 */
import { isScimError } from "../../errors.js";
import type { Tolerances } from "../compatibility/compatibility-profile.js";
import { ALL_TOLERANCES } from "../compatibility/compatibility-profiles.js";
import type { ResourceSchema } from "../schema/schema-registry.js";
import { type ApplyPatchOptions, applyMembersStep, isMembersPath } from "./apply-patch.js";
import { expandOperation } from "./expand-operation.js";
import { memberIdsOfFilter } from "./member-ids.js";
import { isEmptyMembershipDelta, type MembershipDelta } from "./membership-delta.js";
import { createMembershipDeltaBuilder } from "./membership-delta-builder.js";
import type { PatchOperation } from "./patch-request.js";
import type { PatchStep } from "./patch-step.js";

/** What `membershipPatchStepwise` reads the operations with: the engine's options of the same names. */
export type MembershipPatchOptions = Pick<ApplyPatchOptions, "filterLimits" | "maxMembers" | "tolerances">;

/**
 * Whether the step is one of the three shapes identity providers send to change a group's members
 * one by one: `add` on `members` with an array of members, `remove` on `members[value eq "id"]`, and
 * `remove` on `members` with an array naming members (Entra). Anything else — a replace, removing
 * every member, a sub-attribute, another filter — may depend on what the group holds, and is left
 * to the engine.
 */
function isMembershipDeltaStep(schema: ResourceSchema, step: PatchStep): boolean {
  if (!isMembersPath(schema, step.path) || step.path.subAttribute) return false;
  const { filter } = step.path;
  switch (step.op) {
    case "add":
      return filter === undefined && Array.isArray(step.value);
    case "remove":
      return filter === undefined ? Array.isArray(step.value) : filter.filter.kind === "compare" && memberIdsOfFilter(filter) !== undefined;
    case "replace":
      return false;
  }
}

/** The one step of each operation, when every operation is a membership delta; undefined otherwise. */
function membershipSteps(
  schema: ResourceSchema,
  operations: readonly PatchOperation[],
  options: MembershipPatchOptions,
  tolerances: Tolerances,
): PatchStep[] | undefined {
  const steps: PatchStep[] = [];
  for (const operation of operations) {
    // A path-less value is left to the engine, which reads it attribute by attribute.
    if (operation.path === undefined || operation.op === "replace") return undefined;
    // An explicit path is one step at most (none for `schemas`, which is no member operation).
    const [step, ...more] = expandOperation(schema, operation, options.filterLimits ?? {}, tolerances);
    if (step === undefined || more.length > 0 || !isMembershipDeltaStep(schema, step)) return undefined;
    steps.push(step);
  }
  return steps;
}

/**
 * The membership delta of `operations` (as `parsePatchRequest` read them, `patchBounds` already
 * checked) when each one adds or removes members by id (`isMembershipDeltaStep`) and together they
 * change the member list; `undefined` for any other request, for one that changes nothing, and for
 * one the engine would refuse. The caller then runs the engine on the group, which answers as it
 * always does: its error, after the 404 of a group that does not exist. Pauses after each
 * operation, as the engine does (architecture §4b).
 */
export function* membershipPatchStepwise(
  schema: ResourceSchema,
  operations: readonly PatchOperation[],
  options: MembershipPatchOptions = {},
): Generator<void, MembershipDelta | undefined, void> {
  if (schema.resourceType.hasMembers !== true) return undefined;
  const tolerances = options.tolerances ?? ALL_TOLERANCES;
  try {
    const steps = membershipSteps(schema, operations, options, tolerances);
    if (steps === undefined) return undefined;
    const delta = createMembershipDeltaBuilder();
    // Without the member list, member operations never look at the resource (`applyMemberOperation`).
    const resource = {};
    for (const step of steps) {
      applyMembersStep(resource, step, delta, false, options.maxMembers, tolerances);
      yield;
    }
    const membership = delta.build();
    return isEmptyMembershipDelta(membership) ? undefined : membership;
  } catch (error) {
    if (isScimError(error)) return undefined;
    throw error;
  }
}
