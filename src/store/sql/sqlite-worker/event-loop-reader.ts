/**
 * A read-only connection to a SQLite file on the main thread, for point reads only
 * (`runPointRead`: one row by its key, an index lookup). Everything else still runs in the
 * worker threads, so no scan ever holds the event loop (architecture §4b).
 */
import type Database from "better-sqlite3";
import { registerSqliteFunctions } from "../filter/register-sqlite-functions.js";
import { loadBetterSqlite3 } from "../load-better-sqlite3.js";

/** The few statement texts point reads use; more are prepared again when needed. */
const CACHED_STATEMENTS = 16;

/** Runs point reads on the event loop. */
export interface EventLoopReader {
  /** The rows of `sql` with `parameters`, read now, in one snapshot of the committed data. */
  read(sql: string, parameters: readonly unknown[]): unknown[];
  /** Closes the connection; later reads throw. */
  close(): void;
}

/**
 * A reader over `path`, which the writer has opened already, in write-ahead-log mode: a reader
 * then never waits for the writer, nor the writer for it.
 *
 * @example const reader = await openEventLoopReader("scim.db"); reader.read("select … where id = ?", [id]);
 */
export async function openEventLoopReader(path: string): Promise<EventLoopReader> {
  const Sqlite = await loadBetterSqlite3();
  const database: Database.Database = new Sqlite(path, { readonly: true, fileMustExist: true });
  registerSqliteFunctions(database);
  const statements = new Map<string, Database.Statement>();
  return {
    read(sql, parameters) {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = database.prepare(sql);
        // Only reads: a statement that would write is a caller's mistake, refused before it runs.
        if (!statement.reader) throw new Error("eventLoopReader: only a select that returns rows runs here");
        if (statements.size >= CACHED_STATEMENTS) statements.clear();
        statements.set(sql, statement);
      }
      return statement.all(parameters);
    },
    close() {
      database.close();
    },
  };
}
