/**
 * Version 6: `scimkit_audit`, the audit trail of SCIM writes that `sqlAuditTrail` keeps (one row
 * per write attempt and its outcome). Keyed by organization and a UUID v7, so appending is an
 * insert at the end of the organization's range and the newest-first list reads that range
 * backwards; no other index, since every index is paid for on each write. Rows are not deleted
 * with an organization's SCIM data: an audit trail is kept for after the fact.
 */
import { sql } from "kysely";
import type { Migration } from "./migration.js";

/** Creates `scimkit_audit`. */
export const auditTable: Migration = {
  version: 6,
  name: "audit-table",
  async up(trx, { columnTypes: type }) {
    await trx.schema
      .createTable("scimkit_audit")
      .addColumn("org_id", type.key, (column) => column.notNull())
      .addColumn("id", type.key, (column) => column.notNull())
      .addColumn("at", type.text, (column) => column.notNull())
      .addColumn("token_id", type.text)
      .addColumn("operation", type.text, (column) => column.notNull())
      .addColumn("resource_type", type.text)
      .addColumn("resource_id", type.text)
      .addColumn("outcome", type.text, (column) => column.notNull())
      // An HTTP status; `integer` reads back as a number from both drivers, unlike `bigint`.
      .addColumn("status", sql`integer`, (column) => column.notNull())
      .addColumn("scim_type", type.text)
      .addColumn("via", type.text, (column) => column.notNull())
      .addColumn("bulk_id", type.text)
      .addPrimaryKeyConstraint("scimkit_audit_pk", ["org_id", "id"])
      .execute();
  },
};
