/**
 * The SQLite hooks of the filter compiler (SQLite 3.38 or later: JSON functions built in, NULLS
 * FIRST/LAST, TRUE/FALSE; better-sqlite3 12 bundles 3.5x). `attributes` is JSON text; `json_each` iterates arrays. Case folding calls
 * `scimkit_lower`, which the store registers on every connection (`registerSqliteFunctions`).
 * Where migration 8 could create its FTS5 table, `emails.value` tests are narrowed through it
 * (`createSqliteFilterDialect({ emailsSearch: true })`).
 */
import { sql, type Expression, type SqlBool } from "kysely";
import type { FilterDialect, JsonElements } from "./filter-dialect.js";
import { jsonPathText, type JsonRef } from "./json-ref.js";
import { SQLITE_LOWER_FUNCTION } from "./register-sqlite-functions.js";
import { globPattern } from "./substring-pattern.js";

/** Options of `createSqliteFilterDialect`. */
export interface SqliteFilterDialectOptions {
  /**
   * Whether `emails.value` substring and equality tests are narrowed through the FTS5 table
   * `scimkit_emails_search` (`SQLITE_EMAILS_SEARCH`, migration 8). Default false, because the
   * table exists only where the SQLite build has FTS5 with the trigram tokenizer: `sqlStore` turns
   * it on when it finds the table (`SqlDialect.adaptTo`), and then also keeps it up to date.
   */
  readonly emailsSearch?: boolean;
}

/**
 * SQLite's e-mail search (migration 8; migration 5 made an earlier form of it): one row per
 * resource that has e-mails in the FTS5 trigram table `table`, holding the search text
 * `FilterDialect.searchContains` describes — the values of `emails.value`, each folded as
 * `scimkit_lower` folds — under the rowid its row of `keys` gives the resource, so that
 * `emails.value co "@dept7."` reads a few index pages instead of every row's JSON. The store
 * writes both in the transaction of each write (`indexSqliteEmailsSearch`); no trigger does, so
 * the schema needs no function of ours and opens in any SQLite tool.
 */
export const SQLITE_EMAILS_SEARCH = {
  table: "scimkit_emails_search",
  /** The table's one column. */
  column: "emails",
  /**
   * `(search_id integer primary key, org_id, id)`, unique on `(org_id, id)` and cascading with
   * the resource: the FTS row of a resource is the one whose rowid is its `search_id`.
   */
  keys: "scimkit_emails_search_keys",
  /** Migration 5's triggers, which migration 8 drops: they called `scimkit_lower`. */
  triggers: {
    insert: "scimkit_emails_search_after_insert",
    update: "scimkit_emails_search_after_update",
    delete: "scimkit_emails_search_after_delete",
  },
  attribute: "emails",
  subAttribute: "value",
  /** A trigram index finds nothing for a shorter text, so a shorter one gets no test. */
  minimumLength: 3,
} as const;

/**
 * An FTS5 query for the rows whose text contains `text`: one phrase, which the trigram tokenizer
 * turns into the text's trigrams at consecutive positions — a substring test, exact because the
 * table folds no case itself (`case_sensitive 1`). Inside a phrase only `"` means anything (it
 * ends the string), so doubling it is the whole escape; `*`, `?`, `%`, `_`, `[`, `\`, `'`, `:` and
 * the words AND, OR, NOT, NEAR are literal there. The query is bound as a parameter.
 *
 * @example ftsPhrase('"ann') === '"""ann"'
 */
export function ftsPhrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

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

/** `FilterDialect.searchContains` through `scimkit_emails_search`. */
function emailsSearchContains(resource: string, attribute: string, subAttribute: string, text: string): Expression<SqlBool> | undefined {
  if (attribute !== SQLITE_EMAILS_SEARCH.attribute || subAttribute !== SQLITE_EMAILS_SEARCH.subAttribute) return undefined;
  // Code points, as the trigram tokenizer counts characters.
  if ([...text].length < SQLITE_EMAILS_SEARCH.minimumLength) return undefined;
  const table = sql.table(SQLITE_EMAILS_SEARCH.table);
  const key = `${resource}_search_key`;
  const row = `${resource}_search_row`;
  const matches = sql`select rowid from ${table} where ${table} match ${sql.val(ftsPhrase(text))}`;
  // The matching resources' rowids, looked up through their keys at query time (never stored, so a
  // `.dump` that renumbers them changes nothing): SQLite then probes one integer per listed row,
  // where probing `(org_id, id)` pairs cost about half as much again as the whole count of a
  // 20,000-user organization (measured: 5 ms against 9–10).
  const keys = sql`${sql.table(SQLITE_EMAILS_SEARCH.keys)} as ${sql.id(key)}`;
  const rows = sql`${sql.table("scimkit_resources")} as ${sql.id(row)}`;
  const sameResource = sql`${sql.ref(`${row}.org_id`)} = ${sql.ref(`${key}.org_id`)} and ${sql.ref(`${row}.id`)} = ${sql.ref(`${key}.id`)}`;
  const matchingRowids = sql`select ${sql.ref(`${row}.rowid`)} from ${keys} join ${rows} on ${sameResource} where ${sql.ref(`${key}.search_id`)} in (${matches})`;
  // The unary `+` keeps SQLite from starting at the matching rowids: FTS5 tells its planner a
  // MATCH yields a handful of rows, whatever it yields. Instead SQLite reads the list in its
  // order and probes the matches, collected once: at 100,000 users a page of
  // `emails co "@dept7."` (5,000 matches) costs 4 ms this way and 27 ms fetched and sorted,
  // `co "example."` (every user) 31 ms against 280; a lone match costs 8 ms instead of 1
  // (measured with migration 5's table, which this one follows).
  return sql<SqlBool>`+${sql.ref(`${resource}.rowid`)} in (${matchingRowids})`;
}

/** The SQLite filter dialect, without the e-mail search table (`createSqliteFilterDialect`). */
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

/** A SQLite filter dialect, with or without the e-mail search table. */
export function createSqliteFilterDialect(options: SqliteFilterDialectOptions = {}): FilterDialect {
  return options.emailsSearch === true ? { ...sqliteFilterDialect, searchContains: emailsSearchContains } : sqliteFilterDialect;
}
