/**
 * The provisioning log's space for requests without a verified token, in SQL (issue 27):
 * `scimkit_unauthenticated_log` and `scimkit_unauthenticated_drops` (migration 16). The entries
 * are few (a sample, kept to a small count after every write), so each statement here is a plain
 * one on a small table, never a hot path.
 */
import { type Kysely, sql } from "kysely";
import type { UnauthenticatedRequestLogPage } from "../../../request-log/readable-request-log.js";
import type { UnauthenticatedRequestLogEntry } from "../../../request-log/request-log.js";
import { chunksOf } from "../chunks.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { sharedLogColumnsOf, sharedLogMembersOf, text } from "./request-log-row.js";

/** An unauthenticated entry waiting to be written, with the `seq` it was recorded as. */
export interface PendingUnauthenticated {
  readonly entry: UnauthenticatedRequestLogEntry;
  readonly seq: string;
  readonly recordedAt: number;
}

/** The columns of a row: what one row of an insert costs in parameters. */
const COLUMNS = 14;

/**
 * Writes `entries` and the `drops` (per minute) in the transaction `trx`, then deletes every
 * entry beyond the newest `capacity`: the table never holds more than `capacity` once a write has
 * committed, however many processes write. `maxParameters` is the dialect's bound per statement.
 */
export async function writeUnauthenticated(
  trx: Kysely<SqlStoreDatabase>,
  entries: readonly PendingUnauthenticated[],
  drops: ReadonlyMap<number, number>,
  limits: { readonly capacity: number; readonly maxParameters: number },
): Promise<void> {
  const { capacity, maxParameters } = limits;
  if (entries.length > 0) {
    for (const rows of chunksOf(entries, Math.max(1, Math.floor(maxParameters / COLUMNS)))) {
      await trx
        .insertInto("scimkit_unauthenticated_log")
        .values(
          rows.map(({ entry, seq, recordedAt }) => ({ ...sharedLogColumnsOf(entry, seq, recordedAt), claimed_org_id: text(entry.orgId) })),
        )
        .execute();
    }
    const boundary = await trx
      .selectFrom("scimkit_unauthenticated_log")
      .select("seq")
      .orderBy("seq", "desc")
      .limit(1)
      .offset(capacity)
      .executeTakeFirst();
    if (boundary !== undefined) await trx.deleteFrom("scimkit_unauthenticated_log").where("seq", "<=", boundary.seq).execute();
  }
  for (const [window, dropped] of drops) {
    await trx
      .insertInto("scimkit_unauthenticated_drops")
      .values({ window_ms: window, dropped })
      .onConflict((conflict) =>
        conflict.column("window_ms").doUpdateSet({ dropped: sql<number>`scimkit_unauthenticated_drops.dropped + excluded.dropped` }),
      )
      .execute();
  }
}

/** Deletes the entries and the drop counts from before `cutoff` (milliseconds). */
export async function deleteUnauthenticatedBefore(db: Kysely<SqlStoreDatabase>, cutoff: number): Promise<void> {
  await db.deleteFrom("scimkit_unauthenticated_log").where("at_ms", "<", cutoff).execute();
  await db.deleteFrom("scimkit_unauthenticated_drops").where("window_ms", "<", cutoff).execute();
}

// The cursor is the `seq` of the previous page's last entry, a UUID v7 this log gave.
const SEQ = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** One page of the unauthenticated entries, newest first, with the drops counted from `since` (milliseconds). */
export async function listUnauthenticatedRows(
  db: Kysely<SqlStoreDatabase>,
  query: { readonly orgId?: string; readonly cursor?: string; readonly limit: number },
  since: number,
): Promise<UnauthenticatedRequestLogPage> {
  if (query.cursor !== undefined && !SEQ.test(query.cursor))
    throw new RangeError(`request log: cursor ${JSON.stringify(query.cursor)} is not one this log gave.`);
  let select = db.selectFrom("scimkit_unauthenticated_log").selectAll();
  if (query.cursor !== undefined) select = select.where("seq", "<", query.cursor);
  if (query.orgId !== undefined) select = select.where("claimed_org_id", "=", query.orgId);
  const rows = await select
    .orderBy("seq", "desc")
    .limit(query.limit + 1)
    .execute();
  const counted = await db
    .selectFrom("scimkit_unauthenticated_drops")
    .select((eb) => eb.fn.sum<number | string | null>("dropped").as("dropped"))
    .where("window_ms", ">=", since)
    .executeTakeFirst();
  const page = {
    entries: rows.slice(0, query.limit).map((row) => Object.freeze({ ...sharedLogMembersOf(row), orgId: row.claimed_org_id })),
    dropped: Number(counted?.dropped ?? 0),
    droppedSince: new Date(since).toISOString(),
  };
  const last = rows[query.limit - 1];
  return rows.length > query.limit && last !== undefined ? { ...page, nextCursor: last.seq } : page;
}
