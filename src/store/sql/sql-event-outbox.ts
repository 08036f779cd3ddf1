/**
 * The SQL store's event outbox (`EventOutbox`) over `scimkit_events` (migration 13), and the append
 * its writes call inside their own transactions.
 */
import { CompiledQuery, sql, type Kysely } from "kysely";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import type { AppendEventsOptions, EventOutbox, OutboxEvent, OutboxEventInput, OutboxEventKey } from "../event-outbox.js";
import { chunksOf } from "./chunks.js";
import { cachedStatementText } from "./statement-texts.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import { lockRows } from "./lock-rows.js";
import type { EventsTable, SqlStoreDatabase } from "./sql-tables.js";

const eventColumns = [
  "org_id",
  "sequence",
  "jti",
  "type",
  "resource_type",
  "resource_id",
  "data",
  "recorded_at",
] as const satisfies readonly (keyof EventsTable)[];

/** A selected event row: the counter as either driver returns it. */
type EventRow = Omit<Pick<EventsTable, (typeof eventColumns)[number]>, "sequence"> & { readonly sequence: number | string };

function eventOf(row: EventRow, dialect: SqlDialect): OutboxEvent {
  const data = dialect.fromJson(row.data);
  const memberIds = data["memberIds"];
  return {
    orgId: row.org_id,
    sequence: Number(row.sequence),
    jti: row.jti,
    type: row.type,
    resourceType: row.resource_type,
    resourceId: row.resource_id,
    resource: (data["resource"] ?? {}) as ScimObject,
    ...(Array.isArray(memberIds) ? { memberIds: memberIds.map(String) } : {}),
    ...(typeof data["method"] === "string" ? { method: data["method"] } : {}),
    recordedAt: row.recorded_at,
  };
}

/** The columns of an inserted event, in the order of its bound values. */
const insertColumns = [...eventColumns, "pending", "lease_until_ms"] as const satisfies readonly (keyof EventsTable)[];

/**
 * Whether the dialect's write transactions exclude each other outright (SQLite's `BEGIN
 * IMMEDIATE`, which is why it needs no row locks): then nothing commits between reading the
 * organization's last sequence and inserting after it, and one statement does both.
 */
function writersExclude(dialect: SqlDialect): boolean {
  return dialect.rowLock("update") === undefined;
}

/**
 * The value of each event's `data` column. The events of one write usually carry one resource
 * (`updated` and `deactivated` share it): serialized once.
 */
function dataOf(dialect: SqlDialect, inputs: readonly OutboxEventInput[]): unknown[] {
  const byResource = new Map<ScimObject, unknown>();
  return inputs.map((input) => {
    if (input.memberIds) return dialect.toJson({ resource: input.resource, memberIds: [...input.memberIds] });
    let data = byResource.get(input.resource);
    if (data === undefined) {
      data = dialect.toJson({ resource: input.resource });
      byResource.set(input.resource, data);
    }
    return data;
  });
}

/**
 * One statement that inserts `rows` events after the organization's last sequence, for a dialect
 * whose writers exclude each other: the greater of the organization's last event and the floor
 * `prune` leaves in `scimkit_event_sequences`, so a number is never handed out twice. Bound: org,
 * recorded_at, pending, lease_until_ms, org, org, then per row jti, type, resource_type,
 * resource_id, data.
 */
function exclusiveInsertText(db: Kysely<SqlStoreDatabase>, dialect: SqlDialect, rows: number): string {
  return cachedStatementText(dialect, `event-outbox-exclusive:${rows}`, () => {
    const values = Array.from({ length: rows }, (_, index) => sql`(${sql.lit(index + 1)}, ${sql.join([null, null, null, null, null])})`);
    return sql`insert into scimkit_events (${sql.join(insertColumns.map((column) => sql.id(column)))})
      select ${null}, base.last + v.column1, v.column2, v.column3, v.column4, v.column5, v.column6, ${null}, ${null}, ${null}
      from (select case when e.last > s.last then e.last else s.last end as last
        from (select coalesce(max(sequence), 0) as last from scimkit_events where org_id = ${null}) as e,
          (select coalesce(max(last), 0) as last from scimkit_event_sequences where org_id = ${null}) as s) as base,
        (values ${sql.join(values)}) as v
      returning sequence`.compile(db).sql;
  });
}

/**
 * One statement that takes the organization's next `rows` numbers (the upsert of its sequence row,
 * which holds the row until commit) and inserts the events under them: a data-modifying `WITH`, so
 * the row is held for this statement and the commit, not for two statements. Bound: org, n, n,
 * org, recorded_at, pending, lease_until_ms, then per row jti, type, resource_type, resource_id,
 * data. Casts, because a `VALUES` list types its parameters as text.
 */
function lockingInsertText(db: Kysely<SqlStoreDatabase>, dialect: SqlDialect, rows: number): string {
  return cachedStatementText(dialect, `event-outbox-locking:${rows}`, () => {
    const text = (value: null) => sql`cast(${value} as text)`;
    const values = Array.from(
      { length: rows },
      (_, index) =>
        sql`(${sql.lit(index + 1)}, ${text(null)}, ${text(null)}, ${text(null)}, ${text(null)}, cast(${null} as ${dialect.columnTypes.json}))`,
    );
    return sql`with taken as (
        insert into scimkit_event_sequences (org_id, last) values (${null}, ${null})
        on conflict (org_id) do update set last = scimkit_event_sequences.last + ${null}
        returning last)
      insert into scimkit_events (${sql.join(insertColumns.map((column) => sql.id(column)))})
      select ${text(null)}, taken.last - ${sql.lit(rows)} + v.column1, v.column2, v.column3, v.column4, v.column5, v.column6,
        ${text(null)}, cast(${null} as integer), cast(${null} as ${dialect.columnTypes.counter})
      from taken, (values ${sql.join(values)}) as v
      returning sequence`.compile(db).sql;
  });
}

/**
 * Records `inputs` as the next events of `orgId` inside `trx`, a write transaction the caller owns,
 * and returns them as recorded; the caller hands `inputs` over (they are not copied). Takes the
 * organization's sequence row last of all the write's locks, so writes that share it queue for one
 * short moment at the end and never deadlock on it. Where writers exclude each other (SQLite), one
 * statement numbers and inserts the events, and the sequence row is left to `prune`; elsewhere
 * one statement takes the numbers from the sequence row and inserts.
 */
export async function appendEvents(
  trx: Kysely<SqlStoreDatabase>,
  dialect: SqlDialect,
  orgId: string,
  inputs: readonly OutboxEventInput[],
  options: AppendEventsOptions,
  recordedAt: string,
): Promise<readonly OutboxEvent[]> {
  if (inputs.length === 0) return [];
  const leaseUntilMs = Date.parse(options.leaseUntil);
  const lease = Number.isFinite(leaseUntilMs) ? leaseUntilMs : 0;
  const pending = options.pending ? 1 : 0;
  // Where writers exclude each other, one statement numbers after the last event; elsewhere one
  // takes the numbers from the sequence row. Each binds its own values first, then five per event.
  const exclusive = writersExclude(dialect);
  const recorded: OutboxEvent[] = [];
  for (const chunk of chunksOf(inputs, Math.floor((dialect.maxParameters - 7) / 5))) {
    const parameters: unknown[] = exclusive
      ? [orgId, recordedAt, pending, lease, orgId, orgId]
      : [orgId, chunk.length, chunk.length, orgId, recordedAt, pending, lease];
    const data = dataOf(dialect, chunk);
    for (const [index, input] of chunk.entries()) {
      parameters.push(input.jti, input.type, input.resourceType, input.resourceId, data[index]);
    }
    const text = exclusive ? exclusiveInsertText(trx, dialect, chunk.length) : lockingInsertText(trx, dialect, chunk.length);
    const { rows } = await trx.executeQuery<{ sequence: number | string }>(CompiledQuery.raw(text, parameters));
    // RETURNING promises no order; the rows took consecutive numbers in the order of `chunk`.
    const first = Math.min(...rows.map((row) => Number(row.sequence)));
    for (const [index, input] of chunk.entries()) recorded.push({ ...input, orgId, sequence: first + index, recordedAt });
  }
  return recorded;
}

/** The outbox of the SQL store over `db`; `now` is the store's clock. */
export function sqlEventOutbox(db: Kysely<SqlStoreDatabase>, dialect: SqlDialect, now: () => string): EventOutbox {
  /** Sets `values` on the events named, by primary key: per organization, a list of sequences at a time. */
  const updateByKey = async (
    trx: Kysely<SqlStoreDatabase>,
    events: readonly OutboxEventKey[],
    values: { readonly pending?: number; readonly lease_until_ms?: number },
  ): Promise<void> => {
    const byOrg = new Map<string, number[]>();
    for (const { orgId, sequence } of events) byOrg.set(orgId, [...(byOrg.get(orgId) ?? []), sequence]);
    for (const [orgId, sequences] of byOrg) {
      for (const chunk of chunksOf(sequences, dialect.maxParameters - 3)) {
        await trx.updateTable("scimkit_events").set(values).where("org_id", "=", orgId).where("sequence", "in", chunk).execute();
      }
    }
  };

  /**
   * The greater of the organization's last event and its sequence row: the row is exact where
   * appends update it, and a floor where they number after the last event (`writersExclude`).
   */
  const lastSequenceIn = async (executor: Kysely<SqlStoreDatabase>, orgId: string): Promise<number> => {
    const row = await executor.selectFrom("scimkit_event_sequences").select("last").where("org_id", "=", orgId).executeTakeFirst();
    const event = await executor
      .selectFrom("scimkit_events")
      .select("sequence")
      .where("org_id", "=", orgId)
      .orderBy("sequence", "desc")
      .limit(1)
      .executeTakeFirst();
    return Math.max(row ? Number(row.last) : 0, event ? Number(event.sequence) : 0);
  };

  return {
    append(orgId, events, options) {
      // Copied: unlike a write's own events, these stay the caller's.
      return dialect.writeTransaction(db, (trx) => appendEvents(trx, dialect, orgId, structuredClone(events), options, now()));
    },

    async read({ orgId, after, limit }) {
      const rows = await db
        .selectFrom("scimkit_events")
        .select(eventColumns)
        .where("org_id", "=", orgId)
        .where("sequence", ">", after)
        .orderBy("sequence")
        .limit(Math.max(1, limit))
        .execute();
      return rows.map((row) => eventOf(row, dialect));
    },

    claimPending({ limit, now: at, leaseUntil }) {
      return dialect.writeTransaction(db, async (trx) => {
        // Locked, then leased: a second claimer waits, then finds the lease renewed and skips them.
        const rows = await lockRows(
          trx
            .selectFrom("scimkit_events")
            .select(eventColumns)
            .where("pending", "=", 1)
            .where("lease_until_ms", "<", Date.parse(at))
            .orderBy("org_id")
            .orderBy("sequence")
            .limit(Math.max(1, limit)),
          dialect,
          "update",
        ).execute();
        const claimed = rows.map((row) => eventOf(row, dialect));
        await updateByKey(trx, claimed, { lease_until_ms: Date.parse(leaseUntil) });
        return claimed;
      });
    },

    async markDelivered(events) {
      await updateByKey(db, events, { pending: 0 });
    },

    prune(orgId, through) {
      return dialect.writeTransaction(db, async (trx) => {
        if (writersExclude(dialect)) {
          // Appends number after the last event left (`exclusiveInsertText`): the sequence row keeps
          // the floor, so deleting the last events never hands their numbers out again.
          const last = await lastSequenceIn(trx, orgId);
          if (last > 0) {
            await trx
              .insertInto("scimkit_event_sequences")
              .values({ org_id: orgId, last })
              .onConflict((conflict) => conflict.column("org_id").doUpdateSet({ last }))
              .execute();
          }
        }
        const result = await trx
          .deleteFrom("scimkit_events")
          .where("org_id", "=", orgId)
          .where("sequence", "<=", through)
          .where("pending", "=", 0)
          .executeTakeFirst();
        return Number(result.numDeletedRows);
      });
    },

    lastSequence: (orgId) => lastSequenceIn(db, orgId),
  };
}
