/**
 * The SQL store's event outbox (`EventOutbox`) over `scimkit_events` (migration 13), and the append
 * its writes call inside their own transactions.
 */
import { sql, type Kysely } from "kysely";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import type { AppendEventsOptions, EventOutbox, OutboxEvent, OutboxEventInput, OutboxEventKey } from "../event-outbox.js";
import { chunksOf } from "./chunks.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import { lockRows } from "./lock-rows.js";
import type { EventsTable, SqlStoreDatabase } from "./sql-tables.js";

/** Columns per event row: what a chunk of inserted rows divides the parameter limit by. */
const COLUMNS_PER_EVENT = 10;

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

/**
 * Records `inputs` as the next events of `orgId` inside `trx`, a write transaction the caller owns,
 * and returns them as recorded. Takes the organization's sequence row last of all the write's
 * locks, so writes that share it queue for one short moment at the end and never deadlock on it.
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
  const { last } = await trx
    .insertInto("scimkit_event_sequences")
    .values({ org_id: orgId, last: inputs.length })
    .onConflict((conflict) => conflict.column("org_id").doUpdateSet({ last: sql<number>`scimkit_event_sequences.last + ${inputs.length}` }))
    .returning("last")
    .executeTakeFirstOrThrow();
  const first = Number(last) - inputs.length + 1;
  const recorded = inputs.map((input, index): OutboxEvent => ({ ...structuredClone(input), orgId, sequence: first + index, recordedAt }));
  const leaseUntilMs = Date.parse(options.leaseUntil);
  for (const chunk of chunksOf(recorded, Math.floor(dialect.maxParameters / COLUMNS_PER_EVENT))) {
    await trx
      .insertInto("scimkit_events")
      .values(
        chunk.map((event) => ({
          org_id: orgId,
          sequence: event.sequence,
          jti: event.jti,
          type: event.type,
          resource_type: event.resourceType,
          resource_id: event.resourceId,
          data: dialect.toJson(
            event.memberIds ? { resource: event.resource, memberIds: [...event.memberIds] } : { resource: event.resource },
          ),
          recorded_at: recordedAt,
          pending: options.pending ? 1 : 0,
          lease_until_ms: Number.isFinite(leaseUntilMs) ? leaseUntilMs : 0,
        })),
      )
      .execute();
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

  return {
    append(orgId, events, options) {
      return dialect.writeTransaction(db, (trx) => appendEvents(trx, dialect, orgId, events, options, now()));
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

    async prune(orgId, through) {
      const result = await db
        .deleteFrom("scimkit_events")
        .where("org_id", "=", orgId)
        .where("sequence", "<=", through)
        .where("pending", "=", 0)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async lastSequence(orgId) {
      const row = await db.selectFrom("scimkit_event_sequences").select("last").where("org_id", "=", orgId).executeTakeFirst();
      return row ? Number(row.last) : 0;
    },
  };
}
