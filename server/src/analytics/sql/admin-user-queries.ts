/**
 * Admin users, their invitations and the analytics API keys in SQL (`scimkit_admin_users`,
 * `scimkit_admin_user_organizations`, `scimkit_invitations`, `scimkit_api_keys`). Secrets are
 * SHA-256 digests only, looked up by unique indexes.
 */
import type { Kysely, Selectable } from "kysely";
import type { SqlDialect } from "scimkit/sql";
import type { AdminUsersTable, AnalyticsDatabase } from "./analytics-tables.js";
import { analyticsWriteTransaction } from "./analytics-write-transaction.js";
import { withRowLock } from "./with-row-lock.js";
import { analyticsConflictError } from "../analytics-conflict-error.js";
import type { Grants } from "../grants-beyond.js";
import type { AdminUserStore } from "../analytics-store.js";
import { pageOf, rowsToRead } from "./keyset-page.js";
import {
  adminUsersInScope,
  linkOrganizations,
  oneAdminUser,
  refuseBeyondGrantor,
  sharesOrganization,
  withOrganizations,
} from "./admin-user-rows.js";
import { apiKeyQueries, insertKey } from "./api-key-queries.js";

/** The admin user, key and invitation members of `AnalyticsStore` over `db`. */
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
      const users = await withOrganizations(db, rows);
      return pageOf(
        users,
        page,
        (user) => user,
        (user) => user.id,
      );
    },

    async getAdminUser(scope, id) {
      return oneAdminUser(db, await adminUsersInScope(db, scope)?.where("u.id", "=", id).executeTakeFirst());
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
        const email = user.email.toLowerCase();
        await refuseBeyondGrantor(trx, dialect, options.grantedBy, {
          organizationIds: user.organizationIds,
          subtreeOrganizationIds: user.subtreeOrganizationIds ?? [],
        });
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
          if (taken) throw analyticsConflictError("An admin user with this e-mail address exists");
          throw new Error(`createAdminUser: the id ${user.id} exists`);
        }
        await linkOrganizations(trx, user.id, {
          organizationIds: user.organizationIds,
          subtreeOrganizationIds: user.subtreeOrganizationIds ?? [],
        });
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
      });
    },

    updateAdminUser(scope, id, change, options = {}) {
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        const query = adminUsersInScope(trx, scope)?.where("u.id", "=", id);
        const row = query ? await withRowLock(query, dialect, "update").executeTakeFirst() : undefined;
        if (!row) return undefined;
        let grants: Grants | undefined;
        if (change.organizationIds !== undefined || change.subtreeOrganizationIds !== undefined) {
          const current = await oneAdminUser(trx, row);
          const organizationIds = change.organizationIds ?? current?.organizationIds ?? [];
          // A grant that stays keeps its subtree unless the change says otherwise.
          const subtreeOrganizationIds = (change.subtreeOrganizationIds ?? current?.subtreeOrganizationIds ?? []).filter((orgId) =>
            organizationIds.includes(orgId),
          );
          grants = { organizationIds, subtreeOrganizationIds };
          await refuseBeyondGrantor(trx, dialect, options.grantedBy, grants);
        }
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
          await trx.deleteFrom("scimkit_admin_user_organizations").where("admin_user_id", "=", id).execute();
          await linkOrganizations(trx, id, grants);
        }
        return oneAdminUser(trx, next);
      });
    },

    deleteAdminUser(scope, id) {
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        const query = adminUsersInScope(trx, scope)?.where("u.id", "=", id);
        const row = query ? await withRowLock(query, dialect, "delete").executeTakeFirst() : undefined;
        if (!row) return false;
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
        const invitation = await withRowLock(
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

    ...apiKeyQueries(db, dialect),
  };
}
