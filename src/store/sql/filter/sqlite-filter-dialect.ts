/**
 * The SQLite hooks of the filter compiler (SQLite 3.38 or later: JSON functions built in, NULLS
 * FIRST/LAST, TRUE/FALSE; better-sqlite3 12 bundles 3.5x). `attributes` is JSON text; `json_each` iterates arrays. Case folding calls
 * `scimkit_lower`, which the store registers on every connection (`registerSqliteFunctions`).
 */
import { sql, type Expression, type SqlBool } from "kysely";
import type { FilterDialect, JsonElements } from "./filter-dialect.js";
import { jsonPathText, type JsonRef } from "./json-ref.js";
import { SQLITE_LOWER_FUNCTION } from "./register-sqlite-functions.js";
import { globPattern } from "./substring-pattern.js";

/** json_<fn>(json, path) for a ref; an element with no path is json_each's own column. */
function read(ref: JsonRef, elementColumn: "value" | "type", fn: "json_extract" | "json_type"): Expression<unknown> {
  if (ref.base.kind === "element") {
    const element = sql.ref(`${ref.base.alias}.value`);
    if (ref.path.length === 0) return sql.ref(`${ref.base.alias}.${elementColumn}`);
    return sql`${sql.raw(fn)}(${element}, ${sql.lit(jsonPathText(ref.path))})`;
  }
  return sql`${sql.raw(fn)}(${ref.base.document}, ${sql.lit(jsonPathText(ref.path))})`;
}

// json_extract returns SQL text for a JSON string, a number for a number, 1/0 for true/false and
// NULL for null or nothing, so one reader serves every scalar type.
const scalar = (ref: JsonRef): Expression<never> => read(ref, "value", "json_extract") as Expression<never>;

/** The SQLite filter dialect. */
export const sqliteFilterDialect: FilterDialect = {
  name: "sqlite",
  lookup: "in",
  jsonText: scalar,
  jsonNumber: scalar,
  jsonBoolean: scalar,
  // json_each names an element's JSON type in its `type` column: 'object', 'array', 'text', …
  jsonIsObject: (ref) => sql<SqlBool>`${read(ref, "type", "json_type")} = 'object'`,
  jsonElements(ref, alias): JsonElements {
    const from =
      ref.base.kind === "document"
        ? sql`json_each(${ref.base.document}, ${sql.lit(jsonPathText(ref.path))})`
        : sql`json_each(${sql.ref(`${ref.base.alias}.value`)}, ${sql.lit(jsonPathText(ref.path))})`;
    return {
      from: sql`${from} as ${sql.id(alias)}`,
      element: { base: { kind: "element", alias }, path: [] },
      // json_each's `key` is the array index for an array.
      index: sql.ref(`${alias}.key`),
    };
  },
  lower: (text) => sql`${sql.raw(SQLITE_LOWER_FUNCTION)}(${text})`,
  // BINARY, SQLite's default collation, is memcmp over UTF-8: code-point order.
  binaryText: (text) => text,
  // SQLite's LIKE ignores ASCII case whatever the operands; GLOB is case-sensitive.
  substring: (text, op, value) => sql<SqlBool>`${text} glob ${sql.val(globPattern(value, op))}`,
  // better-sqlite3 binds no booleans; SQLite's JSON functions give true/false as 1/0.
  bindBoolean: (value) => sql.val(value ? 1 : 0),
  concat: (parts) => sql`(${sql.join(parts, sql` || `)})`,
  orderBy: (key, direction, nulls) => [sql`${key} ${sql.raw(direction)} nulls ${sql.raw(nulls)}`],
};
