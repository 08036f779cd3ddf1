/**
 * SQL texts compiled by Kysely once and then run with `CompiledQuery.raw` on the hot paths that
 * write the same shape again and again (an event outbox append per write, a provisioning-log batch
 * per flush): building and compiling the query each time cost more than the database's own work.
 * Kept per dialect, since each transaction is a Kysely instance of its own.
 */
import type { SqlDialect } from "./dialects/sql-dialect.js";

/** Most texts kept per dialect; past it the cache starts over (the keys in use are few). */
const MAX_CACHED_STATEMENTS = 64;

const texts = new WeakMap<SqlDialect, Map<string, string>>();

/**
 * The text `compile` gives for `key` under `dialect`, compiled on first use.
 *
 * @example cachedStatementText(dialect, `request-log:${rows}`, () => db.insertInto("t").values(rows).compile().sql)
 */
export function cachedStatementText(dialect: SqlDialect, key: string, compile: () => string): string {
  let kept = texts.get(dialect);
  if (!kept) {
    kept = new Map();
    texts.set(dialect, kept);
  }
  let text = kept.get(key);
  if (text === undefined) {
    text = compile();
    if (kept.size >= MAX_CACHED_STATEMENTS) kept.clear();
    kept.set(key, text);
  }
  return text;
}
