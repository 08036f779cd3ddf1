import type { Kysely } from "kysely";
import type { EventRecording, OutboxEvent } from "../event-outbox.js";
import type { SqlDialect, TransactionWork } from "./dialects/sql-dialect.js";
import { appendEvents } from "./sql-event-outbox.js";
import type { SqlStoreDatabase } from "./sql-tables.js";
import { withTranslatedErrors } from "./with-translated-errors.js";

const NONE: readonly OutboxEvent[] = [];

/** Inside the transaction: the events of one write built from what it produced, and recorded. */
function recordEvents<R, E>(
  trx: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  now: () => string,
  orgId: string,
  recording: EventRecording<E> | undefined,
  value: R,
  produced: (result: R) => E | undefined,
): Promise<readonly OutboxEvent[]> | readonly OutboxEvent[] {
  const source = recording ? produced(value) : undefined;
  return recording && source !== undefined ? appendEvents(trx, dialect, orgId, recording.build(source), recording, now()) : NONE;
}

/** After the commit: the recorded events of one write, reported when it did something. */
function reportCommitted<R, E>(
  recording: EventRecording<E> | undefined,
  value: R,
  produced: (result: R) => E | undefined,
  recorded: readonly OutboxEvent[],
): void {
  if (recording && produced(value) !== undefined) recording.committed(recorded);
}

/**
 * Runs a write in one transaction with its events (`EventRecording`): built from what the write
 * produced, inserted last of all in the same transaction, and reported only after the commit.
 * `produced` says what the events are built from, or `undefined` when the write did nothing.
 */
export async function writeWithEvents<R, E>(
  db: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  now: () => string,
  orgId: string,
  recording: EventRecording<E> | undefined,
  work: TransactionWork<R>,
  produced: (result: R) => E | undefined,
): Promise<R> {
  let recorded = NONE;
  const result = await withTranslatedErrors(dialect, () =>
    dialect.writeTransaction(db, async (trx) => {
      // Reset on each attempt: a dialect may run `work` again after a deadlock.
      recorded = NONE;
      const value = await work(trx);
      recorded = await recordEvents(trx, dialect, now, orgId, recording, value, produced);
      return value;
    }),
  );
  reportCommitted(recording, result, produced, recorded);
  return result;
}

/**
 * `writeWithEvents` for several writes of one organization in one transaction (a batch): `work`
 * returns one result per entry of `recordings`, in order, and each write's events are built,
 * recorded and reported as `writeWithEvents` does for one, in that order.
 */
export async function writeAllWithEvents<R, E>(
  db: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  now: () => string,
  orgId: string,
  recordings: readonly (EventRecording<E> | undefined)[],
  work: TransactionWork<readonly R[]>,
  produced: (result: R) => E | undefined,
): Promise<readonly R[]> {
  let recorded: (readonly OutboxEvent[])[] = [];
  const results = await withTranslatedErrors(dialect, () =>
    dialect.writeTransaction(db, async (trx) => {
      recorded = [];
      const values = await work(trx);
      for (let index = 0; index < recordings.length; index++) {
        recorded.push(await recordEvents(trx, dialect, now, orgId, recordings[index], values[index] as R, produced));
      }
      return values;
    }),
  );
  for (let index = 0; index < recordings.length; index++) {
    reportCommitted(recordings[index], results[index] as R, produced, recorded[index] ?? NONE);
  }
  return results;
}
