/**
 * Reads of one row by its key (issue 29): bounded — an index lookup and one row, microseconds of
 * SQLite's time — so a connection that keeps a read-only connection on the event loop may run
 * them there instead of sending them to a thread and waiting for the answer. On SQLite that round
 * trip cost more of the main thread's time than the read itself (a thread woken on the same core,
 * the rows copied back); any other connection runs the statement as usual.
 */
import type { CompiledQuery, Kysely, QueryResult } from "kysely";

const pointReads = new WeakSet<CompiledQuery>();

/** Whether `query` was marked by `runPointRead`: a read of at most one row by its key. */
export function isPointRead(query: CompiledQuery): boolean {
  return pointReads.has(query);
}

/**
 * Runs `query` — a `select` of at most one row through a unique index, never a scan — marked so
 * that a connection may run it on the event loop (architecture §4b: only bounded work runs there).
 *
 * @example const { rows } = await runPointRead(db, CompiledQuery.raw("select … where id = ?", [id]));
 */
export function runPointRead<R>(db: Pick<Kysely<unknown>, "executeQuery">, query: CompiledQuery): Promise<QueryResult<R>> {
  pointReads.add(query);
  return db.executeQuery<R>(query);
}
