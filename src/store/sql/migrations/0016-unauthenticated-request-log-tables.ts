/**
 * Version 16: the provisioning log's space for requests without a verified token (issue 27), apart
 * from `scimkit_request_log` so that an outsider's requests, for any organization id real or made
 * up, never sit among an organization's entries nor push them out. `scimkit_unauthenticated_log`
 * holds the sampled entries (no bodies), keyed by a UUID v7 `seq` alone: `sqlRequestLog` keeps it
 * to a small count after every write, so nothing else needs an index. The organization id the path
 * claimed is `claimed_org_id`, not `org_id`: no organization owns these rows (a deployment that
 * partitions or distributes the tables keyed by `org_id` keeps this one whole, as the settings). `scimkit_unauthenticated_drops`
 * counts the requests the sample left out, one row per minute.
 */
import { sql } from "kysely";
import type { Migration } from "./migration.js";

/** Creates `scimkit_unauthenticated_log` and `scimkit_unauthenticated_drops`. */
export const unauthenticatedRequestLogTables: Migration = {
  version: 16,
  name: "unauthenticated-request-log-tables",
  async up(trx, { columnTypes: type }) {
    await trx.schema
      .createTable("scimkit_unauthenticated_log")
      .addColumn("seq", type.key, (column) => column.primaryKey())
      .addColumn("claimed_org_id", type.key, (column) => column.notNull())
      .addColumn("request_id", type.key, (column) => column.notNull())
      .addColumn("at", type.text, (column) => column.notNull())
      .addColumn("at_ms", type.counter, (column) => column.notNull())
      .addColumn("method", type.text, (column) => column.notNull())
      .addColumn("path", type.text, (column) => column.notNull())
      .addColumn("status", sql`integer`, (column) => column.notNull())
      .addColumn("scim_type", type.text)
      .addColumn("detail", type.text)
      .addColumn("duration_ms", sql`double precision`, (column) => column.notNull())
      .addColumn("client_address", type.text)
      .addColumn("user_agent", type.text)
      .addColumn("identity_provider", type.text, (column) => column.notNull())
      .execute();
    await trx.schema
      .createTable("scimkit_unauthenticated_drops")
      .addColumn("window_ms", type.counter, (column) => column.primaryKey())
      .addColumn("dropped", type.counter, (column) => column.notNull())
      .execute();
  },
};
