/**
 * Binds a parsed filter to the schema of one resource type (RFC 7644 §3.4.2.2): every path becomes
 * a `ResolvedPath`, every comparison is checked against the attribute's type, and comparison values
 * are normalized so that consumers (the in-memory evaluator, SQL compilers) never see a filter
 * they would have to reject themselves.
 */
import { ScimType, badRequest } from "../../errors.js";
import { fail, ok, type Result } from "../../result.js";
import type { Tolerances } from "../compatibility/compatibility-profile.js";
import { ALL_TOLERANCES } from "../compatibility/compatibility-profiles.js";
import type { AttributeDefinition } from "../schema/attribute-definition.js";
import { parseDateTime } from "../schema/normalize-value.js";
import { formatPath, leafOf, type ResolvedPath } from "../schema/resolved-path.js";
import type { ResourceSchema } from "../schema/schema-registry.js";
import type { CompareFilter, CompareOperator, Filter, FilterValue, ParsedFilter } from "./filter-ast.js";
import { parseFilter, type FilterLimits } from "./parse-filter.js";

class FilterBindingError extends Error {}

const ORDERING: ReadonlySet<CompareOperator> = new Set(["gt", "ge", "lt", "le"]);
const SUBSTRING: ReadonlySet<CompareOperator> = new Set(["co", "sw", "ew"]);

function describeValue(value: FilterValue): string {
  if (value === null) return "null";
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  return `the ${typeof value} ${String(value)}`;
}

function subAttributeNames(attribute: AttributeDefinition): string {
  return (attribute.subAttributes ?? []).map((sub) => sub.name).join(", ");
}

/**
 * Checks `op value` against the leaf attribute's type and returns the value in the form consumers
 * compare: booleans as booleans, dateTimes in the canonical `toISOString()` form that stored
 * values have (so a store may compare dateTimes as text).
 */
function bindValue(
  display: string,
  leaf: AttributeDefinition,
  op: CompareOperator,
  value: FilterValue,
  tolerances: Tolerances,
): FilterValue {
  if (value === null) {
    // RFC 7644 §3.4.2.2 only gives `null` a meaning as "no value": equality is the one test that applies.
    if (op !== "eq" && op !== "ne") throw new FilterBindingError(`"${display} ${op} null": null can only be compared with eq or ne`);
    return null;
  }
  const mismatch = (expected: string): FilterBindingError =>
    new FilterBindingError(`"${display}" is ${expected}; it cannot be compared with ${describeValue(value)}`);
  const refuse = (kind: string, allowed: string): FilterBindingError =>
    new FilterBindingError(`"${display}" is ${kind}; "${op}" does not apply to it (use ${allowed})`);
  switch (leaf.type) {
    case "string":
    case "reference":
      if (typeof value !== "string") throw mismatch("a string attribute");
      return value;
    case "binary":
      // RFC 7644 §3.4.2.2: ordering on binary SHALL fail; substrings of base64 text mean nothing either.
      if (ORDERING.has(op) || SUBSTRING.has(op)) throw refuse("a binary attribute", "eq or ne");
      if (typeof value !== "string") throw mismatch("a binary attribute (base64 text)");
      return value;
    case "boolean":
      // RFC 7644 §3.4.2.2: ordering on booleans SHALL fail with invalidFilter; substrings are no better.
      if (op !== "eq" && op !== "ne") throw refuse("a boolean attribute", "eq or ne");
      if (typeof value === "boolean") return value;
      // Tolerances.stringBooleans: Microsoft Entra ID sends booleans as "True"/"False" strings.
      if (tolerances.stringBooleans && typeof value === "string" && /^(?:true|false)$/i.test(value)) return value.toLowerCase() === "true";
      if (typeof value === "string" && /^(?:true|false)$/i.test(value)) {
        throw new FilterBindingError(
          `"${display}" is a boolean attribute; compare it with true or false unquoted, not ${describeValue(value)}`,
        );
      }
      throw mismatch("a boolean attribute");
    case "integer":
    case "decimal":
      if (SUBSTRING.has(op))
        throw refuse(leaf.type === "integer" ? "an integer attribute" : "a decimal attribute", "eq, ne, gt, ge, lt or le");
      if (typeof value !== "number") throw mismatch(`a numeric (${leaf.type}) attribute`);
      return value;
    case "dateTime": {
      if (SUBSTRING.has(op)) throw refuse("a dateTime attribute", "eq, ne, gt, ge, lt or le");
      const time = typeof value === "string" ? parseDateTime(value) : undefined;
      if (time === undefined) {
        throw new FilterBindingError(
          `"${display}" is a dateTime attribute; ${describeValue(value)} is not an ISO 8601 date-time such as "2011-05-13T04:42:34Z"`,
        );
      }
      return new Date(time).toISOString();
    }
    case "complex":
      throw new FilterBindingError(`"${display}" is a complex attribute; compare one of its sub-attributes (${subAttributeNames(leaf)})`);
  }
}

function createBinder(schema: ResourceSchema, tolerances: Tolerances) {
  const resolve = (text: string): ResolvedPath => {
    const resolution = schema.resolvePath(text);
    if (!resolution.ok) throw new FilterBindingError(`unknown attribute "${text}": ${resolution.reason}`);
    return resolution.path;
  };

  // Inside `attr[…]` the paths name sub-attributes of `attr` (RFC 7644 §3.4.2.2 `valFilter`);
  // prefixing the canonical text of `attr` keeps an extension attribute's URN.
  const resolveIn = (text: string, within: ResolvedPath | undefined): ResolvedPath =>
    resolve(within ? `${formatPath(within)}.${text}` : text);

  // RFC 7644 §3.4.2.2 compares `emails co "example.com"`: a complex attribute compared as a whole
  // stands for its `value` sub-attribute. Ordering a whole complex value means nothing, so it is refused.
  const bindWhole = (path: ResolvedPath, op: CompareOperator): ResolvedPath => {
    const display = formatPath(path);
    const names = subAttributeNames(path.attribute);
    if (ORDERING.has(op))
      throw new FilterBindingError(`"${display}" is a complex attribute; "${op}" needs one of its sub-attributes (${names})`);
    const value = path.attribute.subAttributes?.find((sub) => sub.name === "value");
    if (!value) throw new FilterBindingError(`"${display}" is a complex attribute; compare one of its sub-attributes (${names})`);
    return { ...path, subAttribute: value };
  };

  const bindCompare = (filter: CompareFilter<string>, within: ResolvedPath | undefined): Filter => {
    const { op, value } = filter;
    let path = resolveIn(filter.path, within);
    if (!path.subAttribute && path.attribute.type === "complex") {
      // `name eq null` asks whether the complex attribute has any value at all; it needs no sub-attribute.
      if (value === null && (op === "eq" || op === "ne")) return { kind: "compare", path, op, value };
      path = bindWhole(path, op);
    }
    return { kind: "compare", path, op, value: bindValue(formatPath(path), leafOf(path), op, value, tolerances) };
  };

  const bind = (filter: ParsedFilter, within: ResolvedPath | undefined): Filter => {
    switch (filter.kind) {
      case "compare":
        return bindCompare(filter, within);
      case "present":
        // RFC 7644 §3.4.2.2 `pr` applies to every type, complex attributes included ("a non-empty node").
        return { kind: "present", path: resolveIn(filter.path, within) };
      case "and":
      case "or":
        return { kind: filter.kind, filters: filter.filters.map((child) => bind(child, within)) };
      case "not":
        return { kind: "not", filter: bind(filter.filter, within) };
      case "valuePath": {
        if (within) throw new FilterBindingError(`"${filter.path}[…]" cannot appear inside "${formatPath(within)}[…]"`);
        const path = resolve(filter.path);
        if (path.subAttribute || path.attribute.type !== "complex") {
          throw new FilterBindingError(`"${formatPath(path)}[…]" needs a complex attribute, and "${formatPath(path)}" is not one`);
        }
        return { kind: "valuePath", path, filter: bind(filter.filter, path) };
      }
    }
  };

  return bind;
}

/**
 * Binds every path of `filter` to `schema` and checks each comparison against the attribute's type
 * (RFC 7644 §3.4.2.2). Fails with 400 `invalidFilter` for an unknown attribute, an operator the
 * attribute's type does not support (ordering on booleans, binaries and complex attributes;
 * substrings on anything but strings), or a value of the wrong type.
 *
 * Normalizations: a complex attribute compared as a whole (`emails co "x"`) binds to its `value`
 * sub-attribute; `"true"`/`"false"` strings against a boolean become booleans (with
 * `tolerances.stringBooleans`, the default); dateTime values become their canonical `toISOString()`
 * text; inside `attr[…]` every path is the full `attr.sub` path.
 */
export function resolveFilter(
  schema: ResourceSchema,
  filter: ParsedFilter,
  tolerances: Tolerances = ALL_TOLERANCES,
): Result<Filter<ResolvedPath>> {
  try {
    return ok(createBinder(schema, tolerances)(filter, undefined));
  } catch (error) {
    if (error instanceof FilterBindingError) return fail(badRequest(ScimType.invalidFilter, `Invalid filter: ${error.message}.`));
    throw error;
  }
}

/** Parses `text` within `limits` and binds it to `schema`: the one call the list endpoints need. */
export function compileFilter(
  schema: ResourceSchema,
  text: string,
  limits: Partial<FilterLimits> = {},
  tolerances: Tolerances = ALL_TOLERANCES,
): Result<Filter<ResolvedPath>> {
  const parsed = parseFilter(text, limits);
  return parsed.ok ? resolveFilter(schema, parsed.value, tolerances) : parsed;
}
