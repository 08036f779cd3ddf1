/**
 * Admin users, their invitations and the analytics API keys in SQL (`scimkit_admin_users`,
 * `scimkit_admin_user_organizations`, `scimkit_invitations`, `scimkit_api_keys`), and the pending
 * invitation offers listed among them (`scimkit_invitation_offers`, issue 27). Secrets are SHA-256
 * digests only, looked up by unique indexes. The rows' queries are in admin-user-rows.ts and
 * invitation-offer-rows.ts, inviting and accepting an offer in invitation-queries.ts, the keys in
 * api-key-queries.ts.
 */
import type { Kysely, Selectable } from "kysely";
import { lockRows, type SqlDialect } from "scimkit/sql";
import type { AdminUserStore } from "../analytics-store.js";
import { analyticsConflictError } from "../analytics-conflict-error.js";
import {
  adminUsersInScope,
  adminUsersOf,
  changedGrants,
  grantsOf,
  insertAdminUser,
  oneAdminUser,
  refuseBeyondGrantor,
  sharesOrganization,
} from "./admin-user-rows.js";
import type { AdminUser } from "../analytics-store.js";
import type { AdminUsersTable, AnalyticsDatabase } from "./analytics-tables.js";
import { analyticsWriteTransaction } from "./analytics-write-transaction.js";
import { apiKeyQueries, insertKey } from "./api-key-queries.js";
import { deleteGrants, insertGrants } from "./grant-links.js";
import { deleteOffer, offerPage, offersInScope, oneOffer, updateOffer } from "./invitation-offer-rows.js";
import { acceptInvitationOffer, inviteAdminUser } from "./invitation-queries.js";
import { pageOf, rowsToRead } from "./keyset-page.js";

/** The admin user, invitation and key members of `AnalyticsStore` over `db`. */
export function adminUserQueries(db: Kysely<AnalyticsDatabase>, dialect: SqlDialect): AdminUserStore {
  return {
    async listAdminUsers(scope, page, filter = {}) {
      let query = adminUsersInScope(db, scope);
      if (!query) return { items: [] };
      const { status, role, orgId } = filter;
      if (status !== undefined) query = query.where("u.status", "=", status);
      if (role !== undefined) query = query.where("u.role", "=", role);
      if (orgId !== undefined) query = query.where((eb) => sharesOrganization(eb, [orgId]));
      if (page.after !== undefined) query = query.where("u.id", ">", page.after);
      const rows = await query.orderBy("u.id").limit(rowsToRead(page)).execute();
      // Offers and admin users in one id order: a page of each is enough to make one page of both.
      const users = [...(await adminUsersOf(db, rows)), ...(await offerPage(db, scope, page, filter))].sort((a, b) =>
        a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
      );
      return pageOf(
        users.slice(0, rowsToRead(page)),
        page,
        (user) => user,
        (user) => user.id,
      );
    },

    async getAdminUser(scope, id) {
      const user = await oneAdminUser(db, await adminUsersInScope(db, scope)?.where("u.id", "=", id).executeTakeFirst());
      return user ?? oneOffer(db, await offersInScope(db, scope)?.where("o.id", "=", id).executeTakeFirst());
    },

    async findAdminUserByEmail(email) {
      const row = await db
        .selectFrom("scimkit_admin_users as u")
        .selectAll("u")
        .where("u.email", "=", email.toLowerCase())
        .executeTakeFirst();
      return oneAdminUser(db, row);
    },

    createAdminUser(user, invitation, options = {}) {
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        await refuseBeyondGrantor(trx, dialect, options.grantedBy, grantsOf(user));
        if (!(await insertAdminUser(trx, dialect, user, invitation)))
          throw analyticsConflictError("An admin user with this e-mail address exists");
      });
    },

    inviteAdminUser: (scope, user, invitation, options = {}) => inviteAdminUser(db, dialect, scope, user, invitation, options),

    updateAdminUser(scope, id, change, options = {}) {
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        const query = adminUsersInScope(trx, scope)?.where("u.id", "=", id);
        const row = query ? await lockRows(query, dialect, "update").executeTakeFirst() : undefined;
        if (!row) return updateOffer(trx, dialect, scope, id, change, options.grantedBy);
        const regrants = change.organizationIds !== undefined || change.subtreeOrganizationIds !== undefined;
        const grants = regrants ? changedGrants((await oneAdminUser(trx, row)) as AdminUser, change) : undefined;
        if (grants !== undefined) await refuseBeyondGrantor(trx, dialect, options.grantedBy, grants);
        const next: Selectable<AdminUsersTable> = {
          ...row,
          ...(change.role === undefined ? {} : { role: change.role }),
          ...(change.status === undefined ? {} : { status: change.status }),
          updated_at: change.updatedAt,
        };
        await trx
          .updateTable("scimkit_admin_users")
          .set({ role: next.role, status: next.status, updated_at: next.updated_at })
          .where("id", "=", id)
          .execute();
        if (grants !== undefined) {
          await deleteGrants(trx, "admin-user", id);
          await insertGrants(trx, "admin-user", id, grants);
        }
        return oneAdminUser(trx, next);
      });
    },

    deleteAdminUser(scope, id) {
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        const query = adminUsersInScope(trx, scope)?.where("u.id", "=", id);
        const row = query ? await lockRows(query, dialect, "delete").executeTakeFirst() : undefined;
        if (!row) {
          const offer = offersInScope(trx, scope)?.where("o.id", "=", id);
          if (!offer || !(await lockRows(offer, dialect, "delete").executeTakeFirst())) return false;
          await deleteOffer(trx, id);
          return true;
        }
        // Explicit rather than by cascade, so the keys go even where foreign keys are not enforced.
        await trx.deleteFrom("scimkit_api_keys").where("admin_user_id", "=", id).execute();
        await trx.deleteFrom("scimkit_invitations").where("admin_user_id", "=", id).execute();
        await trx.deleteFrom("scimkit_admin_user_organizations").where("admin_user_id", "=", id).execute();
        await trx.deleteFrom("scimkit_admin_users").where("id", "=", id).execute();
        return true;
      });
    },

    acceptInvitation(codeHash, now, key) {
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        // Locked, so of two accepts racing with one code the second waits, then finds it consumed.
        const invitation = await lockRows(
          trx
            .selectFrom("scimkit_invitations as i")
            .innerJoin("scimkit_admin_users as u", "u.id", "i.admin_user_id")
            .select(["i.admin_user_id"])
            .where("i.code_hash", "=", codeHash)
            .where("i.consumed_at", "is", null)
            .where("i.expires_at", ">", now)
            .where("u.status", "=", "invited"),
          dialect,
          "update",
        ).executeTakeFirst();
        if (!invitation) return undefined;
        const consumed = await trx
          .updateTable("scimkit_invitations")
          .set({ consumed_at: now })
          .where("code_hash", "=", codeHash)
          .where("consumed_at", "is", null)
          .executeTakeFirst();
        if (consumed.numUpdatedRows === 0n) return undefined;
        await trx
          .updateTable("scimkit_admin_users")
          .set({ status: "active", activated_at: now, invitation_expires_at: null, updated_at: now })
          .where("id", "=", invitation.admin_user_id)
          .execute();
        await insertKey(trx, key);
        const row = await trx
          .selectFrom("scimkit_admin_users as u")
          .selectAll("u")
          .where("u.id", "=", invitation.admin_user_id)
          .executeTakeFirst();
        return oneAdminUser(trx, row);
      });
    },

    acceptInvitationOffer: (codeHash, now, key) => acceptInvitationOffer(db, dialect, codeHash, now, key),

    ...apiKeyQueries(db, dialect),
  };
}
