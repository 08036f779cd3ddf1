/**
 * What the SQL provisioning log holds between a request and the database: the entries buffered
 * (bounded by count and bytes), the unauthenticated sample's entries, the drop counts and their
 * reports, and the flags of its flushes and sweeps. `sqlRequestLog` builds it once; recording,
 * flushing and retention are functions of it.
 */
import type { Kysely } from "kysely";
import type { RequestLogEntry } from "../../../request-log/request-log.js";
import type { UnauthenticatedSample } from "../../../request-log/unauthenticated-sample.js";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { RequestLogOverflowError } from "./request-log-overflow-error.js";
import type { RequestLogRetentionResult } from "./request-log-retention.js";
import type { PendingUnauthenticated } from "./unauthenticated-log-rows.js";

/** An entry recorded and not yet written. */
export interface Pending {
  /** The entry. */
  readonly entry: RequestLogEntry;
  /** Its position in the log, taken when it was recorded. */
  readonly seq: string;
  /** When it was recorded, in milliseconds since the epoch. */
  readonly recordedAt: number;
  /** Its text's size, counted against `maxBufferedBytes`. */
  readonly size: number;
}

/** The settings of the log, defaults applied. */
export interface RequestLogSettings {
  /** `SqlRequestLogOptions.maxAgeMs`. */
  readonly maxAgeMs: number;
  /** `SqlRequestLogOptions.maxEntriesPerOrg`. */
  readonly maxEntriesPerOrg: number;
  /** `SqlRequestLogOptions.bufferCapacity`. */
  readonly bufferCapacity: number;
  /** `SqlRequestLogOptions.maxBufferedBytes`. */
  readonly maxBufferedBytes: number;
  /** `SqlRequestLogOptions.flushBatchSize`. */
  readonly flushBatchSize: number;
  /** `SqlRequestLogOptions.retentionBatchSize`. */
  readonly retentionBatchSize: number;
  /** `SqlRequestLogOptions.dropReportIntervalMs`. */
  readonly dropReportIntervalMs: number;
  /** `SqlRequestLogOptions.unauthenticatedCapacity`. */
  readonly unauthenticatedCapacity: number;
  /** `SqlRequestLogOptions.unauthenticatedMaxAgeMs`. */
  readonly unauthenticatedMaxAgeMs: number;
  /** Rows per insert statement: as many as the dialect's parameter limit allows. */
  readonly rowsPerStatement: number;
}

/** The buffer of one SQL provisioning log and what its background work needs. */
export interface RequestLogBuffer {
  /** The store's database. */
  readonly db: Kysely<SqlStoreDatabase>;
  /** Its dialect. */
  readonly dialect: SqlDialect;
  /** The settings, defaults applied. */
  readonly settings: RequestLogSettings;
  /** Receives what went wrong in the background. */
  readonly onError: (error: unknown) => void;
  /** The clock, in milliseconds since the epoch. */
  readonly now: () => number;
  /** Which requests without a verified token are kept. */
  readonly sample: UnauthenticatedSample;
  /** Entries recorded and not yet written, oldest first. */
  entries: Pending[];
  /** Requests without a verified token, apart: never in the organizations' buffer or table. */
  unauthenticated: PendingUnauthenticated[];
  /** The size of `entries`. */
  bufferedBytes: number;
  /** Entries dropped since the log was opened. */
  dropped: number;
  /** Of them, those not reported yet. */
  droppedUnreported: number;
  /** When drops were last reported. */
  lastDropReport: number | undefined;
  /** Whether `close()` was called. */
  closed: boolean;
  /** The flush under way (settled: none). */
  flushing: Promise<void>;
  /** Whether a flush of a full batch is already scheduled. */
  flushSoon: boolean;
  /**
   * Organizations written to since the last sweep: only they can have grown past the count. The
   * first sweep of the process checks every organization, for what earlier processes wrote.
   */
  written: Set<string>;
  /** Whether a sweep has checked every organization. */
  sweptAll: boolean;
  /** The sweep under way. */
  sweeping: Promise<RequestLogRetentionResult> | undefined;
}

/** Counts `count` entries dropped. */
export function drop(buffer: RequestLogBuffer, count: number): void {
  buffer.dropped += count;
  buffer.droppedUnreported += count;
}

/** Reports the drops not reported yet, at most once per `dropReportIntervalMs`. */
export function reportDrops(buffer: RequestLogBuffer): void {
  if (buffer.droppedUnreported === 0) return;
  const at = buffer.now();
  if (buffer.lastDropReport !== undefined && at - buffer.lastDropReport < buffer.settings.dropReportIntervalMs) return;
  buffer.lastDropReport = at;
  const error = new RequestLogOverflowError(buffer.droppedUnreported, buffer.dropped);
  buffer.droppedUnreported = 0;
  buffer.onError(error);
}

/** Takes the oldest `count` entries out of the buffer. */
export function take(buffer: RequestLogBuffer, count: number): Pending[] {
  const batch = buffer.entries.slice(0, count);
  buffer.entries = buffer.entries.slice(count);
  for (const pending of batch) buffer.bufferedBytes -= pending.size;
  return batch;
}

/** Puts `batch` back at the front, in order, as far as there is room: the oldest entries go to the database first. */
export function putBack(buffer: RequestLogBuffer, batch: readonly Pending[]): void {
  const room = Math.max(0, buffer.settings.bufferCapacity - buffer.entries.length);
  const kept = batch.slice(0, room);
  drop(buffer, batch.length - kept.length);
  buffer.entries = [...kept, ...buffer.entries];
  for (const pending of kept) buffer.bufferedBytes += pending.size;
}
