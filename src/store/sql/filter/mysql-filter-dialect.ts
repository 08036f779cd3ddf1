/**
 * MySQL (8.0.17 or later) hooks of the filter compiler, showing that a dialect is a short file
 * (architecture §6.4). Only its SQL text is tested here (no MySQL server runs in this repository's
 * tests), and MySQL's `lower()` applies Unicode simple case mapping, not JavaScript's full one
 * (final sigma, dotted İ differ): a store built on it must run the compiler's property tests
 * against a real server first.
 *
 * `attributes` is a JSON column; strings extracted from JSON carry `utf8mb4_bin`, so equality and
 * ordering on them are by code point already.
 */
import { sql, type Expression, type SqlBool } from "kysely";
import type { FilterDialect, JsonElements } from "./filter-dialect.js";
import { jsonPathText, type JsonRef } from "./json-ref.js";
import { likePattern } from "./substring-pattern.js";

function jsonValue(ref: JsonRef): Expression<unknown> {
  const base = ref.base.kind === "document" ? ref.base.document : sql.ref(`${ref.base.alias}.value`);
  return ref.path.length === 0 ? base : sql`json_extract(${base}, ${sql.lit(jsonPathText(ref.path))})`;
}

// json_unquote of JSON null is the text 'null': every typed read checks the JSON type first.
function typed(ref: JsonRef, types: string, read: (json: Expression<unknown>) => Expression<unknown>): Expression<never> {
  const json = jsonValue(ref);
  return sql<never>`(case when json_type(${json}) in (${sql.raw(types)}) then ${read(json)} end)`;
}

/** The MySQL filter dialect. */
export const mysqlFilterDialect: FilterDialect = {
  name: "mysql",
  // MySQL turns a correlated EXISTS into a semi-join.
  lookup: "exists",
  jsonText: (ref) => typed(ref, "'STRING'", (json) => sql`json_unquote(${json})`),
  jsonNumber: (ref) => typed(ref, "'INTEGER', 'UNSIGNED INTEGER', 'DECIMAL', 'DOUBLE'", (json) => sql`cast(${json} as double)`),
  jsonBoolean: (ref) => typed(ref, "'BOOLEAN'", (json) => sql`(json_unquote(${json}) = 'true')`),
  jsonIsObject: (ref) => sql<SqlBool>`json_type(${jsonValue(ref)}) = 'OBJECT'`,
  jsonElements(ref, alias): JsonElements {
    return {
      from: sql`json_table(${jsonValue(ref)}, '$[*]' columns (position for ordinality, value json path '$')) as ${sql.id(alias)}`,
      element: { base: { kind: "element", alias }, path: [] },
      index: sql.ref(`${alias}.position`),
    };
  },
  lower: (text) => sql`lower(${text})`,
  binaryText: (text) => sql`(${text} collate utf8mb4_bin)`,
  // `|` as the escape character: a backslash would need MySQL's own string escaping as well.
  substring: (text, op, value) => sql<SqlBool>`(${text} collate utf8mb4_bin like ${sql.val(likePattern(value, op, "|"))} escape '|')`,
  bindBoolean: (value) => sql.val(value ? 1 : 0),
  concat: (parts) => sql`concat(${sql.join(parts)})`,
  // MySQL has no NULLS FIRST/LAST: `x is null` (0 before 1) sorts the NULLs first.
  orderBy: (key, direction, nulls) => [
    sql`(${key} is null) ${sql.raw(nulls === "last" ? "asc" : "desc")}`,
    sql`${key} ${sql.raw(direction)}`,
  ],
};
