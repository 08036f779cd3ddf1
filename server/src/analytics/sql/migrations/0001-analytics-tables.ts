/**
 * Analytics version 1: the tables of the analytics interface (spec §4.6) — organizations, admin users with
 * their organizations, invitations and API keys, training campaigns and enrolments, attack
 * simulations and their recipients, feedback, and report operations with their rows. Learners
 * get no table: they are the SCIM users in `scimkit_resources`, read where they are.
 *
 * Every list is keyset-paged in the order of an index that ends in its key, and every lookup by
 * digest has a unique index, so no read of the interface sorts or scans a whole table. Foreign
 * keys cascade only from a parent to rows that mean nothing without it (an admin user's keys, a
 * campaign's enrolments, an operation's report rows). Organizations are referenced by id alone:
 * the store takes its callers' word for them, as the memory store does, and
 * `sqlAnalyticsStore.deleteOrganization` removes an organization's rows itself, table by table,
 * in one transaction.
 */
import { sql } from "kysely";
import type { Migration } from "scimkit/sql";

/**
 * A fractional number (percentages, scores). One spelling for every database: SQLite gives
 * `double precision` REAL affinity, and PostgreSQL returns it to pg as a JavaScript number.
 */
const DOUBLE = sql`double precision`;

/** A small integer (a rating of 1–5); pg returns `integer` as a number, unlike `bigint`. */
const INTEGER = sql`integer`;

/** Creates the `scimkit_` tables of the analytics store and their indexes. */
export const analyticsTables: Migration = {
  version: 1,
  name: "analytics-tables",
  // Released as the SQL store's version 3, before the analytics tables had a namespace of their own.
  movedFrom: { namespace: "scim", version: 3 },
  async up(trx, { columnTypes: type }) {
    await trx.schema
      .createTable("scimkit_organizations")
      .addColumn("id", type.key, (column) => column.notNull().primaryKey())
      .addColumn("name", type.text, (column) => column.notNull())
      .addColumn("status", type.key, (column) => column.notNull())
      .addColumn("created_at", type.key, (column) => column.notNull())
      .addColumn("updated_at", type.key, (column) => column.notNull())
      .execute();
    // The list filtered by status, in id order.
    await trx.schema.createIndex("scimkit_organizations_status").on("scimkit_organizations").columns(["status", "id"]).execute();

    await trx.schema
      .createTable("scimkit_admin_users")
      .addColumn("id", type.key, (column) => column.notNull().primaryKey())
      .addColumn("email", type.key, (column) => column.notNull())
      .addColumn("role", type.key, (column) => column.notNull())
      .addColumn("status", type.key, (column) => column.notNull())
      .addColumn("invited_at", type.key, (column) => column.notNull())
      .addColumn("invitation_expires_at", type.key)
      .addColumn("activated_at", type.key)
      .addColumn("updated_at", type.key, (column) => column.notNull())
      .execute();
    // E-mail addresses are unique across the service; the index decides a race between two invites.
    await trx.schema.createIndex("scimkit_admin_users_email").unique().on("scimkit_admin_users").column("email").execute();

    await trx.schema
      .createTable("scimkit_admin_user_organizations")
      .addColumn("admin_user_id", type.key, (column) => column.notNull())
      .addColumn("org_id", type.key, (column) => column.notNull())
      .addPrimaryKeyConstraint("scimkit_admin_user_organizations_pk", ["admin_user_id", "org_id"])
      .addForeignKeyConstraint("scimkit_admin_user_organizations_user_fk", ["admin_user_id"], "scimkit_admin_users", ["id"], (constraint) =>
        constraint.onDelete("cascade"),
      )
      .execute();
    // Scoping (admin users sharing an organization), the orgId filter, and stripping a deleted organization.
    await trx.schema
      .createIndex("scimkit_admin_user_organizations_org")
      .on("scimkit_admin_user_organizations")
      .columns(["org_id", "admin_user_id"])
      .execute();

    await trx.schema
      .createTable("scimkit_invitations")
      // Only the SHA-256 digest of the single-use code, as for SCIM tokens (spec §5): a leaked table invites no one.
      .addColumn("code_hash", type.key, (column) => column.notNull().primaryKey())
      .addColumn("admin_user_id", type.key, (column) => column.notNull())
      .addColumn("created_at", type.key, (column) => column.notNull())
      .addColumn("expires_at", type.key, (column) => column.notNull())
      .addColumn("consumed_at", type.key)
      .addForeignKeyConstraint("scimkit_invitations_user_fk", ["admin_user_id"], "scimkit_admin_users", ["id"], (constraint) =>
        constraint.onDelete("cascade"),
      )
      .execute();
    await trx.schema.createIndex("scimkit_invitations_user").on("scimkit_invitations").column("admin_user_id").execute();

    await trx.schema
      .createTable("scimkit_api_keys")
      .addColumn("id", type.key, (column) => column.notNull().primaryKey())
      .addColumn("hash", type.key, (column) => column.notNull())
      // "operator" or "admin"; an admin key names its user.
      .addColumn("subject_kind", type.key, (column) => column.notNull())
      .addColumn("admin_user_id", type.key)
      .addColumn("created_at", type.key, (column) => column.notNull())
      .addForeignKeyConstraint("scimkit_api_keys_user_fk", ["admin_user_id"], "scimkit_admin_users", ["id"], (constraint) =>
        constraint.onDelete("cascade"),
      )
      .execute();
    // Every authenticated request looks its key up by digest.
    await trx.schema.createIndex("scimkit_api_keys_hash").unique().on("scimkit_api_keys").column("hash").execute();
    // Whether an operator key exists, and an admin user's keys.
    await trx.schema.createIndex("scimkit_api_keys_subject").on("scimkit_api_keys").columns(["subject_kind", "admin_user_id"]).execute();
    await trx.schema.createIndex("scimkit_api_keys_user").on("scimkit_api_keys").column("admin_user_id").execute();

    await trx.schema
      .createTable("scimkit_campaigns")
      .addColumn("id", type.key, (column) => column.notNull().primaryKey())
      .addColumn("org_id", type.key, (column) => column.notNull())
      .addColumn("name", type.text, (column) => column.notNull())
      .addColumn("description", type.text)
      .addColumn("starts_at", type.key, (column) => column.notNull())
      .addColumn("due_at", type.key)
      .addColumn("created_at", type.key, (column) => column.notNull())
      .execute();
    await trx.schema.createIndex("scimkit_campaigns_org").on("scimkit_campaigns").columns(["org_id", "id"]).execute();

    await trx.schema
      .createTable("scimkit_enrolments")
      .addColumn("campaign_id", type.key, (column) => column.notNull())
      .addColumn("user_id", type.key, (column) => column.notNull())
      // The campaign's organization, so the learner is one primary-key probe into scimkit_resources.
      .addColumn("org_id", type.key, (column) => column.notNull())
      .addColumn("status", type.key, (column) => column.notNull())
      .addColumn("progress_percent", DOUBLE, (column) => column.notNull())
      .addColumn("score", DOUBLE)
      .addColumn("enrolled_at", type.key, (column) => column.notNull())
      .addColumn("started_at", type.key)
      .addColumn("completed_at", type.key)
      .addColumn("updated_at", type.key, (column) => column.notNull())
      // A campaign's users in user-id order: the list, one user, and the summary's range.
      .addPrimaryKeyConstraint("scimkit_enrolments_pk", ["campaign_id", "user_id"])
      .addForeignKeyConstraint("scimkit_enrolments_campaign_fk", ["campaign_id"], "scimkit_campaigns", ["id"], (constraint) =>
        constraint.onDelete("cascade"),
      )
      .execute();
    // A learner's enrolments, and an organization's delete.
    await trx.schema.createIndex("scimkit_enrolments_org_user").on("scimkit_enrolments").columns(["org_id", "user_id"]).execute();

    await trx.schema
      .createTable("scimkit_simulations")
      .addColumn("id", type.key, (column) => column.notNull().primaryKey())
      .addColumn("org_id", type.key, (column) => column.notNull())
      .addColumn("name", type.text, (column) => column.notNull())
      .addColumn("template", type.text)
      .addColumn("launched_at", type.key, (column) => column.notNull())
      .addColumn("created_at", type.key, (column) => column.notNull())
      .execute();
    await trx.schema.createIndex("scimkit_simulations_org").on("scimkit_simulations").columns(["org_id", "id"]).execute();

    await trx.schema
      .createTable("scimkit_simulation_recipients")
      .addColumn("simulation_id", type.key, (column) => column.notNull())
      .addColumn("user_id", type.key, (column) => column.notNull())
      .addColumn("org_id", type.key, (column) => column.notNull())
      // The first time of each event type: one row per recipient, so the funnel is one aggregate.
      .addColumn("sent_at", type.key)
      .addColumn("delivered_at", type.key)
      .addColumn("opened_at", type.key)
      .addColumn("clicked_at", type.key)
      .addColumn("submitted_data_at", type.key)
      .addColumn("reported_at", type.key)
      .addPrimaryKeyConstraint("scimkit_simulation_recipients_pk", ["simulation_id", "user_id"])
      .addForeignKeyConstraint(
        "scimkit_simulation_recipients_simulation_fk",
        ["simulation_id"],
        "scimkit_simulations",
        ["id"],
        (constraint) => constraint.onDelete("cascade"),
      )
      .execute();
    await trx.schema
      .createIndex("scimkit_simulation_recipients_org_user")
      .on("scimkit_simulation_recipients")
      .columns(["org_id", "user_id"])
      .execute();

    await trx.schema
      .createTable("scimkit_feedback")
      .addColumn("id", type.key, (column) => column.notNull().primaryKey())
      .addColumn("org_id", type.key, (column) => column.notNull())
      // "campaign" or "simulation", and its id.
      .addColumn("subject_kind", type.key, (column) => column.notNull())
      .addColumn("subject_id", type.key, (column) => column.notNull())
      .addColumn("user_id", type.key, (column) => column.notNull())
      .addColumn("rating", INTEGER)
      .addColumn("comment", type.text, (column) => column.notNull())
      .addColumn("created_at", type.key, (column) => column.notNull())
      .execute();
    // A subject's comments, oldest first (UUID v7 ids sort by time).
    await trx.schema.createIndex("scimkit_feedback_subject").on("scimkit_feedback").columns(["subject_kind", "subject_id", "id"]).execute();
    await trx.schema.createIndex("scimkit_feedback_org").on("scimkit_feedback").columns(["org_id", "id"]).execute();

    await trx.schema
      .createTable("scimkit_operations")
      .addColumn("id", type.key, (column) => column.notNull().primaryKey())
      .addColumn("org_id", type.key, (column) => column.notNull())
      .addColumn("kind", type.key, (column) => column.notNull())
      .addColumn("subject_id", type.key, (column) => column.notNull())
      .addColumn("status", type.key, (column) => column.notNull())
      .addColumn("progress_done", type.counter, (column) => column.notNull())
      .addColumn("progress_total", type.counter)
      .addColumn("created_at", type.key, (column) => column.notNull())
      .addColumn("started_at", type.key)
      .addColumn("finished_at", type.key)
      .addColumn("error", type.text)
      .execute();
    await trx.schema.createIndex("scimkit_operations_org").on("scimkit_operations").columns(["org_id", "id"]).execute();

    await trx.schema
      .createTable("scimkit_report_rows")
      .addColumn("operation_id", type.key, (column) => column.notNull())
      .addColumn("seq", type.counter, (column) => column.notNull())
      // JSON as text, not `jsonb`: a report row's keys are its CSV columns, and jsonb reorders keys.
      .addColumn("row", type.text, (column) => column.notNull())
      // The download reads a report in seq order, a page at a time.
      .addPrimaryKeyConstraint("scimkit_report_rows_pk", ["operation_id", "seq"])
      .addForeignKeyConstraint("scimkit_report_rows_operation_fk", ["operation_id"], "scimkit_operations", ["id"], (constraint) =>
        constraint.onDelete("cascade"),
      )
      .execute();
  },
};
