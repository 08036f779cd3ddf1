/**
 * Analytics version 2: an organization's SCIM settings (issue 15) — the compatibility profile its
 * requests are served under and what `POST /Users` does with a user that exists. Null in both
 * means the host's default, so every existing organization keeps today's behaviour.
 */
import type { Migration } from "scimkit/sql";

/** Adds `compatibility` and `existing_users` to `scimkit_organizations`. */
export const organizationSettings: Migration = {
  version: 2,
  name: "organization-settings",
  async up(trx, { columnTypes: type }) {
    // One column per statement: SQLite's ALTER TABLE adds one at a time.
    await trx.schema.alterTable("scimkit_organizations").addColumn("compatibility", type.text).execute();
    await trx.schema.alterTable("scimkit_organizations").addColumn("existing_users", type.text).execute();
  },
};
