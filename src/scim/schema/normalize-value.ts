/**
 * Normalizes one attribute value arriving from a client: canonical sub-attribute names, the JSON
 * type mistakes identity providers are known to make coerced, everything else strictly typed.
 * Builds new objects from the schema's own names only, so unknown keys (including `__proto__`)
 * never reach a stored resource.
 */
import type { ValidationIssue } from "../../errors.js";
import type { Tolerances } from "../compatibility/compatibility-profile.js";
import { ALL_TOLERANCES } from "../compatibility/compatibility-profiles.js";
import type { AttributeDefinition } from "./attribute-definition.js";

/** A resource or complex value in canonical form. */
export type ScimObject = { [name: string]: unknown };

export interface NormalizeValueOptions {
  /** Drop `readOnly` attributes and sub-attributes, as RFC 7644 §3.3 and §3.5.1 require of client input. Default true. */
  readonly dropReadOnly?: boolean;
  /** The identity-provider shapes to accept (architecture §4). Default: every one (`generic`). */
  readonly tolerances?: Tolerances;
}

// Built once per definition: every write looks sub-attributes up by name, per key of every element.
const subAttributeIndexes = new WeakMap<AttributeDefinition, ReadonlyMap<string, AttributeDefinition>>();

/** Looks a sub-attribute up by name, case-insensitively (RFC 7643 §2.1). */
export function findSubAttribute(parent: AttributeDefinition, name: string): AttributeDefinition | undefined {
  let index = subAttributeIndexes.get(parent);
  if (!index) {
    index = new Map((parent.subAttributes ?? []).map((sub) => [sub.name.toLowerCase(), sub]));
    subAttributeIndexes.set(parent, index);
  }
  return index.get(name.toLowerCase());
}

export function isPlainObject(value: unknown): value is ScimObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// RFC 7643 §2.3.5: xsd:dateTime, which requires a date and a time; the zone is optional.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(Z|[+-]\d{2}:\d{2})?$/i;

/** Parses an xsd:dateTime into epoch milliseconds, or undefined when it is not one. */
export function parseDateTime(value: string): number | undefined {
  const match = DATE_TIME.exec(value);
  if (!match) return undefined;
  // Without a zone, Date.parse would use the host's local time; a provisioning record must mean
  // the same instant on every server, so a zone-less dateTime is read as UTC.
  const time = Date.parse(match[1] === undefined ? `${value}Z` : value);
  return Number.isNaN(time) ? undefined : time;
}

// With the `u` flag, a surrogate pair is one code point: only a lone surrogate is in \p{Cs}.
const UNPAIRED_SURROGATE = /\p{Cs}/u;

/**
 * A client's JSON value as an error detail names it: a scalar as JSON, cut at 40 characters; an
 * object or array by its kind only — serialized whole, one nested thousands of levels deep would
 * exhaust the call stack, and a 5 MB one would make a 5 MB detail.
 */
export function describeJson(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function normalizeScalar(
  attribute: AttributeDefinition,
  value: unknown,
  path: string,
  issues: ValidationIssue[],
  tolerances: Tolerances,
): unknown {
  switch (attribute.type) {
    case "string":
    case "reference":
    case "binary":
      if (typeof value !== "string") {
        issues.push({ path, message: `expected a string, got ${describeJson(value)}` });
        return undefined;
      }
      // RFC 7643 §2.3.1: a string is Unicode characters in UTF-8, which an unpaired surrogate
      // (a legal JSON escape, RFC 8259 §8.2) is not; PostgreSQL's jsonb refuses to store one.
      if (UNPAIRED_SURROGATE.test(value)) {
        issues.push({ path, message: "holds an unpaired UTF-16 surrogate, which is not a Unicode character" });
        return undefined;
      }
      return value;
    case "boolean":
      if (typeof value === "boolean") return value;
      // Tolerances.stringBooleans: Microsoft Entra ID sends "True"/"False" strings for booleans.
      if (tolerances.stringBooleans && typeof value === "string" && /^(true|false)$/i.test(value)) return value.toLowerCase() === "true";
      issues.push({ path, message: `expected a boolean, got ${describeJson(value)}` });
      return undefined;
    case "integer":
      if (typeof value === "number" && Number.isSafeInteger(value)) return value;
      issues.push({ path, message: `expected an integer, got ${describeJson(value)}` });
      return undefined;
    case "decimal":
      if (typeof value === "number" && Number.isFinite(value)) return value;
      issues.push({ path, message: `expected a number, got ${describeJson(value)}` });
      return undefined;
    case "dateTime": {
      const time = typeof value === "string" ? parseDateTime(value) : undefined;
      // Stored in one canonical form so that stores can compare dateTimes as text.
      if (time !== undefined) return new Date(time).toISOString();
      issues.push({ path, message: `expected a dateTime such as "2025-01-31T12:00:00Z", got ${describeJson(value)}` });
      return undefined;
    }
    case "complex":
      return undefined;
  }
}

function normalizeComplex(
  attribute: AttributeDefinition,
  value: unknown,
  path: string,
  issues: ValidationIssue[],
  options: NormalizeValueOptions,
): ScimObject | undefined {
  // Tolerances.bareStringComplex: Entra sends the enterprise `manager` as a bare id; a bare string
  // means the `value` sub-attribute.
  if (typeof value === "string" && (options.tolerances ?? ALL_TOLERANCES).bareStringComplex && findSubAttribute(attribute, "value")) {
    return normalizeComplex(attribute, { value }, path, issues, options);
  }
  if (!isPlainObject(value)) {
    issues.push({ path, message: `expected an object, got ${describeJson(value)}` });
    return undefined;
  }
  const result: ScimObject = {};
  for (const [key, raw] of Object.entries(value)) {
    const sub = findSubAttribute(attribute, key);
    if (!sub) continue;
    const normalized = normalizeAttributeValue(sub, raw, `${path}.${sub.name}`, issues, options);
    if (normalized !== undefined) result[sub.name] = normalized;
  }
  return Object.keys(result).length === 0 ? undefined : result;
}

/**
 * Normalizes `value` for `attribute`. Returns `undefined` when the value is unassigned
 * (RFC 7643 §2.5: null and empty arrays mean no value) or dropped; type errors are appended to
 * `issues` with `path` (`emails[0].value`), so a caller reports every problem at once.
 */
export function normalizeAttributeValue(
  attribute: AttributeDefinition,
  value: unknown,
  path: string,
  issues: ValidationIssue[],
  options: NormalizeValueOptions = {},
): unknown {
  if (value === null || value === undefined) return undefined;
  if (attribute.mutability === "readOnly" && options.dropReadOnly !== false) return undefined;
  if (attribute.multiValued) {
    // A lone value where an array belongs is read as an array of one; for a complex attribute only
    // a lone object, so that `emails: "x"` is a type error rather than `[{ value: "x" }]`.
    if (!Array.isArray(value) && attribute.type === "complex" && !isPlainObject(value)) {
      issues.push({ path, message: `expected an array of objects, got ${describeJson(value)}` });
      return undefined;
    }
    const elements = Array.isArray(value) ? value : [value];
    const result: unknown[] = [];
    elements.forEach((element, index) => {
      const normalized = normalizeElement(attribute, element, `${path}[${index}]`, issues, options);
      if (normalized !== undefined) result.push(normalized);
    });
    // RFC 7643 §2.4: "The primary attribute value 'true' MUST appear no more than once."
    if (result.filter((element) => isPlainObject(element) && element["primary"] === true).length > 1) {
      issues.push({ path, message: "more than one value is marked primary" });
    }
    return result.length === 0 ? undefined : result;
  }
  // Tolerances.arrayOfOne: Entra's documented manager PATCH sends a single-valued complex attribute
  // as an array of one ("Develop and plan provisioning for a SCIM endpoint", example 5); one element
  // is unambiguous.
  if (Array.isArray(value) && value.length === 1 && attribute.type === "complex" && (options.tolerances ?? ALL_TOLERANCES).arrayOfOne) {
    return normalizeElement(attribute, value[0], path, issues, options);
  }
  return normalizeElement(attribute, value, path, issues, options);
}

/**
 * Normalizes one value of `attribute` as if it were single-valued: one element of a multi-valued
 * attribute, as a PATCH on `emails[type eq "work"]` supplies it.
 */
export function normalizeElement(
  attribute: AttributeDefinition,
  value: unknown,
  path: string,
  issues: ValidationIssue[],
  options: NormalizeValueOptions = {},
): unknown {
  if (value === null || value === undefined) return undefined;
  if (attribute.type === "complex") return normalizeComplex(attribute, value, path, issues, options);
  return normalizeScalar(attribute, value, path, issues, options.tolerances ?? ALL_TOLERANCES);
}
