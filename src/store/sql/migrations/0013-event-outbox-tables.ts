/**
 * Version 13: the event outbox (issue 20). `scimkit_events` holds each committed write's lifecycle
 * events, inserted in the write's transaction, keyed by organization and a gap-free sequence;
 * `scimkit_event_sequences` holds each organization's last sequence. The writer takes the next
 * numbers by updating its organization's row, which it holds until commit: two writes of one
 * organization commit their events in sequence order, so a reader that has seen sequence n has seen
 * everything before it (a database sequence would hand out numbers that commit out of order).
 */
import { sql } from "kysely";
import type { Migration } from "./migration.js";

/** Creates `scimkit_events`, `scimkit_event_sequences` and their indexes. */
export const eventOutboxTables: Migration = {
  version: 13,
  name: "event-outbox-tables",
  async up(trx, { columnTypes: type }) {
    await trx.schema
      .createTable("scimkit_event_sequences")
      .addColumn("org_id", type.key, (column) => column.primaryKey())
      .addColumn("last", type.counter, (column) => column.notNull())
      .execute();
    await trx.schema
      .createTable("scimkit_events")
      .addColumn("org_id", type.key, (column) => column.notNull())
      .addColumn("sequence", type.counter, (column) => column.notNull())
      .addColumn("jti", type.key, (column) => column.notNull())
      .addColumn("type", type.text, (column) => column.notNull())
      .addColumn("resource_type", type.text, (column) => column.notNull())
      .addColumn("resource_id", type.key, (column) => column.notNull())
      .addColumn("data", type.json, (column) => column.notNull())
      .addColumn("recorded_at", type.text, (column) => column.notNull())
      // 1 until the in-process listeners have the event, then 0.
      .addColumn("pending", sql`integer`, (column) => column.notNull())
      .addColumn("lease_until_ms", type.counter, (column) => column.notNull())
      .addPrimaryKeyConstraint("scimkit_events_pk", ["org_id", "sequence"])
      .execute();
    // Unique within the organization, led by it as every key is (docs/scaling.md: partitionable by org_id).
    await trx.schema.createIndex("scimkit_events_jti").on("scimkit_events").columns(["org_id", "jti"]).unique().execute();
    // A claim reads the pending events whose lease has ended, among millions delivered long ago.
    await trx.schema.createIndex("scimkit_events_pending").on("scimkit_events").columns(["pending", "lease_until_ms"]).execute();
  },
};
