/**
 * Analytics version 7: moves of organizations between regions (issue 30, point 4). A move is a
 * sequence of steps across two hosts, each of which may be killed at any step, so each host keeps
 * its side of every move here and resumes it on start: the source (freezing, copying, verifying,
 * switching, cleaning up, done) and the target (arriving, then home). A finished move's row is
 * kept — it says where the organization went, and holds nothing personal: ids, regions, times.
 */
import type { Migration } from "scimkit/sql";

/** Creates `scimkit_region_moves`. */
export const regionMoves: Migration = {
  version: 7,
  name: "region-moves",
  async up(trx, { columnTypes: type }) {
    await trx.schema
      .createTable("scimkit_region_moves")
      // One move of an organization at a time, on each side; a later move replaces a finished one.
      .addColumn("org_id", type.key, (column) => column.notNull().primaryKey())
      .addColumn("move_id", type.key, (column) => column.notNull())
      .addColumn("side", type.key, (column) => column.notNull())
      .addColumn("peer_region", type.key, (column) => column.notNull())
      .addColumn("step", type.key, (column) => column.notNull())
      .addColumn("started_at", type.text, (column) => column.notNull())
      .addColumn("updated_at", type.text, (column) => column.notNull())
      .addColumn("requested_by", type.text)
      .addColumn("last_error", type.text)
      .execute();
  },
};
