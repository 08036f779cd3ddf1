/**
 * `sqlRequestLog`: the provisioning log (issue 18) in the SQL store's database, SQLite or
 * PostgreSQL, on `scimkit_request_log` (migration 11). Writing it never fails a request nor makes
 * one wait for the database: `record` only appends to a bounded buffer in memory, and a timer
 * writes the buffer in batches (multi-row inserts, one transaction per batch). Retention by age
 * and by count per organization runs on another timer, in small deletes.
 */
import { CompiledQuery, type Insertable, type Kysely } from "kysely";
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
import { chunksOf } from "../chunks.js";
import { cachedStatementText } from "../statement-texts.js";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import { isConnectionFailure } from "../is-connection-failure.js";
import type { RequestLogTable, SqlStoreDatabase } from "../sql-tables.js";
import { uuidV7 } from "../../../uuid-v7.js";
import { listRequestLogRows } from "./list-request-log-rows.js";
import { RequestLogOverflowError } from "./request-log-overflow-error.js";
import {
  deleteBeyondCount,
  deleteOlderThan,
  type RequestLogRetentionResult,
  type RequestLogSweep,
  requestLogOrganizations,
} from "./request-log-retention.js";
import { REQUEST_LOG_COLUMNS, requestLogEntrySize, requestLogRowValues } from "./request-log-row.js";
import {
  deleteUnauthenticatedBefore,
  listUnauthenticatedRows,
  type PendingUnauthenticated,
  writeUnauthenticated,
} from "./unauthenticated-log-rows.js";

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

interface Pending {
  readonly entry: RequestLogEntry;
  readonly seq: string;
  readonly recordedAt: number;
  readonly size: number;
}

function positive(name: string, value: number | undefined, fallback: number, allowInfinity = false): number {
  const chosen = value ?? fallback;
  const ok = allowInfinity && chosen === Number.POSITIVE_INFINITY ? true : Number.isInteger(chosen) && chosen >= 1;
  if (!ok) throw new RangeError(`sqlRequestLog: ${name} must be a positive integer${allowInfinity ? " or Infinity" : ""}; got ${chosen}.`);
  return chosen;
}

// Worth writing again at the next flush rather than dropping: the database could not be reached,
// or was busy (SQLite's write lock held by another process past its timeout; PostgreSQL's
// serialization failure or deadlock).
function isTransient(error: unknown): boolean {
  if (isConnectionFailure(error)) return true;
  const code = typeof error === "object" && error !== null ? (error as { readonly code?: unknown }).code : undefined;
  return typeof code === "string" && (/^SQLITE_(BUSY|LOCKED)/.test(code) || code === "40001" || code === "40P01");
}

const defaultOnError = (error: unknown): void => {
  console.error("scimkit: provisioning log:", error);
};

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
  const onError = options.onError ?? defaultOnError;
  const now = options.now ?? Date.now;
  const sample = unauthenticatedSample(
    positive("unauthenticatedPerMinute", options.unauthenticatedPerMinute, DEFAULT_UNAUTHENTICATED_PER_MINUTE),
    now,
  );
  const rowsPerStatement = Math.max(1, Math.floor(dialect.maxParameters / REQUEST_LOG_COLUMNS.length));
  // The text of an insert of `rows` rows, compiled once per count: building and compiling a
  // 500-row query on every flush cost more than the database's own insert.
  const insertText = (rows: number): string =>
    cachedStatementText(dialect, `request-log-insert:${rows}`, () => {
      // Only the statement's text is kept: the values are placeholders.
      const row = Object.fromEntries(REQUEST_LOG_COLUMNS.map((column) => [column, null])) as unknown as Insertable<RequestLogTable>;
      return db
        .insertInto("scimkit_request_log")
        .values(Array.from({ length: rows }, () => row))
        .compile().sql;
    });

  let buffer: Pending[] = [];
  // Requests without a verified token, apart: never in the organizations' buffer or table.
  let unauthenticated: PendingUnauthenticated[] = [];
  let bufferedBytes = 0;
  let dropped = 0;
  let droppedUnreported = 0;
  let lastDropReport: number | undefined;
  let closed = false;
  let flushing: Promise<void> = Promise.resolve();
  let flushSoon = false;
  // Organizations written to since the last sweep: only they can have grown past the count. The
  // first sweep of the process checks every organization, for what earlier processes wrote.
  let written = new Set<string>();
  let sweptAll = false;
  let sweeping: Promise<RequestLogRetentionResult> | undefined;

  const drop = (count: number): void => {
    dropped += count;
    droppedUnreported += count;
  };

  const reportDrops = (): void => {
    if (droppedUnreported === 0) return;
    const at = now();
    if (lastDropReport !== undefined && at - lastDropReport < dropReportIntervalMs) return;
    lastDropReport = at;
    const error = new RequestLogOverflowError(droppedUnreported, dropped);
    droppedUnreported = 0;
    onError(error);
  };

  const take = (count: number): Pending[] => {
    const batch = buffer.slice(0, count);
    buffer = buffer.slice(count);
    for (const pending of batch) bufferedBytes -= pending.size;
    return batch;
  };

  const putBack = (batch: readonly Pending[]): void => {
    // Back at the front, in order, as far as there is room: the oldest entries go to the database first.
    const room = Math.max(0, bufferCapacity - buffer.length);
    const kept = batch.slice(0, room);
    drop(batch.length - kept.length);
    buffer = [...kept, ...buffer];
    for (const pending of kept) bufferedBytes += pending.size;
  };

  const insert = (batch: readonly Pending[]): Promise<void> =>
    dialect.writeTransaction(db, async (trx) => {
      // The batch's commit does not wait for the disk (PostgreSQL). Measured with the log on ÷ off:
      // PATCH and PUT kept 86–87% of their throughput when it waited, 91–93% when it did not
      // (bench/explanations.md); a database crash may then lose the last moment of the log.
      await dialect.lazyCommit?.(trx);
      for (const rows of chunksOf(batch, rowsPerStatement)) {
        const parameters = rows.flatMap((pending) => requestLogRowValues(pending.entry, pending.seq, pending.recordedAt));
        await trx.executeQuery(CompiledQuery.raw(insertText(rows.length), parameters));
      }
    });

  const writeBatch = async (size: number): Promise<void> => {
    const batch = take(size);
    if (batch.length === 0) return;
    try {
      await insert(batch);
    } catch (error) {
      if (isTransient(error)) {
        putBack(batch);
        throw error;
      }
      // The database refused the batch: one at a time, so one entry it cannot take (a value too
      // large for the column, say) costs that entry alone.
      onError(error);
      for (const pending of batch) {
        try {
          await insert([pending]);
        } catch (single) {
          if (isTransient(single)) {
            putBack(batch.slice(batch.indexOf(pending)));
            throw single;
          }
          drop(1);
        }
      }
    }
    for (const pending of batch) written.add(pending.entry.orgId);
  };

  /**
   * Writes the unauthenticated entries and drop counts held. When the database could not be
   * reached they go back for the next flush (the newest `unauthenticatedCapacity` entries, all the
   * counts); when it refused them, they are lost to `onError`: they are a sample of noise.
   */
  const writeUnauthenticatedHeld = async (): Promise<void> => {
    const entries = unauthenticated;
    const drops = sample.takeDrops();
    if (entries.length === 0 && drops.size === 0) return;
    unauthenticated = [];
    try {
      await dialect.writeTransaction(db, async (trx) => {
        await dialect.lazyCommit?.(trx);
        await writeUnauthenticated(trx, entries, drops, { capacity: unauthenticatedCapacity, maxParameters: dialect.maxParameters });
      });
    } catch (error) {
      if (!isTransient(error)) {
        onError(error);
        return;
      }
      unauthenticated = [...entries, ...unauthenticated].slice(-unauthenticatedCapacity);
      sample.putBackDrops(drops);
      throw error;
    }
  };

  /**
   * Writes what is buffered when its turn comes (one writer at a time, in the order the calls
   * came), so every entry recorded before the call. Not what arrives meanwhile: under a steady
   * stream of requests, "until the buffer is empty" might never come.
   */
  const flushAll = (): Promise<void> => {
    const run = flushing
      .catch(() => undefined)
      .then(async () => {
        for (let remaining = buffer.length; remaining > 0 && buffer.length > 0; remaining -= flushBatchSize) {
          await writeBatch(Math.min(remaining, flushBatchSize));
        }
        await writeUnauthenticatedHeld();
      });
    flushing = run.catch(() => undefined);
    return run;
  };

  const backgroundFlush = (): void => {
    flushAll()
      .catch(onError)
      .finally(reportDrops)
      .catch(() => undefined);
  };

  const enforceRetention = (): Promise<RequestLogRetentionResult> => {
    if (sweeping) return sweeping;
    const sweep: RequestLogSweep = { db, batchSize: retentionBatchSize, stopped: () => closed };
    const organizations = written;
    written = new Set();
    const run = (async (): Promise<RequestLogRetentionResult> => {
      try {
        const deletedByAge = Number.isFinite(maxAgeMs) ? await deleteOlderThan(sweep, now() - maxAgeMs) : 0;
        await deleteUnauthenticatedBefore(db, now() - unauthenticatedMaxAgeMs);
        let deletedByCount = 0;
        if (Number.isFinite(maxEntriesPerOrg)) {
          const orgIds = sweptAll ? [...organizations] : await requestLogOrganizations(db);
          for (const orgId of orgIds) {
            if (closed) break;
            deletedByCount += await deleteBeyondCount(sweep, orgId, maxEntriesPerOrg);
          }
        }
        sweptAll = true;
        return { deletedByAge, deletedByCount };
      } catch (error) {
        for (const orgId of organizations) written.add(orgId);
        throw error;
      }
    })();
    sweeping = run;
    // Cleared once settled, never before it is set (a sweep with both limits off settles at once).
    const done = (): void => {
      if (sweeping === run) sweeping = undefined;
    };
    run.then(done, done);
    return run;
  };

  const flushTimer = setInterval(backgroundFlush, flushIntervalMs);
  flushTimer.unref();
  const retentionTimer = setInterval(() => {
    enforceRetention().catch(onError);
  }, retentionIntervalMs);
  retentionTimer.unref();

  return {
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    get dropped() {
      return dropped;
    },
    get buffered() {
      return buffer.length;
    },
    record(entry) {
      const size = requestLogEntrySize(entry);
      if (closed || buffer.length >= bufferCapacity || bufferedBytes + size > maxBufferedBytes) {
        drop(1);
        return;
      }
      // The seq is taken now, not at the write: entries list in the order they were recorded.
      buffer.push({ entry, seq: uuidV7(), recordedAt: now(), size });
      bufferedBytes += size;
      if (buffer.length >= flushBatchSize && !flushSoon) {
        flushSoon = true;
        setImmediate(() => {
          flushSoon = false;
          backgroundFlush();
        }).unref();
      }
    },
    recordUnauthenticated(entry) {
      if (closed || !sample.admit()) return;
      const bounded = boundUnauthenticatedEntry(entry);
      unauthenticated.push({ entry: bounded, seq: uuidV7(), recordedAt: now() });
      // Only the newest are kept anyway: a database that does not answer never grows this.
      if (unauthenticated.length > unauthenticatedCapacity) unauthenticated.shift();
    },
    async list(orgId, query = {}) {
      // A failure here is the background flush's to report; the query says whether the database answers.
      await flushAll().catch(() => undefined);
      return listRequestLogRows(db, orgId, query);
    },
    async listUnauthenticated(query = {}) {
      const limit = checkUnauthenticatedQuery(query);
      await flushAll().catch(() => undefined);
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
        await flushAll();
      } finally {
        reportDrops();
      }
    },
    enforceRetention,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(flushTimer);
      clearInterval(retentionTimer);
      await sweeping?.catch(() => undefined);
      try {
        await flushAll();
      } catch (error) {
        // Nothing will write them now.
        drop(buffer.length);
        take(buffer.length);
        throw error;
      } finally {
        // The last report: no interval to wait for.
        lastDropReport = undefined;
        reportDrops();
      }
    },
  };
}
