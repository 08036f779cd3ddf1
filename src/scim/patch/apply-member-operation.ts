/**
 * PATCH on a group's `members`: every operation also yields the membership delta a store applies
 * (architecture §3), and works whether or not the group's member list was loaded.
 */
import { ScimType, type ValidationIssue } from "../../errors.js";
import type { Tolerances } from "../compatibility/compatibility-profile.js";
import { ALL_TOLERANCES } from "../compatibility/compatibility-profiles.js";
import { isPlainObject, normalizeAttributeValue, normalizeElement, type ScimObject } from "../schema/normalize-value.js";
import { applyAttributeOperation, refuseRemoveByValue, type PatchWorkspace } from "./apply-attribute-operation.js";
import { memberIdsOfFilter } from "./member-ids.js";
import type { MembershipDeltaBuilder } from "./membership-delta-builder.js";
import { abortInvalidValue, abortPatch } from "./patch-failure.js";
import type { PatchStep } from "./patch-step.js";

/** Two member values are the same member when they name the same id; one without an id is no member. */
function memberKey(member: unknown): string | undefined {
  const id = isPlainObject(member) ? member["value"] : undefined;
  return id === undefined ? undefined : JSON.stringify(id);
}

/** The ids of member values; a member without `value` names nobody and is refused. */
function idsOf(step: PatchStep, members: readonly unknown[]): string[] {
  const issues: ValidationIssue[] = [];
  const ids: string[] = [];
  members.forEach((member, index) => {
    const id = isPlainObject(member) ? member["value"] : undefined;
    if (typeof id === "string" && id !== "") ids.push(id);
    else issues.push({ path: `${step.path.text}[${index}].value`, message: "is required: a member is named by its id" });
  });
  if (issues.length > 0) abortInvalidValue(step.origin, issues);
  return ids;
}

/** The ids of stored member values; one without an id names nobody to remove. */
function storedIds(members: readonly unknown[]): string[] {
  return members.flatMap((member) => {
    const id = isPlainObject(member) ? member["value"] : undefined;
    return typeof id === "string" ? [id] : [];
  });
}

/** Member objects of the raw value that carry no `value`, which normalization would silently drop. */
function membersWithoutId(step: PatchStep): ValidationIssue[] {
  const raw = step.value === null || step.value === undefined ? [] : Array.isArray(step.value) ? step.value : [step.value];
  return raw.flatMap((member: unknown, index) => {
    const hasId = isPlainObject(member) && Object.entries(member).some(([key, id]) => key.toLowerCase() === "value" && id !== null);
    return isPlainObject(member) && !hasId
      ? [{ path: `${step.path.text}[${index}].value`, message: "is required: a member is named by its id" }]
      : [];
  });
}

/** The ids listed in the step's value (`[{"value": "id"}, …]`). */
function givenIds(step: PatchStep, tolerances: Tolerances): string[] {
  const issues: ValidationIssue[] = membersWithoutId(step);
  const normalized = normalizeAttributeValue(step.path.target.attribute, step.value, step.path.text, issues, { tolerances });
  if (issues.length > 0) abortInvalidValue(step.origin, issues);
  return idsOf(step, Array.isArray(normalized) ? normalized : []);
}

/** `members`, `{"members": […]}`: the ids come from the value alone. */
function wholeListDelta(step: PatchStep, delta: MembershipDeltaBuilder, tolerances: Tolerances): void {
  switch (step.op) {
    case "add":
      delta.add(givenIds(step, tolerances));
      return;
    case "replace":
      // Okta clears a group with `members: []`; null and [] are both "no members" (RFC 7643 §2.5).
      delta.replace(givenIds(step, tolerances));
      return;
    case "remove":
      if (step.hasValue && step.value !== null) {
        // Tolerances.removeByValue: Entra and JumpCloud remove members by a value array.
        refuseRemoveByValue(step, tolerances);
        delta.remove(givenIds(step, tolerances));
      } else delta.replace([]);
      return;
  }
}

function loadedDelta(
  step: PatchStep,
  resource: ScimObject,
  delta: MembershipDeltaBuilder,
  workspace: PatchWorkspace | undefined,
  tolerances: Tolerances,
): void {
  const outcome = applyAttributeOperation(resource, step, { elementKey: memberKey, tolerances, ...(workspace ? { workspace } : {}) });
  const { filter, subAttribute } = step.path;
  if (!filter && !subAttribute) {
    wholeListDelta(step, delta, tolerances);
    return;
  }
  // Ids named by the filter are removed even when the loaded list lacks them: removing an absent
  // member succeeds (architecture §4), and the store's list is the authority.
  const named = step.op === "remove" && !subAttribute && filter ? (memberIdsOfFilter(filter) ?? []) : [];
  const removed = [...storedIds(outcome.removed), ...named];
  if (removed.length > 0) delta.remove(removed);
  if (step.op !== "remove") delta.add(idsOf(step, outcome.touched));
}

/** With no member list, a filtered value can only be found by the ids the filter names. */
function unloadedIds(step: PatchStep): readonly string[] {
  const { filter, text } = step.path;
  if (!filter) {
    abortPatch(
      ScimType.invalidPath,
      `${step.origin}: "${text}" addresses every member, and this group's members are not loaded; use members[value eq "id"].`,
    );
  }
  const ids = memberIdsOfFilter(filter);
  if (!ids) {
    abortPatch(
      ScimType.invalidFilter,
      `${step.origin}: "${text}" does not name members by id, and this group's members are not loaded; use members[value eq "id"] (or several joined by "or").`,
    );
  }
  return ids;
}

function unloadedRemoval(step: PatchStep, ids: readonly string[], delta: MembershipDeltaBuilder): void {
  const sub = step.path.subAttribute;
  if (!sub) {
    delta.remove(ids);
    return;
  }
  // RFC 7643 §4.2: a member's sub-attributes are immutable, and its value names it.
  if (sub.mutability === "immutable" || sub.required) {
    abortPatch(ScimType.mutability, `${step.origin}: "members.${sub.name}" is immutable and cannot be removed.`);
  }
}

// Tolerances.arrayOfOne: a filtered path names one value; a one-element array for it is read as that value.
function singleElement(value: unknown, tolerances: Tolerances): unknown {
  return tolerances.arrayOfOne && Array.isArray(value) && value.length === 1 ? value[0] : value;
}

/** The member value an add or replace on `members[…]` or `members[…].sub` supplies. */
function suppliedMember(step: PatchStep, tolerances: Tolerances): unknown {
  const issues: ValidationIssue[] = [];
  const sub = step.path.subAttribute;
  const options = { tolerances };
  const value = sub
    ? normalizeAttributeValue(sub, step.value, step.path.text, issues, options)
    : normalizeElement(step.path.target.attribute, singleElement(step.value, tolerances), step.path.text, issues, options);
  if (issues.length > 0) abortInvalidValue(step.origin, issues);
  return sub && value !== undefined ? { [sub.name]: value } : value;
}

function unloadedFilterDelta(step: PatchStep, delta: MembershipDeltaBuilder, tolerances: Tolerances): void {
  const ids = unloadedIds(step);
  if (step.op === "remove") {
    unloadedRemoval(step, ids, delta);
    return;
  }
  const member = suppliedMember(step, tolerances);
  // A null value adds nothing, and a replace with null unassigns what the path names (RFC 7643 §2.5).
  if (member === undefined) {
    if (step.op !== "add") unloadedRemoval(step, ids, delta);
    return;
  }
  const id = isPlainObject(member) ? member["value"] : undefined;
  // The filter names the member; another id in the value would change an immutable value.
  if (id !== undefined && (ids.length !== 1 || id !== ids[0])) {
    abortPatch(
      ScimType.mutability,
      `${step.origin}: "members.value" is immutable; ${JSON.stringify(id)} does not match "${step.path.text}".`,
    );
  }
  delta.add(ids);
}

/**
 * Applies a step on `members` and composes into `delta` what it did to the member ids:
 * add → ids added; remove by filter or by a value array (Entra) → ids removed; remove without
 * value → replace with none; replace → replace with the given ids. With `loaded`, the step is
 * also applied to `resource.members` (member values are the same when their ids are; with a
 * `workspace`, written back by `flushWorkspace`); without, the resource is not touched and a
 * filter must name members by id (`invalidFilter` otherwise). `tolerances` (default: every one)
 * decides whether a value array may remove members, and, with the list loaded, whether removing
 * an absent member succeeds; without it the store's list is not at hand, and it always does.
 */
export function applyMemberOperation(
  resource: ScimObject,
  step: PatchStep,
  delta: MembershipDeltaBuilder,
  loaded: boolean,
  workspace?: PatchWorkspace,
  tolerances: Tolerances = ALL_TOLERANCES,
): void {
  if (loaded) {
    loadedDelta(step, resource, delta, workspace, tolerances);
    return;
  }
  if (step.path.filter || step.path.subAttribute) unloadedFilterDelta(step, delta, tolerances);
  else wholeListDelta(step, delta, tolerances);
}
