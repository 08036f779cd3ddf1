/**
 * `sqlRequestLog`: the provisioning log (issue 18) in the SQL store's database, SQLite or
 * PostgreSQL, on `scimkit_request_log` (migration 11). Writing it never fails a request nor makes
 * one wait for the database: `record` only appends to a bounded buffer in memory, and a timer
 * writes the buffer in batches (multi-row inserts, one transaction per batch). Retention by age
 * and by count per organization runs on another timer, in small deletes.
 */
import type { Kysely } from "kysely";
import { boundUnauthenticatedEntry } from "../../../request-log/bound-unauthenticated-entry.js";
import { checkUnauthenticatedQuery } from "../../../request-log/check-request-log-query.js";
import type {
  ReadableRequestLog,
  RequestLogPage,
  RequestLogQuery,
  UnauthenticatedRequestLogPage,
  UnauthenticatedRequestLogQuery,
} from "../../../request-log/readable-request-log.js";
import type { RequestLogEntry, UnauthenticatedRequestLogEntry } from "../../../request-log/request-log.js";
import {
  DEFAULT_UNAUTHENTICATED_CAPACITY,
  DEFAULT_UNAUTHENTICATED_PER_MINUTE,
  unauthenticatedSample,
} from "../../../request-log/unauthenticated-sample.js";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { uuidV7 } from "../../../uuid-v7.js";
import { enforceRequestLogRetention } from "./enforce-request-log-retention.js";
import { backgroundFlush, flushAll } from "./flush-request-log.js";
import { listRequestLogRows } from "./list-request-log-rows.js";
import { drop, type RequestLogBuffer, reportDrops, take } from "./request-log-buffer.js";
import type { RequestLogRetentionResult } from "./request-log-retention.js";
import { REQUEST_LOG_COLUMNS, requestLogEntrySize } from "./request-log-row.js";
import { listUnauthenticatedRows } from "./unauthenticated-log-rows.js";

/** Seven days: long enough to debug last week's provisioning run. */
export const DEFAULT_REQUEST_LOG_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** Entries kept per organization unless `maxEntriesPerOrg` says otherwise. */
export const DEFAULT_REQUEST_LOG_MAX_ENTRIES_PER_ORG = 100_000;
/** One day: how long requests without a verified token, and the count of those not kept, are kept. */
export const DEFAULT_UNAUTHENTICATED_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** Where the log keeps its rows: the SQL store (`sqlStore(…)`), or its `db` and `dialect`. */
export interface SqlRequestLogDatabase {
  /** A Kysely instance on which the SCIM migrations have run (version 11 creates the table). */
  readonly db: Kysely<SqlStoreDatabase>;
  /** Its dialect: the log writes in `dialect.writeTransaction`. */
  readonly dialect: SqlDialect;
}

/** Options of `sqlRequestLog`. Times are milliseconds. */
export interface SqlRequestLogOptions {
  /** `RequestLog.maxBodyBytes`: the most of each body an entry keeps. Default: the router's, 65,536. */
  readonly maxBodyBytes?: number;
  /** Entries older than this (by their `at`) are deleted. Default 7 days; `Infinity` keeps them. */
  readonly maxAgeMs?: number;
  /** Each organization's newest entries kept; older ones are deleted. Default 100,000; `Infinity` keeps them. */
  readonly maxEntriesPerOrg?: number;
  /**
   * Requests without a verified token kept, every claimed organization together, in a table of
   * their own (`scimkit_unauthenticated_log`); the oldest are deleted at every write past it.
   * Default 1,000.
   */
  readonly unauthenticatedCapacity?: number;
  /** Requests without a verified token each process keeps per minute; the rest are counted as dropped. Default 60. */
  readonly unauthenticatedPerMinute?: number;
  /** Requests without a verified token, and the counts of those dropped, older than this are deleted. Default 1 day. */
  readonly unauthenticatedMaxAgeMs?: number;
  /**
   * Entries held in memory until written; when the buffer is full, new entries are dropped and
   * counted (`dropped`) rather than wait. Default 10,000.
   */
  readonly bufferCapacity?: number;
  /** Bytes of text (UTF-16) the buffer may hold, bodies included: the same rule past it. Default 64 MiB. */
  readonly maxBufferedBytes?: number;
  /** How often the buffer is written. Default 1,000; a full batch is written at once. */
  readonly flushIntervalMs?: number;
  /** Entries per write transaction. Default 500. */
  readonly flushBatchSize?: number;
  /** How often retention runs. Default 60,000 (a minute). */
  readonly retentionIntervalMs?: number;
  /** Rows per retention delete statement: the longest a sweep holds a lock. Default 1,000. */
  readonly retentionBatchSize?: number;
  /**
   * Drops are reported to `onError` (a `RequestLogOverflowError`) at the first flush after they
   * happen, then at most once per this interval, with the count since the previous report.
   * Default 60,000.
   */
  readonly dropReportIntervalMs?: number;
  /**
   * Receives what went wrong in the background: a failed write (the entries are kept for the
   * next flush when the database could not be reached or was busy, else the entries it refused
   * are dropped and counted), a failed retention sweep, and drops (`RequestLogOverflowError`). Never thrown
   * at a request. Default: `console.error`.
   */
  readonly onError?: (error: unknown) => void;
  /** The clock retention and drop reports read, in milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
}

/** The SQL provisioning log: a `ReadableRequestLog` with its buffer's and its retention's handles. */
export interface SqlRequestLog extends ReadableRequestLog {
  /**
   * Buffers the entry for the next flush and returns at once. When the buffer is full, or the log
   * is closed, the entry is dropped and counted instead.
   */
  record(entry: RequestLogEntry): void;
  /**
   * Entries of `orgId`, newest first (`ReadableRequestLog.list`). Writes what this process has
   * buffered first, so an entry recorded before the call is in the answer.
   */
  list(orgId: string, query?: RequestLogQuery): Promise<RequestLogPage>;
  /**
   * Keeps a request without a verified token if the sample admits it (`unauthenticatedPerMinute`),
   * else counts it; returns at once, as `record` does.
   */
  recordUnauthenticated(entry: UnauthenticatedRequestLogEntry): void;
  /** The unauthenticated entries kept (`ReadableRequestLog.listUnauthenticated`), after writing what this process holds. */
  listUnauthenticated(query?: UnauthenticatedRequestLogQuery): Promise<UnauthenticatedRequestLogPage>;
  /** Entries dropped since the log was opened: the buffer was full, the database refused them, or the log was closed. */
  readonly dropped: number;
  /** Entries recorded and not yet written. */
  readonly buffered: number;
  /** Writes every buffered entry now; rejects when the database cannot be reached or is busy (the entries stay buffered). */
  flush(): Promise<void>;
  /** Runs one retention sweep now (the timer runs them on its own); resolves with what it deleted. */
  enforceRetention(): Promise<RequestLogRetentionResult>;
  /**
   * Stops the timers, lets a running sweep stop after its current statement, and writes every
   * buffered entry; rejects when that write fails. Call it before closing the store. Idempotent.
   */
  close(): Promise<void>;
}

function positive(name: string, value: number | undefined, fallback: number, allowInfinity = false): number {
  const chosen = value ?? fallback;
  const ok = allowInfinity && chosen === Number.POSITIVE_INFINITY ? true : Number.isInteger(chosen) && chosen >= 1;
  if (!ok) throw new RangeError(`sqlRequestLog: ${name} must be a positive integer${allowInfinity ? " or Infinity" : ""}; got ${chosen}.`);
  return chosen;
}

const defaultOnError = (error: unknown): void => {
  console.error("scimkit: provisioning log:", error);
};

/** An empty buffer over `database`, `options` checked (in this order, so the first bad one is the one reported). */
function requestLogBuffer(
  database: SqlRequestLogDatabase,
  options: SqlRequestLogOptions,
): RequestLogBuffer & { readonly flushIntervalMs: number; readonly retentionIntervalMs: number } {
  const { db, dialect } = database;
  const maxAgeMs = positive("maxAgeMs", options.maxAgeMs, DEFAULT_REQUEST_LOG_MAX_AGE_MS, true);
  const maxEntriesPerOrg = positive("maxEntriesPerOrg", options.maxEntriesPerOrg, DEFAULT_REQUEST_LOG_MAX_ENTRIES_PER_ORG, true);
  const bufferCapacity = positive("bufferCapacity", options.bufferCapacity, 10_000);
  const maxBufferedBytes = positive("maxBufferedBytes", options.maxBufferedBytes, 64 * 1024 * 1024);
  const flushIntervalMs = positive("flushIntervalMs", options.flushIntervalMs, 1000);
  const flushBatchSize = positive("flushBatchSize", options.flushBatchSize, 500);
  const retentionIntervalMs = positive("retentionIntervalMs", options.retentionIntervalMs, 60_000);
  const retentionBatchSize = positive("retentionBatchSize", options.retentionBatchSize, 1000);
  const dropReportIntervalMs = positive("dropReportIntervalMs", options.dropReportIntervalMs, 60_000);
  const unauthenticatedCapacity = positive("unauthenticatedCapacity", options.unauthenticatedCapacity, DEFAULT_UNAUTHENTICATED_CAPACITY);
  const unauthenticatedMaxAgeMs = positive("unauthenticatedMaxAgeMs", options.unauthenticatedMaxAgeMs, DEFAULT_UNAUTHENTICATED_MAX_AGE_MS);
  if (options.maxBodyBytes !== undefined) positive("maxBodyBytes", options.maxBodyBytes, 0);
  const now = options.now ?? Date.now;
  const sample = unauthenticatedSample(
    positive("unauthenticatedPerMinute", options.unauthenticatedPerMinute, DEFAULT_UNAUTHENTICATED_PER_MINUTE),
    now,
  );
  return {
    db,
    dialect,
    settings: {
      maxAgeMs,
      maxEntriesPerOrg,
      bufferCapacity,
      maxBufferedBytes,
      flushBatchSize,
      retentionBatchSize,
      dropReportIntervalMs,
      unauthenticatedCapacity,
      unauthenticatedMaxAgeMs,
      rowsPerStatement: Math.max(1, Math.floor(dialect.maxParameters / REQUEST_LOG_COLUMNS.length)),
    },
    flushIntervalMs,
    retentionIntervalMs,
    onError: options.onError ?? defaultOnError,
    now,
    sample,
    entries: [],
    unauthenticated: [],
    bufferedBytes: 0,
    dropped: 0,
    droppedUnreported: 0,
    lastDropReport: undefined,
    closed: false,
    flushing: Promise.resolve(),
    flushSoon: false,
    written: new Set(),
    sweptAll: false,
    sweeping: undefined,
  };
}

/**
 * A `ReadableRequestLog` on `scimkit_request_log` of the store's database.
 *
 * @example
 * const store = await sqlStore({ postgres: process.env.DATABASE_URL });
 * const requestLog = sqlRequestLog(store, { maxAgeMs: 3 * 24 * 3600_000 });
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth: store.tokens, requestLog }));
 * // on shutdown:
 * await requestLog.close();
 * await store.close();
 */
export function sqlRequestLog(database: SqlRequestLogDatabase, options: SqlRequestLogOptions = {}): SqlRequestLog {
  const buffer = requestLogBuffer(database, options);
  const { db, now, sample, settings } = buffer;
  const { bufferCapacity, maxBufferedBytes, flushBatchSize, unauthenticatedCapacity, unauthenticatedMaxAgeMs } = settings;

  const flushTimer = setInterval(() => backgroundFlush(buffer), buffer.flushIntervalMs);
  flushTimer.unref();
  const retentionTimer = setInterval(() => {
    enforceRequestLogRetention(buffer).catch(buffer.onError);
  }, buffer.retentionIntervalMs);
  retentionTimer.unref();

  return {
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    get dropped() {
      return buffer.dropped;
    },
    get buffered() {
      return buffer.entries.length;
    },
    record(entry) {
      const size = requestLogEntrySize(entry);
      if (buffer.closed || buffer.entries.length >= bufferCapacity || buffer.bufferedBytes + size > maxBufferedBytes) {
        drop(buffer, 1);
        return;
      }
      // The seq is taken now, not at the write: entries list in the order they were recorded.
      buffer.entries.push({ entry, seq: uuidV7(), recordedAt: now(), size });
      buffer.bufferedBytes += size;
      if (buffer.entries.length >= flushBatchSize && !buffer.flushSoon) {
        buffer.flushSoon = true;
        setImmediate(() => {
          buffer.flushSoon = false;
          backgroundFlush(buffer);
        }).unref();
      }
    },
    recordUnauthenticated(entry) {
      if (buffer.closed || !sample.admit()) return;
      const bounded = boundUnauthenticatedEntry(entry);
      buffer.unauthenticated.push({ entry: bounded, seq: uuidV7(), recordedAt: now() });
      // Only the newest are kept anyway: a database that does not answer never grows this.
      if (buffer.unauthenticated.length > unauthenticatedCapacity) buffer.unauthenticated.shift();
    },
    async list(orgId, query = {}) {
      // A failure here is the background flush's to report; the query says whether the database answers.
      await flushAll(buffer).catch(() => undefined);
      return listRequestLogRows(db, orgId, query);
    },
    async listUnauthenticated(query = {}) {
      const limit = checkUnauthenticatedQuery(query);
      await flushAll(buffer).catch(() => undefined);
      return listUnauthenticatedRows(
        db,
        {
          limit,
          ...(query.orgId === undefined ? {} : { orgId: query.orgId }),
          ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
        },
        now() - unauthenticatedMaxAgeMs,
      );
    },
    async flush() {
      try {
        await flushAll(buffer);
      } finally {
        reportDrops(buffer);
      }
    },
    enforceRetention: () => enforceRequestLogRetention(buffer),
    async close() {
      if (buffer.closed) return;
      buffer.closed = true;
      clearInterval(flushTimer);
      clearInterval(retentionTimer);
      await buffer.sweeping?.catch(() => undefined);
      try {
        await flushAll(buffer);
      } catch (error) {
        // Nothing will write them now.
        drop(buffer, buffer.entries.length);
        take(buffer, buffer.entries.length);
        throw error;
      } finally {
        // The last report: no interval to wait for.
        buffer.lastDropReport = undefined;
        reportDrops(buffer);
      }
    },
  };
}
