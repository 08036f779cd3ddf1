/**
 * Compiles a resolved SCIM filter (RFC 7644 §3.4.2.2, architecture §3) to one SQL condition over
 * `scimkit_resources`, agreeing with `matchesFilter(resourceView(type, resource), filter)` on every
 * stored (canonical) resource. It is a consumer of the filter AST like `matchesFilter` is (architecture
 * §6.3) and switches on `kind` the same way; what differs between databases is left to the
 * `FilterDialect` hooks (§6.4).
 *
 * Filter values only ever reach the database as bound parameters. Equality on `id`, `externalId`
 * and unique attributes is written so the planner uses an index: `r.id = ?`, `r.external_id = ?`,
 * and a lookup of `scimkit_unique_keys` by its primary key. Substring and equality tests on
 * `emails.value` also test the dialect's search column where it has one (`searchPrefilter`).
 */
import { sql, type Expression, type SqlBool } from "kysely";
import type { AttributeDefinition } from "../../../scim/schema/attribute-definition.js";
import type { CompareFilter, CompareOperator, Filter, FilterValue } from "../../../scim/filter/filter-ast.js";
import { parseDateTime } from "../../../scim/schema/normalize-value.js";
import { formatPath, leafOf, type ResolvedPath } from "../../../scim/schema/resolved-path.js";
import { isUniqueAttribute, uniqueValue } from "../../../scim/schema/unique-value.js";
import { isColumnPath, resourceCandidates, resourceColumn, sideTableLookup } from "./resource-candidates.js";
import { searchPrefilter } from "./search-prefilter.js";
import { noCandidates, type SqlCandidate, type SqlCandidates, type SqlValue } from "./sql-candidates.js";
import { allOf, anyOf, conditionSql, negate, sqlCondition, type Condition } from "./sql-condition.js";
import { compileScope, type CompileScope, type SqlFilterContext } from "./sql-filter-context.js";

export type { SqlFilterContext } from "./sql-filter-context.js";

/** Where paths are read: the resource, or one element inside `attr[…]`. */
interface Reader {
  candidates(path: ResolvedPath): SqlCandidates;
  /** The index lookup (or the source's own equality) for `path eq value`, where one answers it exactly. */
  indexed(path: ResolvedPath, value: Exclude<FilterValue, null>): Condition | undefined;
}

type OrderingOperator = Exclude<CompareOperator, "ne" | "co" | "sw" | "ew">;

const SYMBOLS: Readonly<Record<OrderingOperator, string>> = { eq: "=", gt: ">", ge: ">=", lt: "<", le: "<=" };

/** `left op right`; text orders by code point (`binaryText`), as `matchesFilter` compares strings. */
function comparison(scope: CompileScope, left: SqlValue, op: OrderingOperator, right: Expression<unknown>, text: boolean): Condition {
  const operand = text && op !== "eq" ? scope.dialect.binaryText(left.sql) : left.sql;
  return sqlCondition(sql<SqlBool>`${operand} ${sql.raw(SYMBOLS[op])} ${right}`, left.nullable);
}

/** Whether one candidate compares to `value` as `op` (`matchesFilter`'s `compareValues`). */
function compareCandidate(
  scope: CompileScope,
  candidate: SqlCandidate,
  leaf: AttributeDefinition,
  op: OrderingOperator,
  value: FilterValue,
): Condition {
  switch (leaf.type) {
    case "string":
    case "reference":
    case "binary": {
      const text = candidate.text();
      if (typeof value !== "string" || !text) return false;
      // RFC 7643 §2.3.6: binary values are case-exact whatever the definition says.
      const caseExact = leaf.caseExact || leaf.type === "binary";
      const left = caseExact ? text : { sql: scope.dialect.lower(text.sql), nullable: text.nullable };
      return comparison(scope, left, op, sql.val(caseExact ? value : value.toLowerCase()), true);
    }
    case "dateTime": {
      // Stored dateTimes are canonical `toISOString()` text (normalize-value.ts), so comparing the
      // literal in the same form compares instants (RFC 7644 §3.4.2.2: chronologically).
      const text = candidate.text();
      const time = typeof value === "string" ? parseDateTime(value) : undefined;
      if (time === undefined || !text) return false;
      return comparison(scope, text, op, sql.val(new Date(time).toISOString()), true);
    }
    case "integer":
    case "decimal": {
      const number = candidate.number();
      if (typeof value !== "number" || !number) return false;
      return comparison(scope, number, op, sql.val(value), false);
    }
    case "boolean": {
      // RFC 7644 §3.4.2.2: booleans have no order.
      const boolean = candidate.boolean();
      if (typeof value !== "boolean" || op !== "eq" || !boolean) return false;
      return comparison(scope, boolean, op, scope.dialect.bindBoolean(value), false);
    }
    case "complex":
      return false;
  }
}

/** Whether one candidate contains, starts or ends with `value` (`matchesFilter`'s `matchesSubstring`). */
function substringCandidate(
  scope: CompileScope,
  candidate: SqlCandidate,
  leaf: AttributeDefinition,
  op: "co" | "sw" | "ew",
  value: FilterValue,
): Condition {
  const text = candidate.text();
  if (typeof value !== "string" || (leaf.type !== "string" && leaf.type !== "reference") || !text) return false;
  const left = leaf.caseExact ? text.sql : scope.dialect.lower(text.sql);
  return sqlCondition(scope.dialect.substring(left, op, leaf.caseExact ? value : value.toLowerCase()), text.nullable);
}

/**
 * Whether one candidate of `definition` has a value (`hasValue`): a non-empty string, any number
 * or boolean, an object with a sub-attribute that has one. Canonical attributes hold only the
 * schema's sub-attributes, so those are the ones to look at.
 */
export function presentCandidate(scope: CompileScope, candidate: SqlCandidate, definition: AttributeDefinition): Condition {
  switch (definition.type) {
    case "string":
    case "reference":
    case "binary":
    case "dateTime": {
      const text = candidate.text();
      if (!text) return false;
      return text.alwaysPresent === true || sqlCondition(sql<SqlBool>`${text.sql} <> ''`, text.nullable);
    }
    case "integer":
    case "decimal":
    case "boolean": {
      const value = definition.type === "boolean" ? candidate.boolean() : candidate.number();
      return value ? sqlCondition(sql<SqlBool>`${value.sql} is not null`, false) : false;
    }
    case "complex":
      return anyOf((definition.subAttributes ?? []).map((sub) => candidate.sub(sub).some((value) => presentCandidate(scope, value, sub))));
  }
}

function compileCompare(scope: CompileScope, filter: CompareFilter<ResolvedPath>, reader: Reader): Condition {
  const { path, op, value } = filter;
  const leaf = leafOf(path);
  const candidates = reader.candidates(path);
  // RFC 7644 §3.4.2.2 matches a multi-valued attribute when ANY value matches; `ne` is the
  // negation of `eq` (matches-filter.ts says why), so it holds for an absent attribute, and
  // `eq null` holds exactly when the attribute has no value.
  const equal = (): Condition => {
    if (value === null) return negate(candidates.some((candidate) => presentCandidate(scope, candidate, leaf)));
    const indexed = reader.indexed(path, value);
    return indexed ?? candidates.some((candidate) => compareCandidate(scope, candidate, leaf, "eq", value));
  };
  switch (op) {
    case "eq":
      return equal();
    case "ne":
      return negate(equal());
    case "co":
    case "sw":
    case "ew":
      return candidates.some((candidate) => substringCandidate(scope, candidate, leaf, op, value));
    case "gt":
    case "ge":
    case "lt":
    case "le":
      return candidates.some((candidate) => compareCandidate(scope, candidate, leaf, op, value));
  }
}

function compileNode(scope: CompileScope, filter: Filter<ResolvedPath>, reader: Reader): Condition {
  switch (filter.kind) {
    case "compare":
      return compileCompare(scope, filter, reader);
    case "present":
      return reader.candidates(filter.path).some((candidate) => presentCandidate(scope, candidate, leafOf(filter.path)));
    case "and":
      return allOf(filter.filters.map((child) => compileNode(scope, child, reader)));
    case "or":
      return anyOf(filter.filters.map((child) => compileNode(scope, child, reader)));
    case "not":
      return negate(compileNode(scope, filter.filter, reader));
    case "valuePath":
      // RFC 7644 §3.4.2.2 `attr[valFilter]`: ONE element satisfies the whole inner filter, so the
      // inner filter is compiled against that element inside the element's own subquery.
      return reader
        .candidates(filter.path)
        .some((element) => allOf([element.isObject(), compileNode(scope, filter.filter, elementReader(element, filter.path))]));
  }
}

/**
 * `matchesFilter`'s `readFromElement`: inside `attr[…]` every path is `attr.sub` and reads that
 * element's sub-attribute; anything else names nothing there.
 */
function elementReader(element: SqlCandidate, outer: ResolvedPath): Reader {
  return {
    candidates: (path) =>
      path.subAttribute && path.attribute === outer.attribute && path.schema === outer.schema
        ? element.sub(path.subAttribute)
        : noCandidates,
    indexed: () => undefined,
  };
}

/**
 * `path eq value` through an index, where the stored copy answers it exactly: `id` and
 * `externalId` are caseExact columns (RFC 7643 §3.1) compared as they are; a unique attribute is
 * looked up in `scimkit_unique_keys`, which holds exactly `uniqueKeysOf(attributes)` — the string
 * value in NFC, lower-cased unless caseExact (`uniqueValue`) — so the lookup matches what
 * `matchesFilter` matches.
 */
function indexedEquality(scope: CompileScope, path: ResolvedPath, value: string): Condition | undefined {
  if (path.subAttribute) return undefined;
  if (isColumnPath(path)) {
    const column = path.attribute.name === "id" ? "id" : path.attribute.name === "externalId" ? "external_id" : undefined;
    if (!column || !path.attribute.caseExact) return undefined;
    return sqlCondition(sql<SqlBool>`${resourceColumn(scope, column)} = ${sql.val(value)}`, column === "external_id");
  }
  if (!isUniqueAttribute(path.attribute)) return undefined;
  const alias = scope.alias("uk");
  const column = (name: string): Expression<unknown> => sql.ref(`${alias}.${name}`);
  const where = sql<SqlBool>`${column("org_id")} = ${resourceColumn(scope, "org_id")} and ${column("resource_type")} = ${resourceColumn(
    scope,
    "resource_type",
  )} and ${column("attribute")} = ${sql.val(formatPath(path))} and ${column("value")} = ${sql.val(
    uniqueValue(value, path.attribute.caseExact),
  )}`;
  return sideTableLookup(scope, "scimkit_unique_keys", alias, "id", where);
}

/**
 * The SQL condition, over the row `context.resource` of `scimkit_resources`, that holds exactly
 * for the resources `matchesFilter(resourceView(type, resource), filter)` accepts — given that the
 * row holds canonical attributes and its `scimkit_unique_keys` rows are `uniqueKeysOf` them, as the
 * store writes them.
 *
 * The condition may evaluate to NULL where the filter does not match, which a WHERE clause reads
 * as false; wrap it in `(…) is true` before negating or selecting it. SQLite connections must have
 * `registerSqliteFunctions` applied.
 *
 * @example
 * db.selectFrom("scimkit_resources as r").select("r.id")
 *   .where("r.org_id", "=", orgId).where("r.resource_type", "=", "User")
 *   .where(compileFilterSql(filter, { dialect: sqliteFilterDialect, resource: "r" }))
 */
export function compileFilterSql(filter: Filter<ResolvedPath>, context: SqlFilterContext): Expression<SqlBool> {
  const scope = compileScope(context);
  const { source } = context;
  if (source) {
    // Another row than the SQL store's: the source reads the paths, and the search prefilter,
    // which tests a column of `scimkit_resources`, does not apply.
    const reader: Reader = {
      candidates: (path) => source.candidates(path, scope),
      indexed: (path, value) => source.indexed(path, value, scope),
    };
    return conditionSql(compileNode(scope, filter, reader));
  }
  const reader: Reader = {
    candidates: (path) => resourceCandidates(path, scope),
    indexed: (path, value) => (typeof value === "string" ? indexedEquality(scope, path, value) : undefined),
  };
  // The prefilter is implied by the filter, so ANDing it changes no result; it gives the planner
  // an index to start from where the dialect has a search column (`searchPrefilter`).
  return conditionSql(allOf([searchPrefilter(scope, filter), compileNode(scope, filter, reader)]));
}
