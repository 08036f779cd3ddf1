/**
 * The worker thread's side: better-sqlite3 connections, one at a time, opened as asked and
 * answering one statement per message. Statements run here, off the main thread's event loop
 * (architecture §4b: synchronous drivers run in worker threads), so a long scan blocks this thread only.
 */
import type { MessagePort } from "node:worker_threads";
import type Database from "better-sqlite3";
import { registerSqliteFunctions } from "../filter/register-sqlite-functions.js";
import type { SqliteDatabaseConstructor } from "../load-better-sqlite3.js";
import { isPrivateDatabase } from "./is-private-database.js";
import { toTransferableError } from "./transferable-error.js";
import type { SqliteWorkerSetup, StatementAhead, WorkerReply, WorkerRequest } from "./worker-messages.js";

// Kysely compiles a statement per shape (an `in` list of 3 ids differs from one of 4), so the
// texts in use are many but few are hot; a bound keeps a long-running host's memory flat.
const CACHED_STATEMENTS = 256;

interface Connection {
  readonly database: Database.Database;
  readonly setup: SqliteWorkerSetup;
  /** Prepared statements by SQL text, least recently used first. */
  readonly statements: Map<string, Database.Statement>;
}

function open(Database: SqliteDatabaseConstructor, setup: SqliteWorkerSetup): Connection {
  const reader = setup.role === "reader";
  const database = new Database(setup.path, reader ? { readonly: true, fileMustExist: true } : {});
  try {
    // The filter's case folding is JavaScript's (`scimkit_lower`): every connection that runs
    // filters needs it, readers included. The schema does not (migration 8): the e-mail search's
    // text is folded on the main thread, by the same function, and arrives here as parameters.
    registerSqliteFunctions(database);
    // Off by default in SQLite; the member and unique-key rows cascade with their resources.
    database.pragma("foreign_keys = on");
    // WAL lets the readers (and other processes) read while the writer writes.
    if (setup.role === "writer" && !isPrivateDatabase(setup.path)) database.pragma("journal_mode = WAL");
    // What a delete or an update removes is overwritten with zeros, not left in the file's free
    // space: a deleted person (or a moved organization) leaves no readable trace in it.
    if (setup.role === "writer") database.pragma("secure_delete = on");
    return { database, setup, statements: new Map() };
  } catch (error) {
    database.close();
    throw error;
  }
}

function prepared({ database, statements }: Connection, text: string): Database.Statement {
  let statement = statements.get(text);
  if (statement === undefined) {
    statement = database.prepare(text);
    if (statements.size >= CACHED_STATEMENTS) statements.delete(statements.keys().next().value ?? "");
  } else {
    // Re-inserted, so the map's order stays least recently used first.
    statements.delete(text);
  }
  statements.set(text, statement);
  return statement;
}

/**
 * Runs `ahead` in order: `undefined` when all ran as they had to, else the reply that ends the
 * request. Only the writer is sent statements ahead (`sqliteWorkerConnection`), so none bounces.
 */
function runAhead(connection: Connection, id: number, ahead: readonly StatementAhead[]): WorkerReply | undefined {
  for (let at = 0; at < ahead.length; at++) {
    const { sql, parameters, atLeast } = ahead[at] as StatementAhead;
    const reply = execute(connection, id, sql, parameters);
    if (reply.kind !== "done") return reply;
    if (atLeast !== undefined && (reply.changes ?? 0) < atLeast) return { kind: "short", id, at, inTransaction: reply.inTransaction };
  }
  return undefined;
}

function execute(connection: Connection, id: number, text: string, parameters: readonly unknown[]): WorkerReply {
  const { database, setup } = connection;
  try {
    const statement = prepared(connection, text);
    // SQLite itself says whether a statement writes (`sqlite3_stmt_readonly`); a read-only
    // connection would refuse it anyway, and outside a transaction the writer can run it instead.
    if (setup.role === "reader" && !statement.readonly && !database.inTransaction) return { kind: "bounced", id, inTransaction: false };
    if (statement.reader) return { kind: "done", id, rows: statement.all(parameters), inTransaction: database.inTransaction };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { kind: "done", id, rows: [], changes, lastInsertRowid, inTransaction: database.inTransaction };
  } catch (error) {
    return { kind: "failed", id, error: toTransferableError(error), inTransaction: database.inTransaction };
  }
}

/**
 * Serves the requests that arrive on `port`: `open` opens a connection (answered `ready` or
 * `open-failed`), `execute` runs a statement on it (after the statements sent ahead of it), `close` closes it (answered `closed`), after
 * which the thread waits for the next `open`.
 *
 * @example serveSqliteConnections(parentPort, await loadBetterSqlite3())
 */
export function serveSqliteConnections(port: MessagePort, Database: SqliteDatabaseConstructor): void {
  let connection: Connection | undefined;
  port.on("message", (request: WorkerRequest) => {
    switch (request.kind) {
      case "open":
        try {
          connection = open(Database, request.setup);
          port.postMessage({
            kind: "ready",
            journalMode: String(connection.database.pragma("journal_mode", { simple: true })),
          } satisfies WorkerReply);
        } catch (error) {
          port.postMessage({ kind: "open-failed", error: toTransferableError(error) } satisfies WorkerReply);
        }
        return;
      case "execute":
        if (connection === undefined) {
          const error = toTransferableError(new Error("The SQLite worker has no open connection"));
          port.postMessage({ kind: "failed", id: request.id, error, inTransaction: false } satisfies WorkerReply);
        } else {
          const stopped = request.ahead === undefined ? undefined : runAhead(connection, request.id, request.ahead);
          port.postMessage(stopped ?? execute(connection, request.id, request.sql, request.parameters));
        }
        return;
      case "close":
        connection?.database.close();
        connection = undefined;
        port.postMessage({ kind: "closed" } satisfies WorkerReply);
    }
  });
}
