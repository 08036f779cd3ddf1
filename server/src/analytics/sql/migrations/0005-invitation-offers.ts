/**
 * Analytics version 5: pending invitation offers (issue 27). An invitation whose e-mail is an
 * admin user's the inviter may not see is kept apart from the admin users — their e-mail stays
 * unique, and no key ever names an offer — with the grants offered and who offered them, until
 * the person accepts it (the grants join that admin user's) or it is withdrawn. Only the digest of
 * its code is stored, as for every invitation, and in a table of its own as `scimkit_invitations`
 * holds admin users' codes: storing an offer writes the same three rows (entry, grants, code) as
 * storing an invited admin user, so it takes no measurably different time.
 */
import type { Migration } from "scimkit/sql";

/** Creates `scimkit_invitation_offers`, `scimkit_invitation_offer_organizations` and `scimkit_invitation_offer_codes`. */
export const invitationOffers: Migration = {
  version: 5,
  name: "invitation-offers",
  async up(trx, { columnTypes: type }) {
    await trx.schema
      .createTable("scimkit_invitation_offers")
      .addColumn("id", type.key, (column) => column.notNull().primaryKey())
      .addColumn("email", type.key, (column) => column.notNull())
      .addColumn("role", type.key, (column) => column.notNull())
      // No foreign key: an offer whose offerer was deleted stays listed, and accepting it is refused.
      .addColumn("offered_by", type.key)
      .addColumn("invited_at", type.key, (column) => column.notNull())
      .addColumn("expires_at", type.key, (column) => column.notNull())
      .addColumn("updated_at", type.key, (column) => column.notNull())
      .execute();
    // An invitation looks for offers of its e-mail.
    await trx.schema.createIndex("scimkit_invitation_offers_email").on("scimkit_invitation_offers").columns(["email", "id"]).execute();

    await trx.schema
      .createTable("scimkit_invitation_offer_organizations")
      .addColumn("offer_id", type.key, (column) => column.notNull())
      .addColumn("org_id", type.key, (column) => column.notNull())
      .addColumn("subtree", "integer", (column) => column.notNull().defaultTo(0))
      .addPrimaryKeyConstraint("scimkit_invitation_offer_organizations_pk", ["offer_id", "org_id"])
      .addForeignKeyConstraint(
        "scimkit_invitation_offer_organizations_offer_fk",
        ["offer_id"],
        "scimkit_invitation_offers",
        ["id"],
        (constraint) => constraint.onDelete("cascade"),
      )
      .execute();
    // Scoping (offers sharing an organization with the caller) and stripping a deleted organization.
    await trx.schema
      .createIndex("scimkit_invitation_offer_organizations_org")
      .on("scimkit_invitation_offer_organizations")
      .columns(["org_id", "offer_id"])
      .execute();

    await trx.schema
      .createTable("scimkit_invitation_offer_codes")
      // Only the SHA-256 digest of the single-use code, looked up by it when the offer is accepted.
      .addColumn("code_hash", type.key, (column) => column.notNull().primaryKey())
      .addColumn("offer_id", type.key, (column) => column.notNull())
      .addColumn("created_at", type.key, (column) => column.notNull())
      .addForeignKeyConstraint("scimkit_invitation_offer_codes_offer_fk", ["offer_id"], "scimkit_invitation_offers", ["id"], (constraint) =>
        constraint.onDelete("cascade"),
      )
      .execute();
    await trx.schema.createIndex("scimkit_invitation_offer_codes_offer").on("scimkit_invitation_offer_codes").column("offer_id").execute();
  },
};
