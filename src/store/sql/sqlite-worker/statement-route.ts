/**
 * Which connection a statement that starts a borrowing should go to, decided on the main thread
 * from what Kysely compiled: a guess that saves a round trip, not a rule. A reader sends back any
 * statement SQLite says would write (`serve-sqlite-connection.ts`), so a wrong "reader" costs one
 * message, never a wrong answer.
 */
import type { CompiledQuery } from "kysely";

/** The connection for a statement: the one read-write connection, or one of the read-only ones. */
export type StatementRoute = "writer" | "reader";

// Raw statements that certainly write, or that take the write lock (`begin immediate`, which
// `SqlDialect.writeTransaction` opens with).
const WRITING_TEXT = /^\s*(?:begin\s+(?:immediate|exclusive)|insert|update|delete|replace|create|drop|alter|vacuum|analyze|reindex)\b/i;

// `temp.name`, `"temp".name`: temporary tables belong to the connection that made them, and
// only the writer can make them, so statements naming them run there.
const TEMPORARY_SCHEMA = /(?:^|[^\w"])"?temp"?\s*\./i;

/**
 * Where to run `query` when it is the first statement of a borrowing: queries Kysely built as a
 * `select` go to a reader, inserts, updates, deletes and schema changes to the writer, raw SQL by
 * its first words (a plain `begin` to a reader: a read transaction), and anything naming the
 * `temp` schema to the writer.
 *
 * @example statementRoute(CompiledQuery.raw("begin immediate")) // "writer"
 */
export function statementRoute(query: CompiledQuery): StatementRoute {
  if (TEMPORARY_SCHEMA.test(query.sql)) return "writer";
  switch (query.query.kind) {
    case "SelectQueryNode":
      return "reader";
    case "RawNode":
      return WRITING_TEXT.test(query.sql) ? "writer" : "reader";
    default:
      return "writer";
  }
}
