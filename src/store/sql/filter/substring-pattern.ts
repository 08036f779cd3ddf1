/**
 * Patterns for the substring operators (RFC 7644 §3.4.2.2 `co`, `sw`, `ew`): the filter value is
 * literal text, so every character a pattern language gives a meaning to is escaped before the
 * pattern is bound as a parameter. Without this, `userName co "50%"` would match "500".
 */
import type { SubstringOperator } from "./filter-dialect.js";

function wrap(literal: string, op: SubstringOperator, any: string): string {
  if (op === "co") return `${any}${literal}${any}`;
  return op === "sw" ? `${literal}${any}` : `${any}${literal}`;
}

/**
 * A LIKE pattern for `value` under `op`, to be used with `ESCAPE '<escape>'`: `%`, `_` and the
 * escape character itself are escaped.
 *
 * @example likePattern("50%_x", "co") === "%50\\%\\_x%"
 */
export function likePattern(value: string, op: SubstringOperator, escapeChar = "\\"): string {
  const special = new Set(["%", "_", escapeChar]);
  const literal = [...value].map((char) => (special.has(char) ? `${escapeChar}${char}` : char)).join("");
  return wrap(literal, op, "%");
}

/**
 * A GLOB pattern (SQLite; case-sensitive, unlike its LIKE) for `value` under `op`. GLOB has no
 * escape character: `*`, `?` and `[` become one-character classes (`[*]`); `]` outside a class is
 * literal already.
 *
 * @example globPattern("a*b", "sw") === "a[*]b*"
 */
export function globPattern(value: string, op: SubstringOperator): string {
  return wrap(
    value.replace(/[*?[]/g, (char) => `[${char}]`),
    op,
    "*",
  );
}
