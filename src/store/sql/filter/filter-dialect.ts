/**
 * What differs between databases when a resolved SCIM filter, a sort or a cursor position becomes
 * SQL (architecture §6.4: small hooks, not forked compilers): reading JSON, iterating a JSON array,
 * lower-casing, code-point ordering, substring matching, binding booleans, ORDER BY syntax. The
 * compiler (`compileFilterSql`, `orderBySql`, `keysetAfterSql`) decides every semantic question
 * once; a dialect only spells the answer.
 *
 * Contract shared by every hook: values of the filter arrive as JavaScript values and must reach
 * the database as bound parameters (`sql.val`), never spliced into the text; JSON keys and array
 * indexes come from the schema registry, not from the client, and may be written as literals
 * (`sql.lit`) so that expression indexes can match.
 */
import type { Expression, SqlBool } from "kysely";
import type { JsonRef } from "./json-ref.js";

/** A row source over the elements of a JSON array, as `FilterDialect.jsonElements` builds it. */
export interface JsonElements {
  /** The FROM item, aliased: `json_each(…) as "e1"`, `jsonb_path_query(…) with ordinality as "e1"(value, position)`. */
  readonly from: Expression<unknown>;
  /** The current element, for the other hooks: `{ base: { kind: "element", alias }, path: [] }`. */
  readonly element: JsonRef;
  /** The element's position in the array, ascending in array order. */
  readonly index: Expression<number>;
}

/** The substring operators of RFC 7644 §3.4.2.2. */
export type SubstringOperator = "co" | "sw" | "ew";

/** The filter-compilation hooks of one SQL dialect. */
export interface FilterDialect {
  /** The dialect's name, for messages and tests. */
  readonly name: "sqlite" | "postgres" | "mysql" | (string & {});

  /**
   * How to test "this resource has a row in a side table" (`scimkit_unique_keys`,
   * `scimkit_members`) so that the planner drives the query from that table's index:
   * `"in"` writes `r.id in (select … where … = r.org_id …)` (SQLite propagates the outer
   * `r.org_id = ?` into it and looks the rows up by primary key), `"exists"` writes a correlated
   * `exists (select 1 … where … = r.id)` (PostgreSQL and MySQL turn it into a semi-join). Both
   * mean the same; only speed differs.
   */
  readonly lookup: "in" | "exists";

  /**
   * The JSON string at `ref` as SQL text, NULL when absent or JSON null. Canonical attributes hold
   * strings where the schema says string, so a dialect may return other scalars' text as is.
   *
   * @example sqlite: json_extract("r"."attributes", '$."name"."givenName"')
   * @example postgres: "r"."attributes" -> 'name' ->> 'givenName'
   */
  jsonText(ref: JsonRef): Expression<string | null>;

  /**
   * The JSON number at `ref` as an SQL number, NULL otherwise; must not raise on another JSON type.
   *
   * @example postgres: (case when jsonb_typeof(j) = 'number' then (j)::numeric end)
   */
  jsonNumber(ref: JsonRef): Expression<number | null>;

  /**
   * The JSON boolean at `ref` in the form `bindBoolean` compares with (SQLite 1/0, PostgreSQL
   * boolean), NULL otherwise; must not raise on another JSON type. `x is true` must hold for true.
   *
   * @example sqlite: json_extract(…) (JSON true is 1)
   */
  jsonBoolean(ref: JsonRef): Expression<unknown>;

  /**
   * True when the JSON at `ref` is an object (`attr[…]` holds only for objects, RFC 7644 §3.4.2.2).
   *
   * @example postgres: jsonb_typeof(j) = 'object'        sqlite, an element: "e1"."type" = 'object'
   */
  jsonIsObject(ref: JsonRef): Expression<SqlBool>;

  /**
   * The elements of the JSON array at `ref`, as a FROM item named `alias`; no rows when there is
   * nothing at `ref`. A dialect that can read a lone non-array value as one element (as
   * `matchesFilter` does) should.
   *
   * @example sqlite: json_each("r"."attributes", '$."emails"') as "e1"
   */
  jsonElements(ref: JsonRef, alias: string): JsonElements;

  /**
   * Lower-cases `text` exactly as JavaScript's `String.prototype.toLowerCase` does (full Unicode
   * mapping, as `uniqueKeysOf`, `sortKeyOf` and `matchesFilter` fold case), NULL for NULL.
   *
   * @example sqlite: scimkit_lower(x)            — a registered JS function (`registerSqliteFunctions`)
   * @example postgres: lower(x collate "und-x-icu")
   */
  lower(text: Expression<unknown>): Expression<unknown>;

  /**
   * `text` under an ordering that compares code points exactly (UTF-8 byte order), for `<`, `>`,
   * ORDER BY and substring matching. Equality needs no hook: it is exact in every collation the
   * store uses, and leaving it bare keeps indexes usable.
   *
   * @example postgres: x collate "C"        sqlite: x (BINARY is the default)
   */
  binaryText(text: Expression<unknown>): Expression<unknown>;

  /**
   * Whether `text` contains (`co`), starts with (`sw`) or ends with (`ew`) `value`, case-sensitively
   * and with every character of `value` literal: pattern characters (`%`, `_`, the escape character,
   * GLOB's `*`, `?`, `[`) are escaped, and the pattern is a bound parameter.
   *
   * @example postgres: x collate "C" like $1 escape '\'   with $1 = '%50\%%'
   */
  substring(text: Expression<unknown>, op: SubstringOperator, value: string): Expression<SqlBool>;

  /**
   * A cheap test, read through an index, that the search text the dialect keeps for the resource
   * row `resource` (the alias of `scimkit_resources`) contains `text` — or undefined where it
   * keeps none for `attribute.subAttribute` (a string sub-attribute of a core multi-valued complex
   * attribute, `emails.value`) or its index cannot test `text`. Optional; default none.
   * PostgreSQL keeps the generated column `emails_search` with a trigram index (migration 2);
   * SQLite an FTS5 trigram table keyed by the row's rowid (migration 5), which cannot test fewer
   * than three characters.
   *
   * The compiler ANDs the test with the exact condition, so it never decides a match on its own;
   * it must only never miss one. Contract: the search text is the JSON array text of every
   * `subAttribute` of every element of `attribute` in `attributes`, folded as one text by this
   * dialect's `lower` — each string value between double quotes, with `"`, `\` and the control
   * characters escaped as JSON escapes them — and the test holds wherever that text contains
   * `text` (code point for code point). Folding the escaped text as a whole can change a value's
   * σ/ς (final sigma depends on the neighbouring characters), so the compiler leaves out needles
   * that hold σ, ς or any character JSON escapes.
   *
   * @example postgres: ("r"."emails_search") collate "C" like '%@dept7.%' escape '\'
   * @example sqlite: +"r"."rowid" in (select rowid from "scimkit_emails_search" where "scimkit_emails_search" match '"@dept7."')
   */
  searchContains?(resource: string, attribute: string, subAttribute: string, text: string): Expression<SqlBool> | undefined;

  /**
   * A bound parameter holding `value` in the form `jsonBoolean` produces.
   *
   * @example sqlite: sql.val(value ? 1 : 0)    postgres: sql.val(value)
   */
  bindBoolean(value: boolean): Expression<unknown>;

  /** String concatenation (`a || b` in SQLite and PostgreSQL, `concat(a, b)` in MySQL). */
  concat(parts: readonly Expression<unknown>[]): Expression<string>;

  /**
   * ORDER BY items that sort by `key` in `direction` with NULLs `nulls`: one item with
   * `nulls first|last` where the dialect has it, or an `is null` item followed by the key.
   *
   * @example postgres: [sql`${key} desc nulls first`]      mysql: [sql`(${key} is null) desc`, sql`${key} desc`]
   */
  orderBy(key: Expression<unknown>, direction: "asc" | "desc", nulls: "first" | "last"): readonly Expression<unknown>[];
}
