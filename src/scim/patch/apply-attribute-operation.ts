/**
 * The PATCH engine for one attribute: add, replace and remove (RFC 7644 §3.5.2.1–3) on a
 * single-valued attribute, a sub-attribute, a whole multi-valued attribute, or the elements a value
 * filter selects. It writes into the caller's working copy of the resource and builds every
 * element it changes afresh, so the original resource is never touched.
 */
import { ScimType, type ValidationIssue } from "../../errors.js";
import { deepEqual } from "../deep-equal.js";
import type { ValuePathFilter } from "../filter/filter-ast.js";
import { matchesFilter } from "../filter/matches-filter.js";
import type { AttributeDefinition } from "../schema/attribute-definition.js";
import {
  findSubAttribute,
  isPlainObject,
  normalizeAttributeValue,
  normalizeElement,
  type ScimObject,
} from "../schema/normalize-value.js";
import { readAttribute, writeAttribute } from "../schema/resource-access.js";
import { formatPath, type ResolvedPath } from "../schema/resolved-path.js";
import { elementTemplate } from "./element-template.js";
import { abortInvalidValue, abortPatch } from "./patch-failure.js";
import type { PatchStep } from "./patch-step.js";

/** What a step did to the elements of a multi-valued attribute. */
export interface AttributeOutcome {
  /** Elements the step added, modified or found already present, as they now are. */
  readonly touched: readonly unknown[];
  /** Elements the step removed. */
  readonly removed: readonly unknown[];
}

export interface AttributeOperationOptions {
  /**
   * Whether `candidate` is already present as `existing`, so an add does not duplicate it.
   * Default: every sub-attribute of the candidate is in the existing element with an equal value
   * (plain equality for simple values). The same test picks what a remove with a value removes.
   */
  readonly sameElement?: (existing: unknown, candidate: unknown) => boolean;
}

interface MultiValuedChange {
  readonly next: readonly unknown[];
  /** Indices into `next`. */
  readonly touched: readonly number[];
  readonly removed: readonly unknown[];
}

/** RFC 7643 §2.5: null and an empty array are unassigned. */
function isAssigned(value: unknown): boolean {
  return value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);
}

function asArray(value: unknown): readonly unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** Whether `existing` contains every sub-attribute value of `candidate`. */
export function containsValue(existing: unknown, candidate: unknown): boolean {
  if (!isPlainObject(candidate) || !isPlainObject(existing)) return deepEqual(existing, candidate);
  const entries = Object.entries(candidate);
  return entries.length > 0 && entries.every(([name, value]) => deepEqual(existing[name], value));
}

function label(step: PatchStep, sub?: AttributeDefinition): string {
  const path = formatPath(step.path.target);
  return sub ? `${path}.${sub.name}` : path;
}

/** The step's value normalized for `definition`; type errors stop the patch with `invalidValue`. */
function normalizedValue(step: PatchStep, definition: AttributeDefinition, asElement = false): unknown {
  const issues: ValidationIssue[] = [];
  // A filtered path names one element; a one-element array for it is read as that element.
  const raw = asElement && Array.isArray(step.value) && step.value.length === 1 ? step.value[0] : step.value;
  const value = asElement
    ? normalizeElement(definition, raw, step.path.text, issues)
    : normalizeAttributeValue(definition, raw, step.path.text, issues);
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

function singleValued(step: PatchStep, current: unknown): unknown {
  const { attribute } = step.path.target;
  const sub = step.path.subAttribute;
  if (sub) {
    const value = step.op === "remove" ? undefined : normalizedValue(step, sub);
    // An add of nothing adds nothing; a replace with null unassigns (RFC 7643 §2.5).
    if (value === undefined && step.op === "add") return current;
    return withSubAttribute(step, current, sub, value);
  }
  if (step.op === "remove") return undefined;
  const value = normalizedValue(step, attribute);
  if (value === undefined) return step.op === "add" ? current : undefined;
  return attribute.type === "complex" && isPlainObject(value) ? mergedInto(step, current, value) : value;
}

function wholeAttribute(step: PatchStep, elements: readonly unknown[], options: AttributeOperationOptions): MultiValuedChange {
  const { attribute } = step.path.target;
  const same = options.sameElement ?? containsValue;
  if (step.op === "replace") {
    // RFC 7644 §3.5.2.3: without a filter, the attribute and all its values are replaced.
    const values = asArray(normalizedValue(step, attribute));
    return { next: values, touched: values.map((_, index) => index), removed: elements };
  }
  if (step.op === "remove") {
    // RFC 7644 §3.5.2.2 removes every value; with a value array (Entra's member removal) only those.
    if (!step.hasValue || step.value === null) return { next: [], touched: [], removed: elements };
    const values = asArray(normalizedValue(step, attribute));
    const doomed = (element: unknown): boolean => values.some((value) => same(element, value));
    return { next: elements.filter((element) => !doomed(element)), touched: [], removed: elements.filter(doomed) };
  }
  // RFC 7644 §3.5.2.1: "a new value is added"; one already there is not added twice.
  const next = [...elements];
  const touched: number[] = [];
  for (const value of asArray(normalizedValue(step, attribute))) {
    const index = next.findIndex((existing) => same(existing, value));
    if (index < 0) next.push(value);
    touched.push(index < 0 ? next.length - 1 : index);
  }
  return { next, touched, removed: [] };
}

function matchesElement(target: ResolvedPath, filter: ValuePathFilter<ResolvedPath>, element: unknown): boolean {
  // The evaluator answers for a resource; a resource holding only this element answers for it.
  const wrapper: ScimObject = {};
  writeAttribute(wrapper, target, [element]);
  return matchesFilter(wrapper, filter);
}

function removeSelected(step: PatchStep, elements: readonly unknown[], selected: readonly boolean[]): MultiValuedChange {
  const sub = step.path.subAttribute;
  if (!sub) {
    // RFC 7644 §3.5.2.2: the matching records are removed; none matching removes nothing.
    return { next: elements.filter((_, index) => !selected[index]), touched: [], removed: elements.filter((_, index) => selected[index]) };
  }
  const next: unknown[] = [];
  const touched: number[] = [];
  const removed: unknown[] = [];
  elements.forEach((element, index) => {
    const updated = selected[index] ? withSubAttribute(step, element, sub, undefined) : element;
    if (updated === undefined) removed.push(element);
    else next.push(updated);
    if (selected[index] && updated !== undefined) touched.push(next.length - 1);
  });
  return { next, touched, removed };
}

function writeSelected(step: PatchStep, elements: readonly unknown[], selected: readonly boolean[]): MultiValuedChange {
  const { attribute } = step.path.target;
  const { filter, subAttribute: sub } = step.path;
  const value = sub ? normalizedValue(step, sub) : normalizedValue(step, attribute, true);
  if (value === undefined) {
    return step.op === "add" ? { next: elements, touched: [], removed: [] } : removeSelected(step, elements, selected);
  }
  const update = (element: unknown): unknown =>
    sub ? withSubAttribute(step, element, sub, value) : mergedInto(step, element, isPlainObject(value) ? value : {});
  if (selected.some(Boolean)) {
    const touched = selected.flatMap((isSelected, index) => (isSelected ? [index] : []));
    return { next: elements.map((element, index) => (selected[index] ? update(element) : element)), touched, removed: [] };
  }
  // RFC 7644 §3.5.2.3 answers noTarget here; Entra sends add/replace on `emails[type eq "work"].value`
  // for users that have no work e-mail yet (DESIGN §4), so the element the filter describes is created.
  const template = filter ? elementTemplate(filter) : {};
  if (!template) {
    abortPatch(
      ScimType.noTarget,
      `${step.origin}: no value of "${step.path.target.attribute.name}" matches "${step.path.text}", and only a filter of "eq" comparisons joined by "and" describes a value to create.`,
    );
  }
  const created = sub ? { ...template, [sub.name]: value } : { ...template, ...(isPlainObject(value) ? value : {}) };
  return { next: [...elements, created], touched: [elements.length], removed: [] };
}

function selectedElements(step: PatchStep, elements: readonly unknown[]): MultiValuedChange {
  const { target, filter } = step.path;
  // Without a filter, a sub-attribute path (`emails.type`) addresses every value.
  const selected = elements.map((element) => filter === undefined || matchesElement(target, filter, element));
  return step.op === "remove" ? removeSelected(step, elements, selected) : writeSelected(step, elements, selected);
}

/**
 * RFC 7644 §3.5.2: setting `primary` to true on one value sets it to false on every other; two
 * values made primary by one operation contradict RFC 7643 §2.4 and are refused.
 */
function settlePrimary(step: PatchStep, change: MultiValuedChange): readonly unknown[] {
  const primaries = new Set(change.touched.filter((index) => {
    const element = change.next[index];
    return isPlainObject(element) && element["primary"] === true;
  }));
  if (primaries.size > 1) {
    abortInvalidValue(step.origin, [{ path: step.path.text, message: "would mark more than one value primary (RFC 7643 §2.4)" }]);
  }
  if (primaries.size === 0) return change.next;
  return change.next.map((element, index) =>
    !primaries.has(index) && isPlainObject(element) && element["primary"] === true ? { ...element, primary: false } : element,
  );
}

/**
 * Writes the attribute's new value unless it equals the old one. An immutable attribute that is set
 * cannot change (RFC 7644 §3.5.2), a required one cannot become unassigned (RFC 7644 §3.5.2.2):
 * both answer `mutability`.
 */
function commit(resource: ScimObject, step: PatchStep, current: unknown, next: unknown): void {
  const value = isAssigned(next) ? next : undefined;
  if (deepEqual(isAssigned(current) ? current : undefined, value)) return;
  const { target } = step.path;
  if (target.attribute.mutability === "immutable" && isAssigned(current)) {
    abortPatch(ScimType.mutability, `${step.origin}: "${formatPath(target)}" is immutable and already set.`);
  }
  if (value === undefined && target.attribute.required && isAssigned(current)) {
    abortPatch(ScimType.mutability, `${step.origin}: "${formatPath(target)}" is required and cannot be removed (RFC 7644 §3.5.2.2).`);
  }
  writeAttribute(resource, target, value);
}

/**
 * Applies one step to `resource` (the caller's working copy), with the semantics of RFC 7644
 * §3.5.2.1–3 and the tolerances of DESIGN §4:
 * - single-valued: add and replace set the value; a complex value merges its sub-attributes in;
 *   remove unassigns; a sub-attribute path works on that sub-attribute;
 * - multi-valued without filter: add appends values not yet present, replace replaces them all,
 *   remove removes them all — or, given a value, only the values it lists;
 * - with a filter (or a sub-attribute path, which selects every value): add and replace update
 *   the selected values or their sub-attribute, creating the value the filter describes when none
 *   matches; remove removes the selected values (none matching is no change) or their sub-attribute.
 * Stops the patch (a thrown `ScimError`) on a type error (`invalidValue`), an immutable or required
 * attribute changed or unassigned (`mutability`), or a filter matching nothing that describes no
 * value (`noTarget`). Normalizes every value and enforces one primary value per attribute.
 */
export function applyAttributeOperation(
  resource: ScimObject,
  step: PatchStep,
  options: AttributeOperationOptions = {},
): AttributeOutcome {
  const current = readAttribute(resource, step.path.target);
  if (!step.path.target.attribute.multiValued) {
    commit(resource, step, current, singleValued(step, current));
    return { touched: [], removed: [] };
  }
  const elements = asArray(current === null ? undefined : current);
  const change = step.path.filter || step.path.subAttribute ? selectedElements(step, elements) : wholeAttribute(step, elements, options);
  const next = settlePrimary(step, change);
  commit(resource, step, current, next);
  return { touched: change.touched.map((index) => next[index]), removed: change.removed };
}
