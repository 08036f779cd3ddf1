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
  let recorded: readonly OutboxEvent[] = [];
  const result = await withTranslatedErrors(dialect, () =>
    dialect.writeTransaction(db, async (trx) => {
      // Reset on each attempt: a dialect may run `work` again after a deadlock.
      recorded = [];
      const value = await work(trx);
      const source = recording ? produced(value) : undefined;
      if (recording && source !== undefined) {
        recorded = await appendEvents(trx, dialect, orgId, recording.build(source), recording, now());
      }
      return value;
    }),
  );
  if (recording && produced(result) !== undefined) recording.committed(recorded);
  return result;
}
