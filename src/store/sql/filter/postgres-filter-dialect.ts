/**
 * The PostgreSQL hooks of the filter compiler. `attributes` is JSONB; arrays are iterated with a
 * lax JSON path so that a lone value counts as one element, as in `matchesFilter`; typed reads are
 * guarded by `jsonb_typeof` so that no row can make a query fail with a cast error.
 */
import { sql, type Expression, type SqlBool } from "kysely";
import type { FilterDialect, JsonElements, SubstringOperator } from "./filter-dialect.js";
import type { JsonRef } from "./json-ref.js";
import { likePattern } from "./substring-pattern.js";

/** Options of `createPostgresFilterDialect`. */
export interface PostgresFilterDialectOptions {
  /**
   * The collation whose case mapping `lower()` applies. Default `"und-x-icu"` (ICU's root locale),
   * which maps case as JavaScript's `toLowerCase` does, final sigma and dotted İ included, whatever
   * the database's locale; it needs a server built with ICU (the PostgreSQL packages of Debian,
   * Ubuntu and the official Docker images are). `null` uses the database's default collation: a
   * libc locale such as `en_US.UTF-8` folds single characters only (Σ, İ differ from JavaScript),
   * and the `C` locale folds ASCII only.
   */
  readonly caseFoldCollation?: string | null;
  /**
   * Whether `emails.value` substring and equality tests are narrowed through the column
   * `emails_search` and its trigram index (`EMAILS_SEARCH`, migration 2). Default true. The
   * column is folded with `und-x-icu`, so a dialect with another `caseFoldCollation` never reads
   * it; set false for tables that lack it (made by hand, or migration 2 found no ICU collation).
   */
  readonly emailsSearch?: boolean;
}

/**
 * The search column migration 2 adds to `scimkit_resources` on PostgreSQL: the values of
 * `emails.value`, case-folded as the compiler folds them, as JSON array text
 * (`FilterDialect.searchContains` states the contract), with a trigram index where `pg_trgm` can be
 * had, so that `emails.value co "@dept7."` reads a few index pages instead of every row's JSON.
 */
export const EMAILS_SEARCH = {
  column: "emails_search",
  index: "scimkit_resources_emails_search",
  attribute: "emails",
  subAttribute: "value",
  /** The folding the column is generated with; the dialect's `lower` must be the same. */
  collation: "und-x-icu",
} as const;

function jsonValue(ref: JsonRef, path: readonly (string | number)[] = ref.path): Expression<unknown> {
  const base = ref.base.kind === "document" ? ref.base.document : sql.ref(`${ref.base.alias}.value`);
  return path.reduce<Expression<unknown>>((json, step) => sql`${json} -> ${sql.lit(step)}`, base);
}

function jsonText(ref: JsonRef): Expression<string | null> {
  const last = ref.path[ref.path.length - 1];
  if (last === undefined) return sql`${jsonValue(ref)} #>> '{}'`;
  return sql`${jsonValue(ref, ref.path.slice(0, -1))} ->> ${sql.lit(last)}`;
}

// A jsonb cast raises on a value of another JSON type; the guard makes such a value NULL instead.
function typed(ref: JsonRef, jsonType: "number" | "boolean", sqlType: "numeric" | "boolean"): Expression<never> {
  const json = jsonValue(ref);
  return sql<never>`(case when jsonb_typeof(${json}) = ${sql.lit(jsonType)} then (${json})::${sql.raw(sqlType)} end)`;
}

// "C" compares bytes: UTF-8 byte order is code-point order, independent of the database locale.
function likeSubstring(text: Expression<unknown>, op: SubstringOperator, value: string): Expression<SqlBool> {
  return sql<SqlBool>`((${text}) collate "C" like ${sql.val(likePattern(value, op))} escape '\\')`;
}

/** A PostgreSQL filter dialect with the given case folding. */
export function createPostgresFilterDialect(options: PostgresFilterDialectOptions = {}): FilterDialect {
  const collation = options.caseFoldCollation === undefined ? "und-x-icu" : options.caseFoldCollation;
  const emailsSearch = options.emailsSearch !== false && collation === EMAILS_SEARCH.collation;
  return {
    name: "postgres",
    // A correlated EXISTS becomes a semi-join that starts from the side table's index; a correlated IN does not.
    lookup: "exists",
    jsonText,
    jsonNumber: (ref) => typed(ref, "number", "numeric"),
    jsonBoolean: (ref) => typed(ref, "boolean", "boolean"),
    jsonIsObject: (ref) => sql<SqlBool>`jsonb_typeof(${jsonValue(ref)}) = 'object'`,
    jsonElements(ref, alias): JsonElements {
      return {
        // `lax $[*]` reads a non-array as an array of one, like `matchesFilter`'s `asList`.
        from: sql`jsonb_path_query(${jsonValue(ref)}, 'lax $[*]') with ordinality as ${sql.id(alias)}(value, position)`,
        element: { base: { kind: "element", alias }, path: [] },
        index: sql.ref(`${alias}.position`),
      };
    },
    lower: (text) => (collation === null ? sql`lower(${text})` : sql`lower((${text}) collate ${sql.id(collation)})`),
    // "C" compares bytes: UTF-8 byte order is code-point order, independent of the database locale.
    binaryText: (text) => sql`((${text}) collate "C")`,
    substring: likeSubstring,
    // A LIKE on the column, with or without its trigram index (pg_trgm may be missing).
    searchContains: (resource, attribute, subAttribute, text) =>
      emailsSearch && attribute === EMAILS_SEARCH.attribute && subAttribute === EMAILS_SEARCH.subAttribute
        ? likeSubstring(sql.ref(`${resource}.${EMAILS_SEARCH.column}`), "co", text)
        : undefined,
    bindBoolean: (value) => sql.val(value),
    concat: (parts) => sql`(${sql.join(parts, sql` || `)})`,
    orderBy: (key, direction, nulls) => [sql`${key} ${sql.raw(direction)} nulls ${sql.raw(nulls)}`],
  };
}

/** The PostgreSQL filter dialect with ICU case folding (`und-x-icu`). */
export const postgresFilterDialect: FilterDialect = createPostgresFilterDialect();
