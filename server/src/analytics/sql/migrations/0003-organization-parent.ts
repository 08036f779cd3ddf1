/**
 * Analytics version 3: the organization tree (issue 17). `parent_id` names the organization's
 * parent, null for a root, so every existing organization stays a root. The index serves the
 * recursive walks down the tree (children of an id) that subtree deletes and scopes run. An admin
 * user's grant of an organization may include its subtree: `subtree` 1, else 0 as every existing
 * grant.
 */
import type { Migration } from "scimkit/sql";

/** Adds `parent_id` to `scimkit_organizations`, referencing it, with an index; and `subtree` to the grants. */
export const organizationParent: Migration = {
  version: 3,
  name: "organization-parent",
  async up(trx, { columnTypes: type }) {
    // No `on delete`: the store deletes children in the same statement as their parent, or refuses.
    await trx.schema
      .alterTable("scimkit_organizations")
      .addColumn("parent_id", type.key, (column) => column.references("scimkit_organizations.id"))
      .execute();
    await trx.schema.createIndex("scimkit_organizations_parent").on("scimkit_organizations").columns(["parent_id", "id"]).execute();
    await trx.schema
      .alterTable("scimkit_admin_user_organizations")
      .addColumn("subtree", "integer", (column) => column.notNull().defaultTo(0))
      .execute();
  },
};
