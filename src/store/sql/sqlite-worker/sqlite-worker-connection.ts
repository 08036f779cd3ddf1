/**
 * One Kysely connection of the worker dialect: a borrowing that binds to a worker thread at its
 * first statement — the writer, or a reader — and keeps it until Kysely releases the connection,
 * so the statements of a transaction all run on one SQLite connection, and a read transaction
 * (`begin` … `commit`) sees one snapshot while the writer commits beside it. On the writer it
 * holds back deferrable statements (`runDeferrable`) and sends them ahead of the next statement
 * whose result is read: a create is one message to the writer thread, not seven, and the write
 * lock is no longer held across the main thread's turns between them.
 */
import { CompiledQuery, type DatabaseConnection, type QueryResult } from "kysely";
import { takeDeferral } from "../deferred-statement.js";
import { isPointRead } from "../point-read.js";
import type { EventLoopReader } from "./event-loop-reader.js";
import type { SqliteWorker } from "./start-sqlite-worker.js";
import { statementRoute } from "./statement-route.js";
import type { StatementAhead, StatementDone } from "./worker-messages.js";
import type { WorkerPool } from "./worker-pool.js";

/** The pools a connection borrows from; one and the same pool for a private (`":memory:"`) database. */
export interface RolePools {
  /** The read-write connection (a pool of one). */
  readonly writer: WorkerPool;
  /** The read-only connections. */
  readonly readers: WorkerPool;
  /** A read-only connection on the event loop for point reads (`runPointRead`), for a file in WAL mode. */
  readonly local?: EventLoopReader;
}

/** A Kysely connection that gives its worker back on `release`. */
export interface SqliteWorkerConnection extends DatabaseConnection {
  /** Ends the borrowing after the statements sent: rolls back a transaction left open (a failed COMMIT), gives the worker back. */
  release(): Promise<void>;
}

interface Lease {
  readonly pool: WorkerPool;
  readonly worker: SqliteWorker;
}

function resultOf<R>(done: StatementDone): QueryResult<R> {
  const rows = done.rows as R[];
  // As Kysely's own SQLite driver reports it: counts only for statements that return no rows.
  if (done.changes === undefined) return { rows };
  return {
    rows,
    numAffectedRows: BigInt(done.changes),
    ...(done.lastInsertRowid === undefined ? {} : { insertId: BigInt(done.lastInsertRowid) }),
  };
}

const tooFewRows = (): Error => new Error("scimkit: a statement sent ahead changed fewer rows than it had to");

/**
 * A connection that borrows from `pools` when its first statement comes.
 *
 * @example const connection = sqliteWorkerConnection({ writer, readers }); await connection.executeQuery(CompiledQuery.raw("begin")); …; await connection.release();
 */
export function sqliteWorkerConnection(pools: RolePools): SqliteWorkerConnection {
  let lease: Lease | undefined;
  // One statement at a time, so the first binds the connection before the second is routed.
  let queue: Promise<unknown> = Promise.resolve();

  const borrow = async (pool: WorkerPool): Promise<Lease> => ({ pool, worker: await pool.acquire() });
  const giveBack = (): void => {
    if (lease !== undefined) lease.pool.release(lease.worker);
    lease = undefined;
  };

  // Statements held back, and what to throw when one changes too few rows (a function cannot
  // cross the thread boundary, so it stays here, at the same index).
  let held: StatementAhead[] = [];
  let tooFew: ((() => Error) | undefined)[] = [];

  const run = async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
    // A point read outside a transaction needs no thread: read on the event loop (point-read.ts).
    // Should that connection fail (the file busy being recovered), a reader thread answers.
    if (lease === undefined && pools.local !== undefined && isPointRead(query)) {
      try {
        return { rows: pools.local.read(query.sql, query.parameters) as R[] };
      } catch {
        // Answered below, by a thread, with its own error if it fails too.
      }
    }
    lease ??= await borrow(statementRoute(query) === "writer" ? pools.writer : pools.readers);
    // Only the writer holds statements back: a reader would send back a write that came ahead of a read.
    const deferral = lease.pool === pools.writer ? takeDeferral(query) : undefined;
    if (deferral !== undefined) {
      const { expectation } = deferral;
      const { sql, parameters } = query;
      held.push(expectation === undefined ? { sql, parameters } : { sql, parameters, atLeast: expectation.atLeast });
      tooFew.push(expectation?.otherwise);
      return { rows: [] };
    }
    const ahead = held;
    const otherwise = tooFew;
    if (ahead.length > 0) {
      held = [];
      tooFew = [];
    }
    const reply = await lease.worker.execute(query.sql, query.parameters, ahead.length === 0 ? undefined : ahead);
    if (reply.kind === "done") return resultOf(reply);
    if (reply.kind === "short") throw (otherwise[reply.at] ?? tooFewRows)();
    // A reader declined a write outside a transaction: nothing of this borrowing is lost by
    // moving it to the writer.
    giveBack();
    lease = await borrow(pools.writer);
    const retried = await lease.worker.execute(query.sql, query.parameters);
    if (retried.kind !== "done") throw new Error("scimkit: the SQLite writer declined a statement");
    return resultOf(retried);
  };

  const serialized = <T>(step: () => Promise<T>): Promise<T> => {
    const result = queue.then(step);
    queue = result.catch(() => undefined);
    return result;
  };

  return {
    executeQuery: <R>(query: CompiledQuery) => serialized(() => run<R>(query)),
    async *streamQuery<R>(query: CompiledQuery, chunkSize = 100): AsyncIterableIterator<QueryResult<R>> {
      // The rows cross the thread boundary in one message; they are handed out in chunks.
      const { rows } = await serialized(() => run<R>(query));
      for (let start = 0; start < rows.length; start += chunkSize) yield { rows: rows.slice(start, start + chunkSize) };
    },
    release: () =>
      serialized(async () => {
        try {
          // Held back by a caller that ended without a statement whose result it read: run now.
          if (held.length > 0) await run(CompiledQuery.raw("select 1"));
        } finally {
          if (lease?.worker.alive && lease.worker.inTransaction) {
            try {
              await lease.worker.execute("rollback", []);
            } catch {
              // The thread died meanwhile (the pool drops it), or SQLite had already rolled back.
            }
          }
          giveBack();
        }
      }),
  };
}
