/**
 * Analytics version 8: setup links (issue 31), one-time links the customer's IT admin connects
 * their identity provider with. Only digests are kept — of the link's code and of the setup
 * session it was exchanged for — each unique, so a link is found by either in one index lookup.
 */
import type { Migration } from "scimkit/sql";

/** Creates `scimkit_setup_links`. */
export const setupLinks: Migration = {
  version: 8,
  name: "setup-links",
  async up(trx, { columnTypes: type }) {
    await trx.schema
      .createTable("scimkit_setup_links")
      .addColumn("org_id", type.key, (column) => column.notNull())
      .addColumn("id", type.key, (column) => column.notNull())
      .addColumn("code_hash", type.key, (column) => column.notNull().unique())
      .addColumn("session_hash", type.key, (column) => column.unique())
      .addColumn("identity_provider", type.key)
      .addColumn("created_by", type.key)
      .addColumn("created_at", type.key, (column) => column.notNull())
      .addColumn("expires_at", type.key, (column) => column.notNull())
      .addColumn("used_at", type.key)
      .addColumn("revoked_at", type.key)
      .addColumn("token_id", type.key)
      // Led by the organization, as every table of an organization's data (docs/scaling.md).
      .addPrimaryKeyConstraint("scimkit_setup_links_pk", ["org_id", "id"])
      .execute();
    // An organization's links, the most recent first.
    await trx.schema.createIndex("scimkit_setup_links_org").on("scimkit_setup_links").columns(["org_id", "created_at"]).execute();
  },
};
