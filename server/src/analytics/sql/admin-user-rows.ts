/**
 * Admin user rows in SQL (`scimkit_admin_users`, their grants in `scimkit_admin_user_organizations`):
 * the rows a scope sees, a user read with its grants, the user an e-mail belongs to, a new invited
 * user written, and the check that a grant lies within the granting admin user's own (issue 27),
 * each a query over the connection or transaction it is given.
 */
import { type ExpressionBuilder, type Kysely, type Selectable, sql } from "kysely";
import { lockRows, type SqlDialect } from "scimkit/sql";
import type { AdminRole, AdminUser, AdminUserStatus, OrgScope } from "../analytics-store.js";
import { type Grants, grantsBeyond, refuseGrantsBeyond } from "../grants-beyond.js";
import type { AdminUsersTable, AnalyticsDatabase } from "./analytics-tables.js";
import { type GrantHolder, insertGrants, NO_GRANTS, readGrants } from "./grant-links.js";
import { lockChains } from "./organization-tree.js";
import { scopeOrgIds } from "./scope-org-ids.js";

type AdminUsersFrom = ExpressionBuilder<AnalyticsDatabase & { u: AdminUsersTable }, "u">;

/** An invitation's code digest and expiry. */
export type Invitation = { readonly codeHash: string; readonly expiresAt: string };

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

/** The grants of `user`. */
export function grantsOf(user: AdminUser): Grants {
  return { organizationIds: user.organizationIds, subtreeOrganizationIds: user.subtreeOrganizationIds ?? [] };
}

/**
 * The grants `user` ends with after `change`, or undefined when it changes none: a grant that
 * stays keeps its subtree unless the change says otherwise.
 */
export function changedGrants(
  user: AdminUser,
  change: { readonly organizationIds?: readonly string[]; readonly subtreeOrganizationIds?: readonly string[] },
): Grants | undefined {
  if (change.organizationIds === undefined && change.subtreeOrganizationIds === undefined) return undefined;
  const organizationIds = change.organizationIds ?? user.organizationIds;
  const subtreeOrganizationIds = (change.subtreeOrganizationIds ?? user.subtreeOrganizationIds ?? []).filter((orgId) =>
    organizationIds.includes(orgId),
  );
  return { organizationIds, subtreeOrganizationIds };
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

/** `rows` as admin users (`entryOf`), with the grants of `holder` each has, read in one query. */
export async function entriesWithGrants<R extends { readonly id: string }>(
  on: Kysely<AnalyticsDatabase>,
  holder: GrantHolder,
  rows: readonly R[],
  entryOf: (row: R, grants: Grants) => AdminUser,
): Promise<AdminUser[]> {
  const grants = await readGrants(
    on,
    holder,
    rows.map((row) => row.id),
  );
  return rows.map((row) => entryOf(row, grants.get(row.id) ?? NO_GRANTS));
}

/** The admin users of `rows` with their grants. */
export function adminUsersOf(on: Kysely<AnalyticsDatabase>, rows: readonly Selectable<AdminUsersTable>[]): Promise<AdminUser[]> {
  return entriesWithGrants(on, "admin-user", rows, adminUserOf);
}

/** The admin user of `row` with its grants; undefined without a row. */
export async function oneAdminUser(
  on: Kysely<AnalyticsDatabase>,
  row: Selectable<AdminUsersTable> | undefined,
): Promise<AdminUser | undefined> {
  return row ? (await adminUsersOf(on, [row]))[0] : undefined;
}

/**
 * The admin user with `email` (an admin user's row, with `visible` 1 when it shares an
 * organization with `scope`), in one query whatever it finds: an invitation must not take
 * longer for an e-mail that is someone's (issue 27).
 */
export function holderOf(trx: Kysely<AnalyticsDatabase>, scope: OrgScope, email: string) {
  const ids = scopeOrgIds(scope);
  return trx
    .selectFrom("scimkit_admin_users as u")
    .selectAll("u")
    .select((eb) => {
      if (ids === undefined) return sql<number>`1`.as("visible");
      if (ids.length === 0) return sql<number>`0`.as("visible");
      return sql<number>`case when ${sharesOrganization(eb, ids)} then 1 else 0 end`.as("visible");
    })
    .where("u.email", "=", email)
    .executeTakeFirst();
}

/**
 * Inserts the invited admin user `user` with its grants and pending invitation; false, nothing
 * written, when its e-mail is taken.
 */
export async function insertAdminUser(
  trx: Kysely<AnalyticsDatabase>,
  dialect: SqlDialect,
  user: AdminUser,
  invitation: Invitation,
): Promise<boolean> {
  const email = user.email.toLowerCase();
  const insert = trx.insertInto("scimkit_admin_users").values({
    id: user.id,
    email,
    role: user.role,
    status: user.status,
    invited_at: user.invitedAt,
    invitation_expires_at: user.invitationExpiresAt ?? null,
    activated_at: user.activatedAt ?? null,
    updated_at: user.updatedAt,
  });
  // Skipped, not raised, on a clash: PostgreSQL would abort the transaction on the error.
  const result = await dialect.ignoreConflicts(insert).executeTakeFirst();
  if ((result.numInsertedOrUpdatedRows ?? 0n) === 0n) {
    const taken = await trx.selectFrom("scimkit_admin_users").select("id").where("email", "=", email).executeTakeFirst();
    if (taken) return false;
    throw new Error(`createAdminUser: the id ${user.id} exists`);
  }
  await insertGrants(trx, "admin-user", user.id, grantsOf(user));
  await trx
    .insertInto("scimkit_invitations")
    .values({
      code_hash: invitation.codeHash,
      admin_user_id: user.id,
      created_at: user.invitedAt,
      expires_at: invitation.expiresAt,
      consumed_at: null,
    })
    .execute();
  return true;
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
  const grantorRow = await lockRows(
    trx.selectFrom("scimkit_admin_users as u").selectAll("u").where("u.id", "=", grantorId),
    dialect,
    "reference",
  ).executeTakeFirst();
  const grantor = grantorRow === undefined ? undefined : await oneAdminUser(trx, grantorRow);
  const own = { organizationIds: grantor?.organizationIds ?? [], subtreeOrganizationIds: grantor?.subtreeOrganizationIds ?? [] };
  refuseGrantsBeyond(grantsBeyond(own, (id) => chains.get(id) ?? [], granted));
}
