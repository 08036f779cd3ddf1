/**
 * Version 1: the resources, their unique keys, group membership as rows and hashed tokens
 * (architecture §3). Every key starts with `org_id`: nothing crosses tenants, and each organization's
 * rows sit together in every index.
 */
import type { Migration } from "./migration.js";

/** Creates `scimkit_resources`, `scimkit_unique_keys`, `scimkit_members` and `scimkit_tokens`. */
export const initialTables: Migration = {
  version: 1,
  name: "initial-tables",
  async up(trx, { columnTypes: type }) {
    await trx.schema
      .createTable("scimkit_resources")
      .addColumn("org_id", type.key, (column) => column.notNull())
      .addColumn("id", type.key, (column) => column.notNull())
      .addColumn("resource_type", type.key, (column) => column.notNull())
      .addColumn("version", type.counter, (column) => column.notNull())
      .addColumn("created", type.key, (column) => column.notNull())
      .addColumn("last_modified", type.key, (column) => column.notNull())
      .addColumn("external_id", type.key)
      .addColumn("attributes", type.json, (column) => column.notNull())
      .addColumn("member_seq", type.counter)
      .addPrimaryKeyConstraint("scimkit_resources_pk", ["org_id", "id"])
      .execute();
    // List order and keyset paging without a sort: by id within one organization and type.
    await trx.schema.createIndex("scimkit_resources_type_id").on("scimkit_resources").columns(["org_id", "resource_type", "id"]).execute();
    // `externalId eq` (RFC 7643 §3.1: caseExact, not unique); ending in `id`, it also yields the
    // matches in list order, so the planner has no reason to scan the type in id order instead.
    await trx.schema
      .createIndex("scimkit_resources_external_id")
      .on("scimkit_resources")
      .columns(["org_id", "resource_type", "external_id", "id"])
      .execute();

    await trx.schema
      .createTable("scimkit_unique_keys")
      .addColumn("org_id", type.key, (column) => column.notNull())
      .addColumn("resource_type", type.key, (column) => column.notNull())
      .addColumn("attribute", type.key, (column) => column.notNull())
      .addColumn("value", type.key, (column) => column.notNull())
      .addColumn("id", type.key, (column) => column.notNull())
      // The uniqueness itself, and the index behind `userName eq` / `displayName eq`.
      .addPrimaryKeyConstraint("scimkit_unique_keys_pk", ["org_id", "resource_type", "attribute", "value"])
      .addForeignKeyConstraint("scimkit_unique_keys_resource_fk", ["org_id", "id"], "scimkit_resources", ["org_id", "id"], (constraint) =>
        constraint.onDelete("cascade"),
      )
      .execute();
    await trx.schema.createIndex("scimkit_unique_keys_resource").on("scimkit_unique_keys").columns(["org_id", "id"]).execute();

    await trx.schema
      .createTable("scimkit_members")
      .addColumn("org_id", type.key, (column) => column.notNull())
      .addColumn("group_id", type.key, (column) => column.notNull())
      .addColumn("member_id", type.key, (column) => column.notNull())
      .addColumn("member_type", type.key, (column) => column.notNull())
      .addColumn("position", type.counter, (column) => column.notNull())
      .addPrimaryKeyConstraint("scimkit_members_pk", ["org_id", "group_id", "member_id"])
      .addForeignKeyConstraint("scimkit_members_group_fk", ["org_id", "group_id"], "scimkit_resources", ["org_id", "id"], (constraint) =>
        constraint.onDelete("cascade"),
      )
      .addForeignKeyConstraint("scimkit_members_member_fk", ["org_id", "member_id"], "scimkit_resources", ["org_id", "id"], (constraint) =>
        constraint.onDelete("cascade"),
      )
      .execute();
    // Members in the order they were added; unique, so a lost race on positions fails loudly.
    await trx.schema
      .createIndex("scimkit_members_position")
      .unique()
      .on("scimkit_members")
      .columns(["org_id", "group_id", "position"])
      .execute();
    // The groups of a member: deletes, `members.value eq` filters, and the cascade itself.
    await trx.schema.createIndex("scimkit_members_member").on("scimkit_members").columns(["org_id", "member_id"]).execute();

    await trx.schema
      .createTable("scimkit_tokens")
      .addColumn("org_id", type.key, (column) => column.notNull())
      .addColumn("id", type.key, (column) => column.notNull())
      .addColumn("hash", type.key, (column) => column.notNull())
      .addColumn("prefix", type.text, (column) => column.notNull())
      .addColumn("label", type.text)
      .addColumn("created_at", type.key, (column) => column.notNull())
      .addColumn("rotated_at", type.text)
      .addColumn("last_used_at", type.text)
      .addPrimaryKeyConstraint("scimkit_tokens_pk", ["org_id", "id"])
      .execute();
    // Verification looks a token up by its digest; a digest is unique across organizations.
    await trx.schema.createIndex("scimkit_tokens_hash").unique().on("scimkit_tokens").column("hash").execute();
    await trx.schema.createIndex("scimkit_tokens_org_created").on("scimkit_tokens").columns(["org_id", "created_at", "id"]).execute();
  },
};
