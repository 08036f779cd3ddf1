/**
 * Analytics version 6: the replica of other regions' directories (issue 30: data residency). A
 * host must know which organizations are homed elsewhere, and where, even when restarted while
 * their region is unreachable, so the last feed read from each peer region is kept here. It holds
 * no personal data — an organization's id, name, parent, home region, status and time of change —
 * and no foreign key: these organizations are not rows of `scimkit_organizations`, which stays
 * the list of the organizations this region serves.
 */
import type { Migration } from "scimkit/sql";

/** Creates `scimkit_region_directory`, with the index a region's replacement deletes along. */
export const regionDirectory: Migration = {
  version: 6,
  name: "region-directory",
  async up(trx, { columnTypes: type }) {
    await trx.schema
      .createTable("scimkit_region_directory")
      // One row per organization whatever its region: an organization has one home.
      .addColumn("org_id", type.key, (column) => column.notNull().primaryKey())
      .addColumn("name", type.text, (column) => column.notNull())
      .addColumn("parent_id", type.key)
      .addColumn("home_region", type.key, (column) => column.notNull())
      .addColumn("status", type.key, (column) => column.notNull())
      .addColumn("updated_at", type.key, (column) => column.notNull())
      .execute();
    // A sync deletes (and locks) one region's rows; the host reads them all, by the primary key.
    await trx.schema
      .createIndex("scimkit_region_directory_region")
      .on("scimkit_region_directory")
      .columns(["home_region", "org_id"])
      .execute();
  },
};
