/**
 * Inviting an admin user in SQL and accepting an offer (issue 27): each one write transaction that
 * reads and writes alike whatever it finds, so that neither the answer nor its time tells the
 * inviter whether the e-mail is an admin user's it may not see.
 */
import type { Kysely, Selectable } from "kysely";
import { lockRows, type SqlDialect } from "scimkit/sql";
import type { AcceptedOffer, AdminUser, GrantOptions, InvitationOutcome, OrgScope, StoredApiKey } from "../analytics-store.js";
import { analyticsConflictError } from "../analytics-conflict-error.js";
import { mergedGrants, refuseWiderRole } from "../offered-grants.js";
import { grantsOf, holderOf, insertAdminUser, type Invitation, oneAdminUser, refuseBeyondGrantor } from "./admin-user-rows.js";
import type { AdminUsersTable, AnalyticsDatabase } from "./analytics-tables.js";
import { analyticsWriteTransaction } from "./analytics-write-transaction.js";
import { insertKey } from "./api-key-queries.js";
import { deleteGrants, insertGrants } from "./grant-links.js";
import { deleteOffer, insertOffer, offersInScope, oneOffer } from "./invitation-offer-rows.js";

/** `AdminUserStore.inviteAdminUser` over `db`. */
export function inviteAdminUser(
  db: Kysely<AnalyticsDatabase>,
  dialect: SqlDialect,
  scope: OrgScope,
  user: AdminUser,
  invitation: Invitation,
  options: GrantOptions,
): Promise<InvitationOutcome> {
  return analyticsWriteTransaction(db, dialect, async (trx): Promise<InvitationOutcome> => {
    const email = user.email.toLowerCase();
    await refuseBeyondGrantor(trx, dialect, options.grantedBy, grantsOf(user));
    // The same two reads whatever they find, then a row, its grants and its code (issue 27).
    let holder = await holderOf(trx, scope, email);
    const offer = await offersInScope(trx, scope)?.where("o.email", "=", email).orderBy("o.id").limit(1).executeTakeFirst();
    if (holder === undefined && offer === undefined) {
      if (await insertAdminUser(trx, dialect, user, invitation)) return { stored: "admin-user" };
      // Another invitation took the e-mail since it was read: decide again on what it made.
      holder = await holderOf(trx, scope, email);
      if (holder === undefined) throw analyticsConflictError("An admin user with this e-mail address exists");
    }
    if (holder !== undefined && Number(holder.visible) === 1) {
      const { visible: _visible, ...row } = holder;
      return { taken: (await oneAdminUser(trx, row)) as AdminUser };
    }
    if (offer !== undefined) return { taken: (await oneOffer(trx, offer)) as AdminUser };
    await insertOffer(trx, user, invitation, options.grantedBy);
    return { stored: "offer" };
  });
}

/** `AdminUserStore.acceptInvitationOffer` over `db`. */
export function acceptInvitationOffer(
  db: Kysely<AnalyticsDatabase>,
  dialect: SqlDialect,
  codeHash: string,
  now: string,
  key: StoredApiKey,
): Promise<AcceptedOffer | undefined> {
  return analyticsWriteTransaction(db, dialect, async (trx): Promise<AcceptedOffer | undefined> => {
    // Locked, so of two accepts racing with one code the second waits, then finds it gone.
    const offerRow = await lockRows(
      trx
        .selectFrom("scimkit_invitation_offers as o")
        .selectAll("o")
        .where("o.id", "in", (eb) =>
          eb.selectFrom("scimkit_invitation_offer_codes as c").select("c.offer_id").where("c.code_hash", "=", codeHash),
        )
        .where("o.expires_at", ">", now),
      dialect,
      "update",
    ).executeTakeFirst();
    const offer = await oneOffer(trx, offerRow);
    if (!offerRow || !offer) return undefined;
    const offered = grantsOf(offer);
    await refuseBeyondGrantor(trx, dialect, offerRow.offered_by ?? undefined, offered);
    const holderRow = await lockRows(
      trx.selectFrom("scimkit_admin_users as u").selectAll("u").where("u.email", "=", offer.email),
      dialect,
      "update",
    ).executeTakeFirst();
    const holder = await oneAdminUser(trx, holderRow);
    if (holderRow && holder) {
      refuseWiderRole(holder.role, offer.role);
      await deleteOffer(trx, offer.id);
      await trx.updateTable("scimkit_admin_users").set({ updated_at: now }).where("id", "=", holder.id).execute();
      await deleteGrants(trx, "admin-user", holder.id);
      await insertGrants(trx, "admin-user", holder.id, mergedGrants(grantsOf(holder), offered));
      return { adminUser: (await oneAdminUser(trx, { ...holderRow, updated_at: now })) as AdminUser, keyStored: false };
    }
    // No admin user has the e-mail any more: the offer becomes one, as an accepted invitation.
    await deleteOffer(trx, offer.id);
    const created: Selectable<AdminUsersTable> = {
      id: offer.id,
      email: offer.email,
      role: offer.role,
      status: "active",
      invited_at: offer.invitedAt,
      invitation_expires_at: null,
      activated_at: now,
      updated_at: now,
    };
    await trx.insertInto("scimkit_admin_users").values(created).execute();
    await insertGrants(trx, "admin-user", offer.id, offered);
    await insertKey(trx, key);
    return { adminUser: (await oneAdminUser(trx, created)) as AdminUser, keyStored: true };
  });
}
