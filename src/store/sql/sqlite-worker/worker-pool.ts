/**
 * Lending SQLite worker threads, one borrower at a time each: a transaction keeps its connection
 * from its first statement to its last, and the borrowers who find every worker lent wait in
 * line, first come first served.
 */
import type { SqliteWorker } from "./start-sqlite-worker.js";

/** Workers of one kind (the writer, or the readers), lent one borrower at a time. */
export interface WorkerPool {
  /** A worker for the caller alone until `release`: an idle one, a new one while the pool is below its size, or the next one released. */
  acquire(): Promise<SqliteWorker>;
  /** Gives `worker` back, to the next in line or to the idle ones. A worker that died is dropped, so a later `acquire` starts another (when the pool replaces the dead). */
  release(worker: SqliteWorker): void;
  /** Refuses further `acquire`s, fails those waiting, and closes every worker after the statements already sent. */
  close(): Promise<void>;
}

/** How a pool makes its workers. */
export interface WorkerPoolOptions {
  /** Starts one worker. */
  readonly start: () => Promise<SqliteWorker>;
  /** The most workers at once; they start as borrowers need them, not before. */
  readonly size: number;
  /**
   * Whether a worker that died is replaced by a new one. True for a file, which a new connection
   * opens as it was; false for `":memory:"`, whose data died with its connection: there the dead
   * worker stays and fails every statement with a 503, rather than a fresh empty database
   * answering as if nothing had happened.
   */
  readonly replaceDead: boolean;
}

interface Borrower {
  readonly resolve: (worker: SqliteWorker) => void;
  readonly reject: (error: unknown) => void;
}

function closedError(): Error {
  return new Error("The SQLite store is closed");
}

/**
 * A pool of at most `size` workers.
 *
 * @example const readers = createWorkerPool({ start: () => startSqliteWorker({ path, role: "reader" }), size: 4, replaceDead: true });
 */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const workers = new Set<SqliteWorker>();
  // Most recently released last, and lent first: its statement cache and pages are the warmest.
  const idle: SqliteWorker[] = [];
  const line: Borrower[] = [];
  const starts = new Set<Promise<unknown>>();
  let closed = false;

  const room = (): boolean => workers.size + starts.size < options.size;
  const startFor = (borrower: Borrower): void => {
    const started = options.start().then(
      (worker) => {
        if (closed) {
          borrower.reject(closedError());
          return worker.close();
        }
        workers.add(worker);
        borrower.resolve(worker);
        return undefined;
      },
      (error: unknown) => borrower.reject(error),
    );
    starts.add(started);
    void started.finally(() => {
      starts.delete(started);
      // A start that failed leaves room: the next in line would otherwise wait for a release
      // that never comes. It tries for itself (and fails on its own, if the file is still refused).
      const next = closed || !room() ? undefined : line.shift();
      if (next !== undefined) startFor(next);
    });
  };

  return {
    acquire() {
      if (closed) return Promise.reject(closedError());
      return new Promise<SqliteWorker>((resolve, reject) => {
        const borrower = { resolve, reject };
        let worker = idle.pop();
        // One that died while idle (an uncaught error, an out-of-memory kill) would fail its borrower.
        while (worker !== undefined && !worker.alive && options.replaceDead) {
          workers.delete(worker);
          worker = idle.pop();
        }
        if (worker !== undefined) resolve(worker);
        else if (room()) startFor(borrower);
        else line.push(borrower);
      });
    },
    release(worker) {
      if (closed) return;
      if (!worker.alive && options.replaceDead) {
        workers.delete(worker);
        const next = line.shift();
        if (next !== undefined) startFor(next);
        return;
      }
      const next = line.shift();
      if (next !== undefined) next.resolve(worker);
      else idle.push(worker);
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const borrower of line.splice(0)) borrower.reject(closedError());
      await Promise.all([...starts]);
      await Promise.all([...workers].map((worker) => worker.close()));
    },
  };
}
