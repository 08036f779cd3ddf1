/**
 * Version 15: rotation of the SET signing keys (issue 20). `scimkit_event_keys` keeps one row per
 * organization — its signing key — and gains `retired_keys`, the public halves of the keys that
 * signed before it (JSON, newest first), which the JWKS serves for a retention period so a receiver
 * can still verify a SET signed before a rotation. Keeping them in the row, not in a table of their
 * own, makes a rotation one conditional `UPDATE` of one row, atomic on both databases, and leaves
 * the primary key, the partitioning by `org_id` and the deletion of an organization as they were.
 */
import type { Migration } from "./migration.js";

/** Adds `scimkit_event_keys.retired_keys`. */
export const eventKeyRotation: Migration = {
  version: 15,
  name: "event-key-rotation",
  async up(trx, { columnTypes: type }) {
    // Nullable, no default: the rows of version 14 have replaced no key yet.
    await trx.schema.alterTable("scimkit_event_keys").addColumn("retired_keys", type.text).execute();
  },
};
