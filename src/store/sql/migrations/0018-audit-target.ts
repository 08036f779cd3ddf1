/**
 * Version 18: what an audited write pointed at (issue 27). `scimkit_audit` gains `target`, the
 * outside address a write registered — an RFC 9967 event receiver's URL — so the trail says where
 * an organization's events were sent, not only which receiver id.
 */
import type { Migration } from "./migration.js";

/** Adds `scimkit_audit.target`. */
export const auditTarget: Migration = {
  version: 18,
  name: "audit-target",
  async up(trx, { columnTypes: type }) {
    // Nullable: most writes point at nothing outside.
    await trx.schema.alterTable("scimkit_audit").addColumn("target", type.text).execute();
  },
};
