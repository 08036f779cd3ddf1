/**
 * The PATCH engine for one attribute: add, replace and remove (RFC 7644 §3.5.2.1–3) on a
 * single-valued attribute, a sub-attribute, a whole multi-valued attribute, or the elements a value
 * filter selects. It writes into the caller's working copy of the resource and builds every
 * element it changes afresh, so the original resource is never touched. A multi-valued attribute
 * is worked on as an indexed `ElementList`, so each step costs about what it names, not a pass
 * over every value (architecture §4b).
 */
import { ScimType, type ValidationIssue } from "../../errors.js";
import type { Tolerances } from "../compatibility/compatibility-profile.js";
import { ALL_TOLERANCES } from "../compatibility/compatibility-profiles.js";
import { deepEqual } from "../deep-equal.js";
import type { AttributeDefinition } from "../schema/attribute-definition.js";
import { findSubAttribute, isPlainObject, normalizeAttributeValue, normalizeElement, type ScimObject } from "../schema/normalize-value.js";
import { readAttribute, writeAttribute } from "../schema/resource-access.js";
import { formatPath, type ResolvedPath } from "../schema/resolved-path.js";
import { containsValue, createElementList, type ElementKey, type ElementList } from "./element-list.js";
import { elementTemplate } from "./element-template.js";
import { abortInvalidValue, abortPatch } from "./patch-failure.js";
import type { PatchStep } from "./patch-step.js";

export { containsValue };

/** What a step did to the elements of a multi-valued attribute. */
export interface AttributeOutcome {
  /** Elements the step added, modified or found already present, as they now are. */
  readonly touched: readonly unknown[];
  /** Elements the step removed. */
  readonly removed: readonly unknown[];
}

/** One multi-valued attribute being worked on, and where it goes back to. */
interface WorkingAttribute {
  readonly path: ResolvedPath;
  readonly list: ElementList;
}

/**
 * Where the multi-valued attributes of one PATCH are worked on: each is read into an
 * `ElementList` by its first step and written back once, by `flushWorkspace`, after the last.
 */
export interface PatchWorkspace {
  /** The working attributes, by schema URN and attribute name. */
  readonly attributes: Map<string, WorkingAttribute>;
}

export interface AttributeOperationOptions {
  /**
   * Whether two elements are the same value, as a key: an add does not duplicate an element with
   * the same key, and a remove with a value removes the elements with its key. Default: every
   * sub-attribute of the candidate is in the existing element with an equal value (`containsValue`).
   */
  readonly elementKey?: ElementKey;
  /**
   * The working attributes of the PATCH this step belongs to. Without one, the step reads the
   * attribute from `resource` and writes it back at once, a pass over its values per step.
   */
  readonly workspace?: PatchWorkspace;
  /**
   * The most values a multi-valued attribute may hold after the step; beyond it the step stops
   * the patch with 400 `invalidValue` naming the limit. Default: no limit.
   */
  readonly maxValues?: number;
  /**
   * The identity-provider shapes to accept (architecture §4): creating on a filter that matches
   * nothing, removing by a value array, removing what is absent, an array of one for one value,
   * and what the value normalizers tolerate. Default: every one.
   */
  readonly tolerances?: Tolerances;
}

/** A new, empty workspace for one PATCH. */
export function createPatchWorkspace(): PatchWorkspace {
  return { attributes: new Map() };
}

/** Writes every changed attribute of `workspace` into `resource` (the caller's working copy). */
export function flushWorkspace(resource: ScimObject, workspace: PatchWorkspace): void {
  for (const { path, list } of workspace.attributes.values()) {
    if (!list.changed) continue;
    const values = list.values();
    writeAttribute(resource, path, values.length === 0 ? undefined : values);
  }
}

/** RFC 7643 §2.5: null and an empty array are unassigned. */
function isAssigned(value: unknown): boolean {
  return value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);
}

function asArray(value: unknown): readonly unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function label(step: PatchStep, sub?: AttributeDefinition): string {
  const path = formatPath(step.path.target);
  return sub ? `${path}.${sub.name}` : path;
}

/** The step's value normalized for `definition`; type errors stop the patch with `invalidValue`. */
function normalizedValue(step: PatchStep, definition: AttributeDefinition, tolerances: Tolerances, asElement = false): unknown {
  const issues: ValidationIssue[] = [];
  // Tolerances.arrayOfOne: a filtered path names one element; a one-element array for it is read as that element.
  const raw = asElement && tolerances.arrayOfOne && Array.isArray(step.value) && step.value.length === 1 ? step.value[0] : step.value;
  const options = { tolerances };
  const value = asElement
    ? normalizeElement(definition, raw, step.path.text, issues, options)
    : normalizeAttributeValue(definition, raw, step.path.text, issues, options);
  if (issues.length > 0) abortInvalidValue(step.origin, issues);
  return value;
}

/**
 * RFC 7644 §3.5.2: an immutable sub-attribute may be added but not changed once set; RFC 7644
 * §3.5.2.2: a required one may not become unassigned. Both answer `mutability`.
 */
function guardSubAttribute(step: PatchStep, element: ScimObject, name: string, next: unknown): void {
  const sub = findSubAttribute(step.path.target.attribute, name);
  const current = element[name];
  if (!sub || !isAssigned(current) || deepEqual(current, next)) return;
  if (sub.mutability === "immutable") {
    abortPatch(ScimType.mutability, `${step.origin}: "${label(step, sub)}" is immutable and already set to ${JSON.stringify(current)}.`);
  }
  if (next === undefined && sub.required) {
    abortPatch(ScimType.mutability, `${step.origin}: "${label(step, sub)}" is required and cannot be removed (RFC 7644 §3.5.2.2).`);
  }
}

/** `element` with one sub-attribute set (or removed, for `undefined`); undefined once nothing is left. */
function withSubAttribute(step: PatchStep, element: unknown, sub: AttributeDefinition, next: unknown): ScimObject | undefined {
  const base = isPlainObject(element) ? element : {};
  guardSubAttribute(step, base, sub.name, next);
  const result: ScimObject = { ...base };
  if (next === undefined) delete result[sub.name];
  else result[sub.name] = next;
  return Object.keys(result).length === 0 ? undefined : result;
}

/** RFC 7644 §3.5.2.1 and §3.5.2.3: sub-attributes in the value replace or add; the others stay. */
function mergedInto(step: PatchStep, element: unknown, value: ScimObject): ScimObject {
  const base = isPlainObject(element) ? element : {};
  for (const [name, next] of Object.entries(value)) guardSubAttribute(step, base, name, next);
  return { ...base, ...value };
}

/**
 * Tolerances.removeAbsent off: a remove whose filter or value array finds no value answers
 * `noTarget` (RFC 7644 §3.12: "the specified path did not yield an attribute or attribute value …
 * a filter that yields no match"). Removing an unassigned attribute is no such case: RFC 7644
 * §3.5.2.2 leaves it unassigned.
 */
function nothingToRemove(step: PatchStep, tolerances: Tolerances): void {
  if (tolerances.removeAbsent) return;
  abortPatch(ScimType.noTarget, `${step.origin}: "${step.path.text}" matches no value to remove.`);
}

function singleValued(step: PatchStep, current: unknown, tolerances: Tolerances): unknown {
  const { attribute } = step.path.target;
  const sub = step.path.subAttribute;
  if (sub) {
    const value = step.op === "remove" ? undefined : normalizedValue(step, sub, tolerances);
    // An add of nothing adds nothing; a replace with null unassigns (RFC 7643 §2.5).
    if (value === undefined && step.op === "add") return current;
    return withSubAttribute(step, current, sub, value);
  }
  if (step.op === "remove") return undefined;
  const value = normalizedValue(step, attribute, tolerances);
  if (value === undefined) return step.op === "add" ? current : undefined;
  return attribute.type === "complex" && isPlainObject(value) ? mergedInto(step, current, value) : value;
}

/** What a step did, as positions in the list. */
interface ListChange {
  readonly touched: readonly number[];
  readonly removed: readonly unknown[];
}

const NO_CHANGE: ListChange = { touched: [], removed: [] };

/**
 * Tolerances.removeByValue off: RFC 7644 §3.5.2.2 gives remove no value, and without a filter it
 * would remove every value, so the request is refused rather than read either way.
 */
export function refuseRemoveByValue(step: PatchStep, tolerances: Tolerances): void {
  if (tolerances.removeByValue) return;
  abortPatch(
    ScimType.invalidSyntax,
    `${step.origin}: "remove" on "${step.path.text}" carries a "value"; RFC 7644 §3.5.2.2 removes by path alone: name the values with a filter, such as ${step.path.text}[value eq "…"].`,
  );
}

function removeAll(list: ElementList, positions: readonly number[]): unknown[] {
  const removed = positions.map((position) => list.at(position));
  for (const position of positions) list.remove(position);
  return removed;
}

function wholeAttribute(step: PatchStep, list: ElementList, tolerances: Tolerances): ListChange {
  const { attribute } = step.path.target;
  if (step.op === "replace") {
    // RFC 7644 §3.5.2.3: without a filter, the attribute and all its values are replaced.
    const values = asArray(normalizedValue(step, attribute, tolerances));
    const positions = list.positions();
    // Replacing the values with equal ones changes nothing (and so is no change to an immutable attribute).
    if (positions.length === values.length && positions.every((position, index) => deepEqual(list.at(position), values[index]))) {
      return { touched: positions, removed: [] };
    }
    const removed = removeAll(list, positions);
    return { touched: values.map((value) => list.append(value)), removed };
  }
  if (step.op === "remove") {
    // RFC 7644 §3.5.2.2 removes every value; with a value array (Entra's member removal) only those.
    if (!step.hasValue || step.value === null) return { touched: [], removed: removeAll(list, list.positions()) };
    refuseRemoveByValue(step, tolerances);
    const listed = asArray(normalizedValue(step, attribute, tolerances)).map((value) => list.matching(value));
    if (listed.some((positions) => positions.length === 0)) nothingToRemove(step, tolerances);
    const doomed = new Set(listed.flat());
    return {
      touched: [],
      removed: removeAll(
        list,
        [...doomed].sort((a, b) => a - b),
      ),
    };
  }
  // RFC 7644 §3.5.2.1: "a new value is added"; one already there is not added twice.
  const touched = asArray(normalizedValue(step, attribute, tolerances)).map((value) => list.matching(value)[0] ?? list.append(value));
  return { touched, removed: [] };
}

function removeSelected(step: PatchStep, list: ElementList, selected: readonly number[], tolerances: Tolerances): ListChange {
  const sub = step.path.subAttribute;
  if (step.op === "remove" && step.path.filter !== undefined && selected.length === 0) nothingToRemove(step, tolerances);
  // RFC 7644 §3.5.2.2: the matching records are removed; none matching removes nothing.
  if (!sub) return { touched: [], removed: removeAll(list, selected) };
  const touched: number[] = [];
  const removed: unknown[] = [];
  for (const position of selected) {
    const element = list.at(position);
    const updated = withSubAttribute(step, element, sub, undefined);
    if (updated === undefined) {
      removed.push(element);
      list.remove(position);
    } else {
      list.set(position, updated);
      touched.push(position);
    }
  }
  return { touched, removed };
}

function writeSelected(step: PatchStep, list: ElementList, selected: readonly number[], tolerances: Tolerances): ListChange {
  const { attribute } = step.path.target;
  const { filter, subAttribute: sub } = step.path;
  const value = sub ? normalizedValue(step, sub, tolerances) : normalizedValue(step, attribute, tolerances, true);
  if (value === undefined) return step.op === "add" ? NO_CHANGE : removeSelected(step, list, selected, tolerances);
  if (selected.length > 0) {
    for (const position of selected) {
      const element = list.at(position);
      list.set(position, sub ? withSubAttribute(step, element, sub, value) : mergedInto(step, element, isPlainObject(value) ? value : {}));
    }
    return { touched: selected, removed: [] };
  }
  // RFC 7644 §3.5.2.3 answers noTarget here. Tolerances.createOnNoMatch: Entra sends add/replace on
  // `emails[type eq "work"].value` for users that have no work e-mail yet (architecture §4), so the
  // element the filter describes is created.
  if (!tolerances.createOnNoMatch) {
    abortPatch(ScimType.noTarget, `${step.origin}: no value of "${attribute.name}" matches "${step.path.text}" (RFC 7644 §3.5.2.3).`);
  }
  const template = filter ? elementTemplate(filter) : {};
  if (!template) {
    abortPatch(
      ScimType.noTarget,
      `${step.origin}: no value of "${step.path.target.attribute.name}" matches "${step.path.text}", and only a filter of "eq" comparisons joined by "and" describes a value to create.`,
    );
  }
  const created = sub ? { ...template, [sub.name]: value } : { ...template, ...(isPlainObject(value) ? value : {}) };
  return { touched: [list.append(created)], removed: [] };
}

function selectedElements(step: PatchStep, list: ElementList, tolerances: Tolerances): ListChange {
  const { target, filter } = step.path;
  // Without a filter, a sub-attribute path (`emails.type`) addresses every value.
  const selected = filter === undefined ? list.positions() : list.select(target, filter);
  return step.op === "remove" ? removeSelected(step, list, selected, tolerances) : writeSelected(step, list, selected, tolerances);
}

/**
 * RFC 7644 §3.5.2: setting `primary` to true on one value sets it to false on every other; two
 * values made primary by one operation contradict RFC 7643 §2.4 and are refused.
 */
function settlePrimary(step: PatchStep, list: ElementList, change: ListChange): void {
  const primaries = new Set(
    change.touched.filter((position) => {
      const element = list.at(position);
      return isPlainObject(element) && element["primary"] === true;
    }),
  );
  if (primaries.size > 1) {
    abortInvalidValue(step.origin, [{ path: step.path.text, message: "would mark more than one value primary (RFC 7643 §2.4)" }]);
  }
  if (primaries.size === 0) return;
  for (const position of list.primaries()) {
    const element = list.at(position);
    if (!primaries.has(position) && isPlainObject(element)) list.set(position, { ...element, primary: false });
  }
}

/**
 * A changed attribute that is immutable and was set cannot change (RFC 7644 §3.5.2), a required
 * one cannot become unassigned (RFC 7644 §3.5.2.2): both answer `mutability`.
 */
function guardAttribute(step: PatchStep, wasAssigned: boolean, isNowAssigned: boolean): void {
  const { target } = step.path;
  if (target.attribute.mutability === "immutable" && wasAssigned) {
    abortPatch(ScimType.mutability, `${step.origin}: "${formatPath(target)}" is immutable and already set.`);
  }
  if (!isNowAssigned && target.attribute.required && wasAssigned) {
    abortPatch(ScimType.mutability, `${step.origin}: "${formatPath(target)}" is required and cannot be removed (RFC 7644 §3.5.2.2).`);
  }
}

/** Writes a single-valued attribute's new value unless it equals the old one. */
function commit(resource: ScimObject, step: PatchStep, current: unknown, next: unknown): void {
  const value = isAssigned(next) ? next : undefined;
  if (deepEqual(isAssigned(current) ? current : undefined, value)) return;
  guardAttribute(step, isAssigned(current), value !== undefined);
  writeAttribute(resource, step.path.target, value);
}

function workingAttribute(resource: ScimObject, step: PatchStep, options: AttributeOperationOptions): WorkingAttribute {
  const path = step.path.target;
  const key = `${path.schema}\u0000${path.attribute.name}`;
  const existing = options.workspace?.attributes.get(key);
  if (existing) return existing;
  const current = readAttribute(resource, path);
  const working: WorkingAttribute = {
    path,
    list: createElementList(path.attribute, current === null ? undefined : current, options.elementKey),
  };
  options.workspace?.attributes.set(key, working);
  return working;
}

function overLimit(step: PatchStep, what: string, count: number, limit: number): never {
  abortInvalidValue(step.origin, [{ path: step.path.text, message: `${what} ${count} values; the limit is ${limit} (maxValues)` }]);
}

function multiValued(resource: ScimObject, step: PatchStep, options: AttributeOperationOptions): AttributeOutcome {
  const { maxValues } = options;
  // A value carrying more values than the attribute may hold is refused before any is normalized.
  if (maxValues !== undefined && step.op !== "remove" && Array.isArray(step.value) && step.value.length > maxValues) {
    overLimit(step, "carries", step.value.length, maxValues);
  }
  const working = workingAttribute(resource, step, options);
  const { list } = working;
  const sizeBefore = list.size;
  const revisionBefore = list.revision;
  const tolerances = options.tolerances ?? ALL_TOLERANCES;
  const change =
    step.path.filter || step.path.subAttribute ? selectedElements(step, list, tolerances) : wholeAttribute(step, list, tolerances);
  settlePrimary(step, list, change);
  // Only growth is refused: a resource stored before the limit was lowered can still be patched down.
  if (maxValues !== undefined && list.size > maxValues && list.size > sizeBefore) overLimit(step, "would hold", list.size, maxValues);
  // `set` ignores an equal element, so a step that changed nothing leaves the revision as it was.
  if (list.revision !== revisionBefore) guardAttribute(step, sizeBefore > 0, list.size > 0);
  if (!options.workspace) flushWorkspace(resource, { attributes: new Map([["", working]]) });
  return { touched: change.touched.map((position) => list.at(position)), removed: change.removed };
}

/**
 * Applies one step to `resource` (the caller's working copy), with the semantics of RFC 7644
 * §3.5.2.1–3 and the tolerances of architecture §4:
 * - single-valued: add and replace set the value; a complex value merges its sub-attributes in;
 *   remove unassigns; a sub-attribute path works on that sub-attribute;
 * - multi-valued without filter: add appends values not yet present, replace replaces them all,
 *   remove removes them all — or, given a value, only the values it lists;
 * - with a filter (or a sub-attribute path, which selects every value): add and replace update
 *   the selected values or their sub-attribute, creating the value the filter describes when none
 *   matches; remove removes the selected values (none matching is no change) or their sub-attribute.
 * Stops the patch (a thrown `ScimError`) on a type error (`invalidValue`), an immutable or required
 * attribute changed or unassigned (`mutability`), a filter matching nothing that describes no
 * value (`noTarget`), or more values than `maxValues` (`invalidValue`). Normalizes every value and
 * enforces one primary value per attribute. With a `workspace`, multi-valued attributes are
 * written back by `flushWorkspace`.
 */
export function applyAttributeOperation(resource: ScimObject, step: PatchStep, options: AttributeOperationOptions = {}): AttributeOutcome {
  if (step.path.target.attribute.multiValued) return multiValued(resource, step, options);
  const current = readAttribute(resource, step.path.target);
  commit(resource, step, current, singleValued(step, current, options.tolerances ?? ALL_TOLERANCES));
  return { touched: [], removed: [] };
}
