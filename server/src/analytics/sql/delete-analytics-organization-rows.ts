/**
 * Removing one organization's analytics data inside a transaction the caller owns (spec §4.6:
 * an organization delete removes everything of it, in one transaction).
 */
import type { Kysely } from "kysely";
import type { AnalyticsDatabase } from "./analytics-tables.js";

/**
 * Deletes every analytics row of the organizations `orgIds` (one, or a whole subtree) — report rows, operations, feedback, simulation
 * recipients, simulations, enrolments, campaigns — and strips it from every admin user's and
 * pending invitation offer's organizations, children before parents so no foreign key has to cascade; a statement per table
 * whatever the number of organizations. The organizations' own rows are the caller's. Call it
 * inside `SqlDialect.writeTransaction`, with fewer ids than the dialect's `maxParameters`.
 *
 * @example await analyticsWriteTransaction(db, dialect, (trx) => deleteAnalyticsOrganizationRows(trx, ["acme"]))
 */
export async function deleteAnalyticsOrganizationRows(trx: Kysely<AnalyticsDatabase>, orgIds: readonly string[]): Promise<void> {
  if (orgIds.length === 0) return;
  await trx
    .deleteFrom("scimkit_report_rows")
    .where("operation_id", "in", (eb) => eb.selectFrom("scimkit_operations").select("id").where("org_id", "in", orgIds))
    .execute();
  await trx.deleteFrom("scimkit_operations").where("org_id", "in", orgIds).execute();
  await trx.deleteFrom("scimkit_feedback").where("org_id", "in", orgIds).execute();
  await trx.deleteFrom("scimkit_simulation_recipients").where("org_id", "in", orgIds).execute();
  await trx.deleteFrom("scimkit_simulations").where("org_id", "in", orgIds).execute();
  await trx.deleteFrom("scimkit_enrolments").where("org_id", "in", orgIds).execute();
  await trx.deleteFrom("scimkit_campaigns").where("org_id", "in", orgIds).execute();
  await trx.deleteFrom("scimkit_setup_links").where("org_id", "in", orgIds).execute();
  await trx.deleteFrom("scimkit_admin_user_organizations").where("org_id", "in", orgIds).execute();
  await trx.deleteFrom("scimkit_invitation_offer_organizations").where("org_id", "in", orgIds).execute();
  // What their requests left: a deleted organization is not kept in the provisioning log, and a
  // new one of the same id starts with a full bucket. Entries a host still holds in its buffer
  // are written after; retention removes them.
  await trx.deleteFrom("scimkit_request_log").where("org_id", "in", orgIds).execute();
  // Its lifecycle events, their receivers and its signing key: nothing is delivered for it again.
  for (const table of ["scimkit_events", "scimkit_event_sequences", "scimkit_event_receivers", "scimkit_event_keys"] as const) {
    await trx.deleteFrom(table).where("org_id", "in", orgIds).execute();
  }
  await trx
    .deleteFrom("scimkit_rate_buckets")
    .where(
      "key",
      "in",
      orgIds.map((orgId) => `scim:${orgId}`),
    )
    .execute();
}
