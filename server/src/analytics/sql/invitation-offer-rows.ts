/**
 * Pending invitation offers in SQL (`scimkit_invitation_offers`, their grants and codes; issue 27):
 * an offer is listed, read, changed and deleted as the `invited` admin user it stands for, so these
 * are the offer's side of each admin-user query.
 */
import type { ExpressionBuilder, Kysely, Selectable } from "kysely";
import { lockRows, type SqlDialect } from "scimkit/sql";
import type { AdminRole, AdminUser, AdminUserStore, OrgScope, PageRequest } from "../analytics-store.js";
import type { Grants } from "../grants-beyond.js";
import { changedGrants, entriesWithGrants, grantsOf, type Invitation, refuseBeyondGrantor } from "./admin-user-rows.js";
import type { AnalyticsDatabase, InvitationOffersTable } from "./analytics-tables.js";
import { deleteGrants, insertGrants } from "./grant-links.js";
import { rowsToRead } from "./keyset-page.js";
import { scopeOrgIds } from "./scope-org-ids.js";

type OffersFrom = ExpressionBuilder<AnalyticsDatabase & { o: InvitationOffersTable }, "o">;

/** A pending offer as the `invited` admin user it is listed as. */
function offerEntryOf(row: Selectable<InvitationOffersTable>, grants: Grants): AdminUser {
  return {
    id: row.id,
    email: row.email,
    role: row.role as AdminRole,
    organizationIds: [...grants.organizationIds].sort(),
    ...(grants.subtreeOrganizationIds.length === 0 ? {} : { subtreeOrganizationIds: [...grants.subtreeOrganizationIds].sort() }),
    status: "invited",
    invitedAt: row.invited_at,
    invitationExpiresAt: row.expires_at,
    updatedAt: row.updated_at,
  };
}

/** Whether the offer `o` grants one of `orgIds`. */
function offerSharesOrganization(eb: OffersFrom, orgIds: readonly string[]) {
  return eb.exists(
    eb
      .selectFrom("scimkit_invitation_offer_organizations as l")
      .select("l.org_id")
      .whereRef("l.offer_id", "=", "o.id")
      .where("l.org_id", "in", orgIds),
  );
}

/** The pending offers `scope` may see (as admin users), as a query over `o`, or undefined when it sees none. */
export function offersInScope(on: Kysely<AnalyticsDatabase>, scope: OrgScope) {
  const ids = scopeOrgIds(scope);
  if (ids?.length === 0) return undefined;
  const query = on.selectFrom("scimkit_invitation_offers as o").selectAll("o");
  return ids === undefined ? query : query.where((eb) => offerSharesOrganization(eb, ids));
}

/** The offer of `row` as the admin user it is listed as. */
export async function oneOffer(
  on: Kysely<AnalyticsDatabase>,
  row: Selectable<InvitationOffersTable> | undefined,
): Promise<AdminUser | undefined> {
  return row ? (await entriesWithGrants(on, "offer", [row], offerEntryOf))[0] : undefined;
}

/** Inserts the offer of `user`'s role and grants to its e-mail, as `inviteAdminUser` describes. */
export async function insertOffer(
  trx: Kysely<AnalyticsDatabase>,
  user: AdminUser,
  invitation: Invitation,
  offeredBy: string | undefined,
): Promise<void> {
  await trx
    .insertInto("scimkit_invitation_offers")
    .values({
      id: user.id,
      email: user.email.toLowerCase(),
      role: user.role,
      offered_by: offeredBy ?? null,
      invited_at: user.invitedAt,
      expires_at: invitation.expiresAt,
      updated_at: user.updatedAt,
    })
    .execute();
  await insertGrants(trx, "offer", user.id, grantsOf(user));
  await trx
    .insertInto("scimkit_invitation_offer_codes")
    .values({ code_hash: invitation.codeHash, offer_id: user.id, created_at: user.invitedAt })
    .execute();
}

/** Removes the offer `id` and its grants. */
export async function deleteOffer(trx: Kysely<AnalyticsDatabase>, id: string): Promise<void> {
  // Explicit rather than by cascade, so the grants go even where foreign keys are not enforced.
  await deleteGrants(trx, "offer", id);
  await trx.deleteFrom("scimkit_invitation_offer_codes").where("offer_id", "=", id).execute();
  await trx.deleteFrom("scimkit_invitation_offers").where("id", "=", id).execute();
}

/** `updateAdminUser` of the pending offer `id`, which stays `invited` and is offered by whoever changed its grants. */
export async function updateOffer(
  trx: Kysely<AnalyticsDatabase>,
  dialect: SqlDialect,
  scope: OrgScope,
  id: string,
  change: Parameters<AdminUserStore["updateAdminUser"]>[2],
  grantedBy: string | undefined,
): Promise<AdminUser | undefined> {
  const query = offersInScope(trx, scope)?.where("o.id", "=", id);
  const row = query ? await lockRows(query, dialect, "update").executeTakeFirst() : undefined;
  const offer = await oneOffer(trx, row);
  if (!row || !offer) return undefined;
  const grants = changedGrants(offer, change);
  if (grants !== undefined) await refuseBeyondGrantor(trx, dialect, grantedBy, grants);
  const next: Selectable<InvitationOffersTable> = {
    ...row,
    ...(change.role === undefined ? {} : { role: change.role }),
    ...(grants === undefined ? {} : { offered_by: grantedBy ?? null }),
    updated_at: change.updatedAt,
  };
  await trx
    .updateTable("scimkit_invitation_offers")
    .set({ role: next.role, offered_by: next.offered_by, updated_at: next.updated_at })
    .where("id", "=", id)
    .execute();
  if (grants !== undefined) {
    await deleteGrants(trx, "offer", id);
    await insertGrants(trx, "offer", id, grants);
  }
  return oneOffer(trx, next);
}

/** The pending offers `scope` may see that `filter` keeps, one page's worth after `page.after`. */
export async function offerPage(
  db: Kysely<AnalyticsDatabase>,
  scope: OrgScope,
  page: PageRequest,
  filter: NonNullable<Parameters<AdminUserStore["listAdminUsers"]>[2]>,
): Promise<AdminUser[]> {
  let query = offersInScope(db, scope);
  // An offer is `invited` until it is accepted.
  if (!query || (filter.status !== undefined && filter.status !== "invited")) return [];
  const { role, orgId } = filter;
  if (role !== undefined) query = query.where("o.role", "=", role);
  if (orgId !== undefined) query = query.where((eb) => offerSharesOrganization(eb, [orgId]));
  if (page.after !== undefined) query = query.where("o.id", ">", page.after);
  return entriesWithGrants(db, "offer", await query.orderBy("o.id").limit(rowsToRead(page)).execute(), offerEntryOf);
}
