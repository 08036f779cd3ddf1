/**
 * Retention of `scimkit_request_log`: deleting entries older than an age, and an organization's
 * entries beyond a count, in statements of at most `batchSize` rows each. Every statement is a
 * transaction of its own, so no lock is held longer than one small delete takes and the log's
 * inserts (and the store's writes, on SQLite's single writer) interleave with a long sweep.
 */
import { sql, type Kysely } from "kysely";
import type { SqlStoreDatabase } from "../sql-tables.js";

/** What one sweep deleted. */
export interface RequestLogRetentionResult {
  /** Entries deleted because they were older than `maxAgeMs`. */
  readonly deletedByAge: number;
  /** Entries deleted because their organization held more than `maxEntriesPerOrg`. */
  readonly deletedByCount: number;
}

/** How a sweep runs. */
export interface RequestLogSweep {
  readonly db: Kysely<SqlStoreDatabase>;
  /** Rows per delete statement. */
  readonly batchSize: number;
  /** Whether to stop before the next statement (the log is closing). */
  readonly stopped: () => boolean;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function deleteInBatches(sweep: RequestLogSweep, deleteBatch: () => Promise<number>): Promise<number> {
  let total = 0;
  while (!sweep.stopped()) {
    const deleted = await deleteBatch();
    total += deleted;
    if (deleted < sweep.batchSize) break;
    // Lets flushes and requests in between, however many batches the sweep takes.
    await nextTurn();
  }
  return total;
}

/** Deletes every entry whose `at` is before `cutoff` (milliseconds), oldest first, through the `at_ms` index. */
export function deleteOlderThan(sweep: RequestLogSweep, cutoff: number): Promise<number> {
  const { db, batchSize } = sweep;
  return deleteInBatches(sweep, async () => {
    const result = await db
      .deleteFrom("scimkit_request_log")
      .where(({ eb, refTuple, selectFrom }) =>
        eb(
          refTuple("org_id", "seq"),
          "in",
          selectFrom("scimkit_request_log")
            .select(["org_id", "seq"])
            .where("at_ms", "<", cutoff)
            .orderBy("at_ms")
            .limit(batchSize)
            .$asTuple("org_id", "seq"),
        ),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  });
}

/**
 * Deletes `orgId`'s entries beyond its `keep` newest. Finding the boundary reads `keep` keys of
 * the primary key's range once; each delete then reads only what it deletes.
 */
export async function deleteBeyondCount(sweep: RequestLogSweep, orgId: string, keep: number): Promise<number> {
  const { db, batchSize } = sweep;
  const boundary = await db
    .selectFrom("scimkit_request_log")
    .select("seq")
    .where("org_id", "=", orgId)
    .orderBy("seq", "desc")
    .limit(1)
    .offset(keep)
    .executeTakeFirst();
  if (boundary === undefined) return 0;
  return deleteInBatches(sweep, async () => {
    const result = await db
      .deleteFrom("scimkit_request_log")
      .where("org_id", "=", orgId)
      .where("seq", "in", (eb) =>
        eb
          .selectFrom("scimkit_request_log")
          .select("seq")
          .where("org_id", "=", orgId)
          .where("seq", "<=", boundary.seq)
          .orderBy("seq")
          .limit(batchSize),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  });
}

/**
 * Every organization with entries, by a loose index scan of the primary key (one probe per
 * organization, not a read of every row): what the first sweep of a process checks counts of.
 */
export async function requestLogOrganizations(db: Kysely<SqlStoreDatabase>): Promise<string[]> {
  const result = await sql<{ org_id: string | null }>`
    with recursive orgs(org_id) as (
      select min(org_id) from scimkit_request_log
      union all
      select (select min(l.org_id) from scimkit_request_log l where l.org_id > orgs.org_id) from orgs where orgs.org_id is not null
    )
    select org_id from orgs where org_id is not null`.execute(db);
  return result.rows.flatMap((row) => (row.org_id === null ? [] : [row.org_id]));
}
