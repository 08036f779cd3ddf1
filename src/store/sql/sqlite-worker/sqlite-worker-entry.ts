/**
 * The script a SQLite worker thread runs (`idle-sqlite-threads.ts` starts it): serves connections
 * on the thread's port.
 */
import { parentPort } from "node:worker_threads";
import { loadBetterSqlite3 } from "../load-better-sqlite3.js";
import { serveSqliteConnections } from "./serve-sqlite-connections.js";

if (parentPort === null) throw new Error("sqlite-worker-entry runs as a worker thread, started by takeSqliteThread");
serveSqliteConnections(parentPort, await loadBetterSqlite3());
