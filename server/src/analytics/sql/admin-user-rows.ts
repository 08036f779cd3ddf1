/**
 * Admin user rows with their grants (`scimkit_admin_users` and `scimkit_admin_user_organizations`):
 * the rows a scope sees, a user read with its organizations, grants written, and the check that a
 * grant lies within the granting admin user's own (issue 27), each a query over the connection or
 * transaction it is given.
 */
import type { ExpressionBuilder, Kysely, Selectable } from "kysely";
import type { SqlDialect } from "scimkit/sql";
import type { AdminRole, AdminUser, AdminUserStatus, OrgScope } from "../analytics-store.js";
import { type Grants, grantsBeyond, refuseGrantsBeyond } from "../grants-beyond.js";
import type { AdminUsersTable, AnalyticsDatabase } from "./analytics-tables.js";
import { lockChains } from "./organization-tree.js";
import { scopeOrgIds } from "./scope-org-ids.js";
import { withRowLock } from "./with-row-lock.js";

type AdminUsersFrom = ExpressionBuilder<AnalyticsDatabase & { u: AdminUsersTable }, "u">;

const NO_GRANTS: Grants = { organizationIds: [], subtreeOrganizationIds: [] };

function adminUserOf(row: Selectable<AdminUsersTable>, grants: Grants): AdminUser {
  return {
    id: row.id,
    email: row.email,
    role: row.role as AdminRole,
    // Sorted as JavaScript sorts, which the contract promises, whatever the database's collation.
    organizationIds: [...grants.organizationIds].sort(),
    ...(grants.subtreeOrganizationIds.length === 0 ? {} : { subtreeOrganizationIds: [...grants.subtreeOrganizationIds].sort() }),
    status: row.status as AdminUserStatus,
    invitedAt: row.invited_at,
    ...(row.invitation_expires_at === null ? {} : { invitationExpiresAt: row.invitation_expires_at }),
    ...(row.activated_at === null ? {} : { activatedAt: row.activated_at }),
    updatedAt: row.updated_at,
  };
}

/** Whether the admin user `u` looks after one of `orgIds`. */
export function sharesOrganization(eb: AdminUsersFrom, orgIds: readonly string[]) {
  return eb.exists(
    eb
      .selectFrom("scimkit_admin_user_organizations as l")
      .select("l.org_id")
      .whereRef("l.admin_user_id", "=", "u.id")
      .where("l.org_id", "in", orgIds),
  );
}

/** The admin users `scope` may see, as a query over `u`, or undefined when it sees none. */
export function adminUsersInScope(on: Kysely<AnalyticsDatabase>, scope: OrgScope) {
  const ids = scopeOrgIds(scope);
  if (ids?.length === 0) return undefined;
  const query = on.selectFrom("scimkit_admin_users as u").selectAll("u");
  return ids === undefined ? query : query.where((eb) => sharesOrganization(eb, ids));
}

/** The users of `rows` with their organizations, read in one query. */
export async function withOrganizations(on: Kysely<AnalyticsDatabase>, rows: readonly Selectable<AdminUsersTable>[]): Promise<AdminUser[]> {
  if (rows.length === 0) return [];
  const links = await on
    .selectFrom("scimkit_admin_user_organizations")
    .select(["admin_user_id", "org_id", "subtree"])
    .where(
      "admin_user_id",
      "in",
      rows.map((row) => row.id),
    )
    .execute();
  const byUser = new Map<string, { organizationIds: string[]; subtreeOrganizationIds: string[] }>();
  for (const link of links) {
    const grants = byUser.get(link.admin_user_id) ?? { organizationIds: [], subtreeOrganizationIds: [] };
    grants.organizationIds.push(link.org_id);
    if (Number(link.subtree) === 1) grants.subtreeOrganizationIds.push(link.org_id);
    byUser.set(link.admin_user_id, grants);
  }
  return rows.map((row) => adminUserOf(row, byUser.get(row.id) ?? NO_GRANTS));
}

/** The user of `row` with its organizations; undefined without a row. */
export async function oneAdminUser(
  on: Kysely<AnalyticsDatabase>,
  row: Selectable<AdminUsersTable> | undefined,
): Promise<AdminUser | undefined> {
  return row ? (await withOrganizations(on, [row]))[0] : undefined;
}

/** Stores the grants of admin user `adminUserId` (its current ones already deleted). */
export async function linkOrganizations(trx: Kysely<AnalyticsDatabase>, adminUserId: string, grants: Grants): Promise<void> {
  const unique = [...new Set(grants.organizationIds)];
  if (unique.length === 0) return;
  const subtree = new Set(grants.subtreeOrganizationIds);
  await trx
    .insertInto("scimkit_admin_user_organizations")
    .values(unique.map((orgId) => ({ admin_user_id: adminUserId, org_id: orgId, subtree: subtree.has(orgId) ? 1 : 0 })))
    .execute();
}

/**
 * Throws when `granted` lies beyond the grants of admin user `grantorId`, read with the chains
 * of every organization involved inside `trx` — the chains locked first, as a move locks them,
 * so neither a move nor a change of the grantor's grants slips between the check and the write.
 */
export async function refuseBeyondGrantor(
  trx: Kysely<AnalyticsDatabase>,
  dialect: SqlDialect,
  grantorId: string | undefined,
  granted: Grants,
): Promise<void> {
  if (grantorId === undefined) return;
  const ids = [...new Set([...granted.organizationIds, ...granted.subtreeOrganizationIds])];
  const chains = await lockChains(trx, dialect, ids);
  const grantorRow = await withRowLock(
    trx.selectFrom("scimkit_admin_users as u").selectAll("u").where("u.id", "=", grantorId),
    dialect,
    "reference",
  ).executeTakeFirst();
  const grantor = grantorRow === undefined ? undefined : await oneAdminUser(trx, grantorRow);
  const own = { organizationIds: grantor?.organizationIds ?? [], subtreeOrganizationIds: grantor?.subtreeOrganizationIds ?? [] };
  refuseGrantsBeyond(grantsBeyond(own, (id) => chains.get(id) ?? [], granted));
}
