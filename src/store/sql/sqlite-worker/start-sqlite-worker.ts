/**
 * Opening a SQLite connection in a worker thread (`serve-sqlite-connections.ts`), and the main
 * thread's handle on it: a statement is one message there and one back.
 */
import { databaseUnavailableError } from "../database-unavailable-error.js";
import { parkSqliteThread, takeSqliteThread } from "./idle-sqlite-threads.js";
import { fromTransferableError } from "./transferable-error.js";
import type {
  SqliteWorkerSetup,
  StatementAhead,
  StatementBounced,
  StatementDone,
  StatementShort,
  WorkerRequest,
} from "./worker-messages.js";

/** The main thread's handle on a connection open in a worker thread. */
export interface SqliteWorker {
  /**
   * Runs one statement on the connection, after the statements `ahead` of it. Resolves with what
   * it did, `bounced` when a reader declines a write (run it on the writer), or `short` when a
   * statement ahead changed fewer rows than it had to; rejects with the SQLite error of the first
   * statement that failed (its `code` kept), or
   * with a 503 `ScimError` (`databaseUnavailableError`) when the thread has died or the
   * connection is closed, so a request never waits for a thread that is gone. Statements run in
   * the order they were sent.
   */
  execute(
    sql: string,
    parameters: readonly unknown[],
    ahead?: readonly StatementAhead[],
  ): Promise<StatementDone | StatementBounced | StatementShort>;
  /** Whether the connection was inside a transaction after the last statement that answered. */
  readonly inTransaction: boolean;
  /** False once the connection is closed or its thread has died. */
  readonly alive: boolean;
  /** The connection's `journal_mode`: `"wal"` for a file the writer opened, `"memory"` for `":memory:"`. */
  readonly journalMode: string;
  /** Closes the connection once the statements sent before have answered, and gives its thread back. Idempotent. */
  close(): Promise<void>;
}

interface Waiter {
  readonly resolve: (reply: StatementDone | StatementBounced | StatementShort) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Opens the connection `setup` describes in a worker thread (an idle one, or a new one); resolves
 * once it is open, or rejects with the error opening it raised (a missing directory, a file that
 * is not a database). An idle connection does not keep the process alive; one with a statement in
 * flight does.
 *
 * @example const writer = await startSqliteWorker({ path: "scim.db", role: "writer" });
 */
export function startSqliteWorker(setup: SqliteWorkerSetup): Promise<SqliteWorker> {
  const thread = takeSqliteThread();
  const pending = new Map<number, Waiter>();
  let nextId = 0;
  let alive = true;
  let inTransaction = false;
  let journalMode = "";
  let death: unknown;
  let closing: Promise<void> | undefined;
  let closed: (() => void) | undefined;

  const post = (request: WorkerRequest): void => thread.worker.postMessage(request);

  const worker: SqliteWorker = {
    execute(sql, parameters, ahead) {
      if (!alive || closing !== undefined)
        return Promise.reject(databaseUnavailableError(death ?? new Error("The SQLite connection is closed")));
      const id = nextId++;
      if (pending.size === 0) thread.worker.ref();
      post(
        ahead === undefined || ahead.length === 0
          ? { kind: "execute", id, sql, parameters }
          : { kind: "execute", id, sql, parameters, ahead },
      );
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
    },
    get inTransaction() {
      return inTransaction;
    },
    get alive() {
      return alive;
    },
    get journalMode() {
      return journalMode;
    },
    close() {
      closing ??= (async () => {
        if (!alive) return;
        // Until it has closed the file: a process that ended first would leave the WAL unmerged.
        thread.worker.ref();
        await new Promise<void>((resolve) => {
          closed = resolve;
          post({ kind: "close" });
        });
        alive = false;
        parkSqliteThread(thread);
      })();
      return closing;
    },
  };

  return new Promise<SqliteWorker>((resolveStart, rejectStart) => {
    thread.listener = {
      reply(reply) {
        switch (reply.kind) {
          case "ready":
            journalMode = reply.journalMode;
            thread.worker.unref();
            resolveStart(worker);
            return;
          case "open-failed":
            alive = false;
            parkSqliteThread(thread);
            rejectStart(fromTransferableError(reply.error));
            return;
          case "closed":
            closed?.();
            return;
          default: {
            const waiter = pending.get(reply.id);
            pending.delete(reply.id);
            inTransaction = reply.inTransaction;
            if (pending.size === 0 && closing === undefined) thread.worker.unref();
            if (reply.kind === "failed") waiter?.reject(fromTransferableError(reply.error));
            else waiter?.resolve(reply);
          }
        }
      },
      exited(cause) {
        alive = false;
        death = cause;
        rejectStart(cause);
        // The connection went with the thread, and SQLite rolled back its open transaction.
        for (const waiter of pending.values()) waiter.reject(databaseUnavailableError(cause));
        pending.clear();
        closed?.();
      },
    };
    post({ kind: "open", setup });
  });
}
