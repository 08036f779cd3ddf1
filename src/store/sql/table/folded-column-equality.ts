/**
 * A unique attribute's value compared with the application's own column (issue 27, point 15).
 * Rows the application wrote itself have no key in `scimkit_table_keys`, yet a `userName` that
 * differs from theirs only in case names the same account (RFC 7643 §4.1.1: `userName` is
 * caseExact false; §2.1: such strings compare case-insensitively), so lookups and uniqueness read
 * the column, folded as the key is.
 *
 * The folding is JavaScript's `toLowerCase`, the one `uniqueValue` applies to keys and the memory
 * store compares with: on SQLite `scimkit_lower` (`registerSqliteFunctions`), on PostgreSQL the
 * dialect's `lower` (ICU's root collation, `und-x-icu`, by default). The key is in NFC; the column
 * is compared as the application holds it, so a value it keeps decomposed (NFD) is not found in
 * another case. On SQLite a key of ASCII characters alone is compared with SQLite's own `lower()`,
 * which an index on `lower(column)` serves (`scimkit_lower` may appear in no index: any SQLite tool
 * must be able to open the file): the two agree there, since the only character besides ASCII that
 * `toLowerCase` folds into ASCII, U+212A KELVIN SIGN, is not NFC. Other keys on SQLite read the
 * organization's rows.
 */
import { sql, type Expression, type SqlBool } from "kysely";
import type { FilterDialect } from "../filter/filter-dialect.js";

/** Whether every character of `text` is ASCII. */
function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) if (text.charCodeAt(index) > 0x7f) return false;
  return true;
}

/**
 * `column` compared with `key`, a unique key's value (`uniqueValue`: NFC, lower-cased unless
 * `caseExact`): `=` for a caseExact attribute, else the column folded as above.
 *
 * @example foldedColumnEquality(sqliteDialect, sql.ref("t.email"), "ada@example.com", false) // lower("t"."email") = ?
 */
export function foldedColumnEquality(
  dialect: FilterDialect,
  column: Expression<unknown>,
  key: string,
  caseExact: boolean,
): Expression<SqlBool> {
  if (caseExact) return sql<SqlBool>`${column} = ${sql.val(key)}`;
  const folded = dialect.name === "sqlite" && isAscii(key) ? sql`lower(${column})` : dialect.lower(column);
  return sql<SqlBool>`${folded} = ${sql.val(key)}`;
}
