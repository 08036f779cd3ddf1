/**
 * Version 14: RFC 9967 delivery (issue 20). `scimkit_event_receivers` holds each organization's
 * receivers with their delivery state — the position in the organization's events, the backoff,
 * the last failure, and the lease a deliverer holds while it pushes; `scimkit_event_keys` holds each
 * organization's SET signing key.
 */
import { sql } from "kysely";
import type { Migration } from "./migration.js";

/** Creates `scimkit_event_receivers` and `scimkit_event_keys`. */
export const eventReceiverTables: Migration = {
  version: 14,
  name: "event-receiver-tables",
  async up(trx, { columnTypes: type }) {
    await trx.schema
      .createTable("scimkit_event_receivers")
      .addColumn("org_id", type.key, (column) => column.notNull())
      .addColumn("id", type.key, (column) => column.notNull())
      .addColumn("url", type.text, (column) => column.notNull())
      // `push` (RFC 8935: we POST to `url`) or `poll` (RFC 8936: the receiver asks us).
      .addColumn("delivery", type.text, (column) => column.notNull())
      // JSON array of event URIs; `[]` for all.
      .addColumn("events", type.text, (column) => column.notNull())
      .addColumn("form", type.text, (column) => column.notNull())
      .addColumn("audience", type.text, (column) => column.notNull())
      .addColumn("authorization", type.text)
      .addColumn("label", type.text)
      .addColumn("created_at", type.text, (column) => column.notNull())
      .addColumn("position", type.counter, (column) => column.notNull())
      .addColumn("attempts", sql`integer`, (column) => column.notNull())
      .addColumn("next_attempt_ms", type.counter, (column) => column.notNull())
      // JSON `DeliveryFailure`.
      .addColumn("last_error", type.text)
      .addColumn("last_delivered_at", type.text)
      .addColumn("delivered", type.counter, (column) => column.notNull())
      .addColumn("rejected", type.counter, (column) => column.notNull())
      .addColumn("lease_until_ms", type.counter, (column) => column.notNull())
      .addPrimaryKeyConstraint("scimkit_event_receivers_pk", ["org_id", "id"])
      .execute();
    await trx.schema
      .createTable("scimkit_event_keys")
      .addColumn("org_id", type.key, (column) => column.primaryKey())
      .addColumn("kid", type.key, (column) => column.notNull())
      .addColumn("private_jwk", type.text, (column) => column.notNull())
      .addColumn("public_jwk", type.text, (column) => column.notNull())
      .addColumn("created_at", type.text, (column) => column.notNull())
      .execute();
  },
};
