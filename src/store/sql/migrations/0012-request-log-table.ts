/**
 * Version 12: `scimkit_request_log`, the provisioning log that `sqlRequestLog` keeps (issue 18):
 * one row per SCIM request with every `RequestLogEntry` member. Keyed by organization and a
 * UUID v7 `seq` given when the entry was recorded, so appending lands at the end of the
 * organization's range and the newest-first list reads it backwards. Two more indexes lead with
 * the organization, for the lookups an integrator makes (a request id from a response header, a
 * resource id), and end with `seq` so their matches come out newest first without a sort (and
 * SQLite's planner prefers them over the primary key's ordered range); one on `at_ms` alone lets
 * retention find the oldest rows of every organization without a scan. Each index is paid for on every write, so there are no others: the time, status
 * and identity-provider filters narrow the organization's range as it is read.
 */
import { sql } from "kysely";
import type { Migration } from "./migration.js";

/** Creates `scimkit_request_log` and its indexes. */
export const requestLogTable: Migration = {
  version: 12,
  name: "request-log-table",
  async up(trx, { columnTypes: type }) {
    // `integer` and `double precision` read back as numbers from both drivers; the time in
    // milliseconds needs 64 bits (a counter), which pg returns as text.
    await trx.schema
      .createTable("scimkit_request_log")
      .addColumn("org_id", type.key, (column) => column.notNull())
      .addColumn("seq", type.key, (column) => column.notNull())
      .addColumn("request_id", type.key, (column) => column.notNull())
      .addColumn("at", type.text, (column) => column.notNull())
      .addColumn("at_ms", type.counter, (column) => column.notNull())
      .addColumn("method", type.text, (column) => column.notNull())
      .addColumn("path", type.text, (column) => column.notNull())
      .addColumn("status", sql`integer`, (column) => column.notNull())
      .addColumn("scim_type", type.text)
      .addColumn("detail", type.text)
      .addColumn("duration_ms", sql`double precision`, (column) => column.notNull())
      .addColumn("authenticated", sql`integer`, (column) => column.notNull())
      .addColumn("token_id", type.text)
      .addColumn("client_address", type.text)
      .addColumn("user_agent", type.text)
      .addColumn("identity_provider", type.text, (column) => column.notNull())
      .addColumn("resource_type", type.text)
      .addColumn("resource_id", type.key)
      .addColumn("bulk_operations", sql`integer`)
      .addColumn("request_body", type.text)
      .addColumn("request_body_truncated", sql`integer`)
      .addColumn("request_body_refused", type.text)
      .addColumn("response_body", type.text)
      .addColumn("response_body_truncated", sql`integer`)
      .addPrimaryKeyConstraint("scimkit_request_log_pk", ["org_id", "seq"])
      .execute();
    await trx.schema
      .createIndex("scimkit_request_log_request_id")
      .on("scimkit_request_log")
      .columns(["org_id", "request_id", "seq"])
      .execute();
    await trx.schema
      .createIndex("scimkit_request_log_resource_id")
      .on("scimkit_request_log")
      .columns(["org_id", "resource_id", "seq"])
      .execute();
    await trx.schema.createIndex("scimkit_request_log_at_ms").on("scimkit_request_log").column("at_ms").execute();
  },
};
