/**
 * Version 10: `scimkit_settings`, values the store keeps for every process on the database — today
 * the secret sealing list cursors (issue 14), generated once by whichever process asks first, so
 * every host sharing the database seals and opens the same cursors and a restart keeps them valid.
 */
import type { Migration } from "./migration.js";

/** Creates `scimkit_settings`. */
export const settingsTable: Migration = {
  version: 10,
  name: "settings-table",
  async up(trx, { columnTypes: type }) {
    await trx.schema
      .createTable("scimkit_settings")
      .addColumn("name", type.key, (column) => column.primaryKey())
      .addColumn("value", type.text, (column) => column.notNull())
      .execute();
  },
};
