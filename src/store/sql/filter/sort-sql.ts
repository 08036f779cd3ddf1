/**
 * The list order (RFC 7644 §3.4.2.3) as SQL: ORDER BY items and the keyset condition behind
 * RFC 9865 cursors, both computing exactly `sortKeyOf` and ordering exactly as
 * `compareListEntries` does — by the sort key (missing values last ascending, first descending),
 * then by id ascending — so a cursor the core encodes from a returned resource resumes at the
 * right row, and rows inserted meanwhile neither repeat nor shift the pages.
 */
import { sql, type Expression, type SqlBool } from "kysely";
import type { SortKey } from "../../../scim/list/sort-key.js";
import type { AttributeDefinition } from "../../../scim/schema/attribute-definition.js";
import { leafOf, type ResolvedPath } from "../../../scim/schema/resolved-path.js";
import type { SortPosition, SortSpec } from "../../resource-store.js";
import { isMembersPath } from "../../filter-mentions.js";
import { jsonChild, type JsonRef } from "./json-ref.js";
import { attributeRef, resourceColumn, versionTag } from "./resource-candidates.js";
import { allOf, anyOf, conditionSql, sqlCondition, type Condition } from "./sql-condition.js";
import { compileScope, type CompileScope, type SqlFilterContext } from "./sql-filter-context.js";

/** A sort key as SQL: the expression (text already case-folded and in code-point order) and its type. */
export interface SortKeySql {
  readonly expression: Expression<unknown>;
  /** The JavaScript type of the `SortKey` it computes; NULL where `sortKeyOf` gives null. */
  readonly type: "string" | "number" | "boolean";
}

function keyType(definition: AttributeDefinition): SortKeySql["type"] | undefined {
  switch (definition.type) {
    case "string":
    case "reference":
    case "binary":
    case "dateTime":
      return "string";
    case "integer":
    case "decimal":
      return "number";
    case "boolean":
      return "boolean";
    case "complex":
      return undefined;
  }
}

/** A text key as `sortKeyOf` makes it: lower-cased unless the path's leaf is caseExact. */
function textKey(scope: CompileScope, text: Expression<unknown>, caseExact: boolean): Expression<unknown> {
  return caseExact ? text : scope.dialect.lower(text);
}

/** The key of the JSON value at `ref`, read as `definition`'s type. */
function jsonKey(scope: CompileScope, ref: JsonRef, definition: AttributeDefinition, caseExact: boolean): SortKeySql | undefined {
  const type = keyType(definition);
  if (type === "string") return { expression: textKey(scope, scope.dialect.jsonText(ref), caseExact), type };
  if (type === "number") return { expression: scope.dialect.jsonNumber(ref), type };
  if (type === "boolean") return { expression: scope.dialect.jsonBoolean(ref), type };
  return undefined;
}

/** `sortKeyOf` reads a complex value's `sub`, or its `value` sub-attribute when the path names none. */
function complexKeyDefinition(path: ResolvedPath): AttributeDefinition | undefined {
  const definition = path.subAttribute ?? path.attribute.subAttributes?.find((sub) => sub.name === "value");
  // A multi-valued sub-attribute holds an array, which is no sort key.
  return definition && !definition.multiValued ? definition : undefined;
}

function metaKey(scope: CompileScope, path: ResolvedPath, caseExact: boolean): SortKeySql | undefined {
  const columns: Readonly<Record<string, string>> = { resourceType: "resource_type", created: "created", lastModified: "last_modified" };
  const name = path.subAttribute?.name;
  if (name === "version") return { expression: textKey(scope, versionTag(scope), caseExact), type: "string" };
  const column = name === undefined ? undefined : columns[name];
  return column ? { expression: textKey(scope, resourceColumn(scope, column), caseExact), type: "string" } : undefined;
}

/** The first member (members list in the order they were added, `position`) gives the key. */
function membersKey(scope: CompileScope, path: ResolvedPath, caseExact: boolean): SortKeySql | undefined {
  const name = complexKeyDefinition(path)?.name;
  const column = name === "value" ? "member_id" : name === "type" ? "member_type" : undefined;
  if (!column) return undefined;
  const m = scope.alias("m");
  const ref = (name: string): Expression<unknown> => sql.ref(`${m}.${name}`);
  const first = sql`(select ${textKey(scope, ref(column), caseExact)} from ${sql.table("scimkit_members")} as ${sql.id(m)} where ${ref(
    "org_id",
  )} = ${resourceColumn(scope, "org_id")} and ${ref("group_id")} = ${resourceColumn(scope, "id")} order by ${ref("position")}, ${ref(
    "member_id",
  )} limit 1)`;
  return { expression: first, type: "string" };
}

/**
 * The sort key of `path` read from the JSON at `ref`, which holds its top-level attribute:
 * `sortKeyOf` over a stored JSON document, for the SQL store's `attributes` and for any other
 * JSON column (the table store's column of unmapped attributes).
 */
export function jsonSortKeySql(scope: CompileScope, path: ResolvedPath, ref: JsonRef): SortKeySql | undefined {
  return attributeKey(scope, path, leafOf(path).caseExact, ref);
}

function attributeKey(
  scope: CompileScope,
  path: ResolvedPath,
  caseExact: boolean,
  ref: JsonRef = attributeRef(path, scope),
): SortKeySql | undefined {
  const { attribute } = path;
  if (attribute.type !== "complex") {
    // RFC 7644 §3.4.2.3: a multi-valued attribute sorts by its primary value, else its first;
    // plain values carry no `primary`, so it is the first.
    return jsonKey(scope, attribute.multiValued ? jsonChild(ref, 0) : ref, attribute, caseExact);
  }
  const definition = complexKeyDefinition(path);
  if (!definition) return undefined;
  if (!attribute.multiValued) return jsonKey(scope, jsonChild(ref, definition.name), definition, caseExact);
  const elements = scope.dialect.jsonElements(ref, scope.alias("s"));
  const key = jsonKey(scope, jsonChild(elements.element, definition.name), definition, caseExact);
  if (!key) return undefined;
  // The primary element (the first with `primary: true`) else the first element, then its value:
  // an element chosen this way that lacks the sub-attribute gives no key, as in `sortKeyOf`.
  const primary = scope.dialect.jsonBoolean(jsonChild(elements.element, "primary"));
  const chosen = sql`(select ${key.expression} from ${elements.from} order by case when ${primary} is true then 0 else 1 end, ${elements.index} limit 1)`;
  return { expression: chosen, type: key.type };
}

function rawSortKeySql(scope: CompileScope, path: ResolvedPath): SortKeySql | undefined {
  const { caseExact } = leafOf(path);
  if (!path.extension) {
    switch (path.attribute.name) {
      case "id":
        return { expression: resourceColumn(scope, "id"), type: "string" };
      case "externalId":
        return { expression: textKey(scope, resourceColumn(scope, "external_id"), caseExact), type: "string" };
      case "meta":
        return metaKey(scope, path, caseExact);
    }
    if (isMembersPath(path)) return membersKey(scope, path, caseExact);
  }
  return attributeKey(scope, path, caseExact);
}

/** The row's id as text: the SQL store's `id` column, or what the row source says. */
function idSql(scope: CompileScope): Expression<unknown> {
  return scope.source ? scope.source.id(scope) : resourceColumn(scope, "id");
}

function scopedSortKeySql(scope: CompileScope, path: ResolvedPath): SortKeySql | undefined {
  const key = scope.source ? scope.source.sortKey(path, scope) : rawSortKeySql(scope, path);
  // Strings order by code point (`compareSortKeys` compares JavaScript strings).
  return key && key.type === "string" ? { expression: scope.dialect.binaryText(key.expression), type: key.type } : key;
}

/**
 * `sortKeyOf(resourceView(type, row), path)` as SQL over the row `context.resource`, or undefined
 * when that is null for every canonical resource (`meta.location`, a complex attribute without a
 * `value` sub-attribute).
 */
export function sortKeySql(path: ResolvedPath, context: SqlFilterContext): SortKeySql | undefined {
  return scopedSortKeySql(compileScope(context), path);
}

/**
 * The ORDER BY items of the list order: the sort key in the requested direction (missing values
 * after every present one ascending, before them descending), then the id ascending; by id alone
 * without a sort. Pass each to `orderBy`.
 *
 * @example
 * let query = db.selectFrom("scimkit_resources as r").selectAll("r");
 * for (const item of orderBySql(request.sort, context)) query = query.orderBy(item);
 */
export function orderBySql(sort: SortSpec | undefined, context: SqlFilterContext): readonly Expression<unknown>[] {
  const scope = compileScope(context);
  const byId = sql`${scope.dialect.binaryText(idSql(scope))} asc`;
  const key = sort ? scopedSortKeySql(scope, sort.path) : undefined;
  if (!sort || !key) return [byId];
  const ascending = sort.order === "ascending";
  return [...scope.dialect.orderBy(key.expression, ascending ? "asc" : "desc", ascending ? "last" : "first"), byId];
}

const RANK = { boolean: 0, number: 1, string: 2 } as const;

/**
 * The rows that come strictly after `after` in the list order of `sort` (`compareListEntries`
 * greater than 0): keyset paging, so a page depends only on the position, not on how many rows
 * came before it. Without a sort the order is by id alone and `after.key` is ignored.
 *
 * @example
 * if (page.after) query = query.where(keysetAfterSql(request.sort, page.after, context));
 */
export function keysetAfterSql(sort: SortSpec | undefined, after: SortPosition, context: SqlFilterContext): Expression<SqlBool> {
  const scope = compileScope(context);
  const { dialect } = scope;
  const laterId = sqlCondition(sql<SqlBool>`${dialect.binaryText(idSql(scope))} > ${sql.val(after.id)}`, false);
  if (!sort) return conditionSql(laterId);
  const ascending = sort.order === "ascending";
  const key = scopedSortKeySql(scope, sort.path);
  if (!key) {
    // Every row's key is null: after a null position come the later ids; after a present one,
    // every row ascending (null sorts last) and none descending (null sorts first).
    return conditionSql(after.key === null ? laterId : ascending);
  }
  const isNull = sqlCondition(sql<SqlBool>`${key.expression} is null`, false);
  const isPresent = sqlCondition(sql<SqlBool>`${key.expression} is not null`, false);
  if (after.key === null) return conditionSql(ascending ? allOf([isNull, laterId]) : anyOf([isPresent, laterId]));
  const positionType = typeof after.key as keyof typeof RANK;
  if (positionType !== key.type) {
    // Keys of different types order by type (`compareSortKeys`); a cursor from another schema may carry one.
    const rowsGreater = RANK[key.type] > RANK[positionType];
    return conditionSql(ascending ? (rowsGreater ? true : isNull) : rowsGreater ? false : isPresent);
  }
  const position = bindKey(scope, after.key);
  const compare = (operator: ">" | "<" | "="): Condition =>
    sqlCondition(sql<SqlBool>`${key.expression} ${sql.raw(operator)} ${position}`, true);
  const tie = allOf([compare("="), laterId]);
  return conditionSql(ascending ? anyOf([compare(">"), isNull, tie]) : anyOf([compare("<"), tie]));
}

function bindKey(scope: CompileScope, key: Exclude<SortKey, null>): Expression<unknown> {
  return typeof key === "boolean" ? scope.dialect.bindBoolean(key) : sql.val(key);
}
