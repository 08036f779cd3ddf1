/**
 * The grants of admin users and of pending invitation offers in SQL: one row per organization
 * granted, `subtree` 1 where its subtree comes with it — in `scimkit_admin_user_organizations`
 * for admin users, `scimkit_invitation_offer_organizations` for offers (analytics version 5).
 */
import type { Kysely } from "kysely";
import type { AnalyticsDatabase } from "./analytics-tables.js";
import type { Grants } from "../grants-beyond.js";

/** Whose grants: an admin user's or a pending offer's. */
export type GrantHolder = "admin-user" | "offer";

/** No organization at all. */
export const NO_GRANTS: Grants = { organizationIds: [], subtreeOrganizationIds: [] };

/**
 * The grants of each of `ids` (absent: none), read in one query.
 *
 * @example (await readGrants(trx, "offer", [offerId])).get(offerId)
 */
export async function readGrants(on: Kysely<AnalyticsDatabase>, holder: GrantHolder, ids: readonly string[]): Promise<Map<string, Grants>> {
  const byId = new Map<string, { organizationIds: string[]; subtreeOrganizationIds: string[] }>();
  if (ids.length === 0) return byId;
  const links =
    holder === "admin-user"
      ? await on
          .selectFrom("scimkit_admin_user_organizations")
          .select(["admin_user_id as owner", "org_id", "subtree"])
          .where("admin_user_id", "in", ids)
          .execute()
      : await on
          .selectFrom("scimkit_invitation_offer_organizations")
          .select(["offer_id as owner", "org_id", "subtree"])
          .where("offer_id", "in", ids)
          .execute();
  for (const link of links) {
    const grants = byId.get(link.owner) ?? { organizationIds: [], subtreeOrganizationIds: [] };
    grants.organizationIds.push(link.org_id);
    if (Number(link.subtree) === 1) grants.subtreeOrganizationIds.push(link.org_id);
    byId.set(link.owner, grants);
  }
  return byId;
}

/** Removes every grant of `id`. */
export async function deleteGrants(trx: Kysely<AnalyticsDatabase>, holder: GrantHolder, id: string): Promise<void> {
  if (holder === "admin-user") await trx.deleteFrom("scimkit_admin_user_organizations").where("admin_user_id", "=", id).execute();
  else await trx.deleteFrom("scimkit_invitation_offer_organizations").where("offer_id", "=", id).execute();
}

/**
 * Gives `id` (holding none) the grants `grants`, a subtree only of a granted organization, in one statement.
 *
 * @example await insertGrants(trx, "admin-user", user.id, { organizationIds: ["acme"], subtreeOrganizationIds: [] })
 */
export async function insertGrants(trx: Kysely<AnalyticsDatabase>, holder: GrantHolder, id: string, grants: Grants): Promise<void> {
  const unique = [...new Set(grants.organizationIds)];
  if (unique.length === 0) return;
  const subtree = new Set(grants.subtreeOrganizationIds);
  const rows = unique.map((orgId) => ({ org_id: orgId, subtree: subtree.has(orgId) ? 1 : 0 }));
  if (holder === "admin-user") {
    await trx
      .insertInto("scimkit_admin_user_organizations")
      .values(rows.map((row) => ({ admin_user_id: id, ...row })))
      .execute();
  } else {
    await trx
      .insertInto("scimkit_invitation_offer_organizations")
      .values(rows.map((row) => ({ offer_id: id, ...row })))
      .execute();
  }
}
