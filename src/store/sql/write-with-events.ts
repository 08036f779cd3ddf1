import type { Kysely } from "kysely";
import type { EventRecording, OutboxEvent } from "../event-outbox.js";
import type { SqlDialect, TransactionWork } from "./dialects/sql-dialect.js";
import { appendEvents } from "./sql-event-outbox.js";
import type { SqlStoreDatabase } from "./sql-tables.js";
import { withTranslatedErrors } from "./with-translated-errors.js";

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
  const results = await writeAllWithEvents(db, dialect, now, orgId, [recording], async (trx) => [await work(trx)], produced);
  return results[0] as R;
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
      // Reset on each attempt: a dialect may run `work` again after a deadlock.
      recorded = [];
      const values = await work(trx);
      for (let index = 0; index < recordings.length; index++) {
        const recording = recordings[index];
        const source = recording ? produced(values[index] as R) : undefined;
        recorded.push(
          recording && source !== undefined ? await appendEvents(trx, dialect, orgId, recording.build(source), recording, now()) : [],
        );
      }
      return values;
    }),
  );
  recordings.forEach((recording, index) => {
    if (recording && produced(results[index] as R) !== undefined) recording.committed(recorded[index] ?? []);
  });
  return results;
}
