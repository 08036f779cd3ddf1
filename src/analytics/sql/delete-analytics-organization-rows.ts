/**
 * Removing one organization's analytics data inside a transaction the caller owns (spec §4.6:
 * an organization delete removes everything of it, in one transaction).
 */
import type { Kysely } from "kysely";
import type { AnalyticsDatabase } from "./analytics-tables.js";

/**
 * Deletes every analytics row of `orgId` — report rows, operations, feedback, simulation
 * recipients, simulations, enrolments, campaigns — and strips it from every admin user's
 * organizations, children before parents so no foreign key has to cascade. The organization's
 * own row is the caller's. Call it inside `SqlDialect.writeTransaction`.
 *
 * @example await analyticsWriteTransaction(db, dialect, (trx) => deleteAnalyticsOrganizationRows(trx, "acme"))
 */
export async function deleteAnalyticsOrganizationRows(trx: Kysely<AnalyticsDatabase>, orgId: string): Promise<void> {
  await trx
    .deleteFrom("scimkit_report_rows")
    .where("operation_id", "in", (eb) => eb.selectFrom("scimkit_operations").select("id").where("org_id", "=", orgId))
    .execute();
  await trx.deleteFrom("scimkit_operations").where("org_id", "=", orgId).execute();
  await trx.deleteFrom("scimkit_feedback").where("org_id", "=", orgId).execute();
  await trx.deleteFrom("scimkit_simulation_recipients").where("org_id", "=", orgId).execute();
  await trx.deleteFrom("scimkit_simulations").where("org_id", "=", orgId).execute();
  await trx.deleteFrom("scimkit_enrolments").where("org_id", "=", orgId).execute();
  await trx.deleteFrom("scimkit_campaigns").where("org_id", "=", orgId).execute();
  await trx.deleteFrom("scimkit_admin_user_organizations").where("org_id", "=", orgId).execute();
}
