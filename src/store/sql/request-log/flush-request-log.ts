/**
 * Writing the SQL provisioning log's buffer: in batches of multi-row inserts, one transaction per
 * batch, one writer at a time. An entry the database refuses costs that entry alone; what could
 * not be written because the database was unreachable or busy goes back for the next flush.
 */
import { CompiledQuery, type Insertable } from "kysely";
import { chunksOf } from "../chunks.js";
import { isConnectionFailure } from "../is-connection-failure.js";
import type { RequestLogTable } from "../sql-tables.js";
import { cachedStatementText } from "../statement-texts.js";
import { drop, type Pending, putBack, reportDrops, type RequestLogBuffer, take } from "./request-log-buffer.js";
import { REQUEST_LOG_COLUMNS, requestLogRowValues } from "./request-log-row.js";
import { writeUnauthenticated } from "./unauthenticated-log-rows.js";

// Worth writing again at the next flush rather than dropping: the database could not be reached,
// or was busy (SQLite's write lock held by another process past its timeout; PostgreSQL's
// serialization failure or deadlock).
function isTransient(error: unknown): boolean {
  if (isConnectionFailure(error)) return true;
  const code = typeof error === "object" && error !== null ? (error as { readonly code?: unknown }).code : undefined;
  return typeof code === "string" && (/^SQLITE_(BUSY|LOCKED)/.test(code) || code === "40001" || code === "40P01");
}

/**
 * The text of an insert of `rows` rows, compiled once per count: building and compiling a 500-row
 * query on every flush cost more than the database's own insert.
 */
function insertText(buffer: RequestLogBuffer, rows: number): string {
  return cachedStatementText(buffer.dialect, `request-log-insert:${rows}`, () => {
    // Only the statement's text is kept: the values are placeholders.
    const row = Object.fromEntries(REQUEST_LOG_COLUMNS.map((column) => [column, null])) as unknown as Insertable<RequestLogTable>;
    return buffer.db
      .insertInto("scimkit_request_log")
      .values(Array.from({ length: rows }, () => row))
      .compile().sql;
  });
}

function insert(buffer: RequestLogBuffer, batch: readonly Pending[]): Promise<void> {
  const { dialect } = buffer;
  return dialect.writeTransaction(buffer.db, async (trx) => {
    // The batch's commit does not wait for the disk (PostgreSQL). Measured with the log on ÷ off:
    // PATCH and PUT kept 86–87% of their throughput when it waited, 91–93% when it did not
    // (bench/explanations.md); a database crash may then lose the last moment of the log.
    await dialect.lazyCommit?.(trx);
    for (const rows of chunksOf(batch, buffer.settings.rowsPerStatement)) {
      const parameters = rows.flatMap((pending) => requestLogRowValues(pending.entry, pending.seq, pending.recordedAt));
      await trx.executeQuery(CompiledQuery.raw(insertText(buffer, rows.length), parameters));
    }
  });
}

async function writeBatch(buffer: RequestLogBuffer, size: number): Promise<void> {
  const batch = take(buffer, size);
  if (batch.length === 0) return;
  try {
    await insert(buffer, batch);
  } catch (error) {
    if (isTransient(error)) {
      putBack(buffer, batch);
      throw error;
    }
    // The database refused the batch: one at a time, so one entry it cannot take (a value too
    // large for the column, say) costs that entry alone.
    buffer.onError(error);
    for (const pending of batch) {
      try {
        await insert(buffer, [pending]);
      } catch (single) {
        if (isTransient(single)) {
          putBack(buffer, batch.slice(batch.indexOf(pending)));
          throw single;
        }
        drop(buffer, 1);
      }
    }
  }
  for (const pending of batch) buffer.written.add(pending.entry.orgId);
}

/**
 * Writes the unauthenticated entries and drop counts held. When the database could not be
 * reached they go back for the next flush (the newest `unauthenticatedCapacity` entries, all the
 * counts); when it refused them, they are lost to `onError`: they are a sample of noise.
 */
async function writeUnauthenticatedHeld(buffer: RequestLogBuffer): Promise<void> {
  const { dialect, sample } = buffer;
  const { unauthenticatedCapacity } = buffer.settings;
  const entries = buffer.unauthenticated;
  const drops = sample.takeDrops();
  if (entries.length === 0 && drops.size === 0) return;
  buffer.unauthenticated = [];
  try {
    await dialect.writeTransaction(buffer.db, async (trx) => {
      await dialect.lazyCommit?.(trx);
      await writeUnauthenticated(trx, entries, drops, { capacity: unauthenticatedCapacity, maxParameters: dialect.maxParameters });
    });
  } catch (error) {
    if (!isTransient(error)) {
      buffer.onError(error);
      return;
    }
    buffer.unauthenticated = [...entries, ...buffer.unauthenticated].slice(-unauthenticatedCapacity);
    sample.putBackDrops(drops);
    throw error;
  }
}

/**
 * Writes what is buffered when its turn comes (one writer at a time, in the order the calls
 * came), so every entry recorded before the call. Not what arrives meanwhile: under a steady
 * stream of requests, "until the buffer is empty" might never come.
 */
export function flushAll(buffer: RequestLogBuffer): Promise<void> {
  const { flushBatchSize } = buffer.settings;
  const run = buffer.flushing
    .catch(() => undefined)
    .then(async () => {
      for (let remaining = buffer.entries.length; remaining > 0 && buffer.entries.length > 0; remaining -= flushBatchSize) {
        await writeBatch(buffer, Math.min(remaining, flushBatchSize));
      }
      await writeUnauthenticatedHeld(buffer);
    });
  buffer.flushing = run.catch(() => undefined);
  return run;
}

/** A flush of the timer's or of a full batch: its failure and the drops go to `onError`. */
export function backgroundFlush(buffer: RequestLogBuffer): void {
  flushAll(buffer)
    .catch(buffer.onError)
    .finally(() => reportDrops(buffer))
    .catch(() => undefined);
}
