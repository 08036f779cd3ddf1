/**
 * What the main thread and a SQLite worker thread say to each other: one request per statement
 * (with the statements held back before it, `deferred-statement.ts`), one reply per request,
 * matched by id. Everything here crosses the thread boundary by structured
 * clone, so it is plain data.
 */
import type { TransferableError } from "./transferable-error.js";

/**
 * What a worker thread's connection is for:
 * - `"writer"`: the one read-write connection of a file database (write-ahead logging, foreign keys);
 * - `"reader"`: a read-only connection of a file database, which sends back (`bounced`) any
 *   statement that would write outside a transaction, so the main thread can run it on the writer;
 * - `"sole"`: the only connection of a database no other connection can open (`":memory:"`),
 *   serving reads and writes alike.
 */
export type SqliteWorkerRole = "writer" | "reader" | "sole";

/** How a worker thread opens its connection. */
export interface SqliteWorkerSetup {
  /** The database file, `":memory:"`, or `""` (a private temporary file), as better-sqlite3 takes it. */
  readonly path: string;
  /** What the connection is for. */
  readonly role: SqliteWorkerRole;
}

/** A statement sent ahead of another in the same request, whose result is not sent back. */
export interface StatementAhead {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /** The fewest rows it must change; when it changes fewer, the request stops there (`short`). */
  readonly atLeast?: number;
}

/**
 * A request to a worker thread: open a connection, run one statement on it, or close it. A thread
 * serves one connection at a time and, once it has closed one, may open another.
 */
export type WorkerRequest =
  | { readonly kind: "open"; readonly setup: SqliteWorkerSetup }
  | {
      readonly kind: "execute";
      /** Matches the reply to the request. */
      readonly id: number;
      readonly sql: string;
      readonly parameters: readonly unknown[];
      /**
       * Run first, in order; the first that fails or changes too few rows ends the request with
       * that answer, and the statements after it do not run.
       */
      readonly ahead?: readonly StatementAhead[];
    }
  | { readonly kind: "close" };

/** What a statement did, as Kysely's SQLite driver reports it. */
export interface StatementDone {
  readonly kind: "done";
  /** The rows of a statement that returns data; empty otherwise. */
  readonly rows: readonly unknown[];
  /** Rows changed, for a statement that returns no data. */
  readonly changes?: number;
  /** The last rowid inserted on the connection, for a statement that returns no data. */
  readonly lastInsertRowid?: number | bigint;
}

/** A reader's answer to a statement that would write outside a transaction: run it on the writer. */
export interface StatementBounced {
  readonly kind: "bounced";
}

/** A statement sent ahead changed fewer rows than it had to; it and those before it ran, none after. */
export interface StatementShort {
  readonly kind: "short";
  /** Its index in `ahead`. */
  readonly at: number;
}

/** A worker's message to the main thread. */
export type WorkerReply =
  | {
      /** The connection is open. */
      readonly kind: "ready";
      /** What `journal_mode` the connection runs in: `"wal"` for a file that readers may share. */
      readonly journalMode: string;
    }
  | { readonly kind: "open-failed"; readonly error: TransferableError }
  | { readonly kind: "closed" }
  | ((StatementDone | StatementBounced | StatementShort | { readonly kind: "failed"; readonly error: TransferableError }) & {
      readonly id: number;
      /** Whether the connection is inside a transaction after the statement (SQLite may have rolled one back). */
      readonly inTransaction: boolean;
    });
