/**
 * The worker threads that serve SQLite connections, and the few a closed store left idle. Starting
 * a thread costs tens of milliseconds (a few hundred when it must load tsx to run from source),
 * opening a connection on one that is already running well under one; a process that opens store
 * after store (a test suite, a tenant per database) reuses them.
 */
import { Worker } from "node:worker_threads";
import type { WorkerReply } from "./worker-messages.js";

/** Idle threads kept at most, and how long each is kept before it ends. */
const MOST_IDLE = 4;
const IDLE_MS = 5_000;

/** Who hears from a thread while a connection is open on it. */
export interface ThreadListener {
  /** A reply of the thread's. */
  reply(reply: WorkerReply): void;
  /** The thread ended: `cause` is the exception it did not catch, or an error naming its exit code. */
  exited(cause: unknown): void;
}

/** A worker thread that serves SQLite connections (`serveSqliteConnections`), one at a time. */
export interface SqliteThread {
  readonly worker: Worker;
  /** False once the thread has ended. */
  readonly alive: boolean;
  /** Hears the thread's replies and its end; set by whoever took the thread, cleared when it is parked. */
  listener: ThreadListener | undefined;
}

const idle: SqliteThread[] = [];
const expiries = new Map<SqliteThread, ReturnType<typeof setTimeout>>();

function spawn(): Worker {
  // Built (`dist/`), this module is JavaScript and so is the entry beside it.
  if (!import.meta.url.endsWith(".ts")) return new Worker(new URL("./sqlite-worker-entry.js", import.meta.url));
  // Run from source (vitest, tsx): a worker thread cannot load TypeScript by itself, so it first
  // registers tsx's loader (a devDependency; a built package never comes here).
  const entry = new URL("./sqlite-worker-entry.ts", import.meta.url).href;
  const tsx = import.meta.resolve("tsx/esm/api");
  return new Worker(`import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`, {
    eval: true,
  });
}

function unpark(thread: SqliteThread): void {
  const at = idle.indexOf(thread);
  if (at !== -1) idle.splice(at, 1);
  clearTimeout(expiries.get(thread));
  expiries.delete(thread);
}

/**
 * An idle thread, or a new one. It is the caller's until `parkSqliteThread`; it keeps the process
 * alive until the caller unrefs it.
 *
 * @example const thread = takeSqliteThread(); thread.listener = { reply, exited }; thread.worker.postMessage({ kind: "open", setup });
 */
export function takeSqliteThread(): SqliteThread {
  const reused = idle.pop();
  if (reused !== undefined) {
    unpark(reused);
    reused.worker.ref();
    return reused;
  }
  let alive = true;
  let death: unknown;
  const worker = spawn();
  const thread: SqliteThread = {
    worker,
    get alive() {
      return alive;
    },
    listener: undefined,
  };
  worker.on("message", (reply: WorkerReply) => thread.listener?.reply(reply));
  // An exception the thread did not catch; 'exit' follows. Heard here so that it never becomes an
  // unhandled 'error' event of the main thread.
  worker.on("error", (error) => {
    death = error;
  });
  worker.once("exit", (code) => {
    alive = false;
    unpark(thread);
    thread.listener?.exited(death ?? new Error(`A SQLite worker thread exited with code ${code}`));
  });
  return thread;
}

/**
 * Gives back `thread`, whose connection is closed: kept idle (not keeping the process alive) for
 * the next `takeSqliteThread` for a few seconds, or ended when enough are idle already.
 *
 * @example await closeConnection(thread); parkSqliteThread(thread);
 */
export function parkSqliteThread(thread: SqliteThread): void {
  thread.listener = undefined;
  if (!thread.alive) return;
  if (idle.length >= MOST_IDLE) {
    void thread.worker.terminate();
    return;
  }
  thread.worker.unref();
  idle.push(thread);
  const expiry = setTimeout(() => {
    unpark(thread);
    void thread.worker.terminate();
  }, IDLE_MS);
  expiry.unref();
  expiries.set(thread, expiry);
}
