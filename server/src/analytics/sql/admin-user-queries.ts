/**
 * Admin users, their invitations and the analytics API keys in SQL (`scimkit_admin_users`,
 * `scimkit_admin_user_organizations`, `scimkit_invitations`, `scimkit_api_keys`). Secrets are
 * SHA-256 digests only, looked up by unique indexes.
 */
import type { ExpressionBuilder, Kysely, Selectable } from "kysely";
import type { SqlDialect } from "scimkit/sql";
import type { AdminUsersTable, AnalyticsDatabase, ApiKeysTable } from "./analytics-tables.js";
import { analyticsWriteTransaction } from "./analytics-write-transaction.js";
import { withRowLock } from "./with-row-lock.js";
import { analyticsConflictError } from "../analytics-conflict-error.js";
import { type Grants, grantsBeyond, refuseGrantsBeyond } from "../grants-beyond.js";
import { lockChains } from "./organization-tree.js";
import type { AdminRole, AdminUser, AdminUserStatus, AnalyticsStore, OrgScope, StoredApiKey } from "../analytics-store.js";
import { pageOf, rowsToRead } from "./keyset-page.js";
import { scopeOrgIds } from "./scope-org-ids.js";

type AdminUserMembers =
  | "listAdminUsers"
  | "getAdminUser"
  | "findAdminUserByEmail"
  | "createAdminUser"
  | "updateAdminUser"
  | "deleteAdminUser"
  | "acceptInvitation"
  | "insertApiKey"
  | "replaceApiKey"
  | "replaceOperatorKeys"
  | "findApiKeyByHash"
  | "hasOperatorKey";

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

function apiKeyOf(row: Selectable<ApiKeysTable>): StoredApiKey {
  return {
    id: row.id,
    subject:
      row.subject_kind === "admin" && row.admin_user_id !== null ? { kind: "admin", adminUserId: row.admin_user_id } : { kind: "operator" },
    hash: row.hash,
    createdAt: row.created_at,
  };
}

/** The admin user, key and invitation members of `AnalyticsStore` over `db`. */
export function adminUserQueries(db: Kysely<AnalyticsDatabase>, dialect: SqlDialect): Pick<AnalyticsStore, AdminUserMembers> {
  /** Whether the admin user `u` looks after one of `orgIds`. */
  const sharesOrganization = (eb: AdminUsersFrom, orgIds: readonly string[]) =>
    eb.exists(
      eb
        .selectFrom("scimkit_admin_user_organizations as l")
        .select("l.org_id")
        .whereRef("l.admin_user_id", "=", "u.id")
        .where("l.org_id", "in", orgIds),
    );

  /** The admin users `scope` may see, or undefined when it sees none. */
  const inScope = (on: Kysely<AnalyticsDatabase>, scope: OrgScope) => {
    const ids = scopeOrgIds(scope);
    if (ids?.length === 0) return undefined;
    const query = on.selectFrom("scimkit_admin_users as u").selectAll("u");
    return ids === undefined ? query : query.where((eb) => sharesOrganization(eb, ids));
  };

  /** The users of `rows` with their organizations, read in one query. */
  const withOrganizations = async (on: Kysely<AnalyticsDatabase>, rows: readonly Selectable<AdminUsersTable>[]): Promise<AdminUser[]> => {
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
  };

  const one = async (on: Kysely<AnalyticsDatabase>, row: Selectable<AdminUsersTable> | undefined): Promise<AdminUser | undefined> =>
    row ? (await withOrganizations(on, [row]))[0] : undefined;

  const linkOrganizations = async (trx: Kysely<AnalyticsDatabase>, adminUserId: string, grants: Grants): Promise<void> => {
    const unique = [...new Set(grants.organizationIds)];
    if (unique.length === 0) return;
    const subtree = new Set(grants.subtreeOrganizationIds);
    await trx
      .insertInto("scimkit_admin_user_organizations")
      .values(unique.map((orgId) => ({ admin_user_id: adminUserId, org_id: orgId, subtree: subtree.has(orgId) ? 1 : 0 })))
      .execute();
  };

  /**
   * Throws when `granted` lies beyond the grants of admin user `grantorId`, read with the chains
   * of every organization involved inside `trx` — the chains locked first, as a move locks them,
   * so neither a move nor a change of the grantor's grants slips between the check and the write.
   */
  const refuseBeyondGrantor = async (trx: Kysely<AnalyticsDatabase>, grantorId: string | undefined, granted: Grants): Promise<void> => {
    if (grantorId === undefined) return;
    const ids = [...new Set([...granted.organizationIds, ...granted.subtreeOrganizationIds])];
    const chains = await lockChains(trx, dialect, ids);
    const grantorRow = await withRowLock(
      trx.selectFrom("scimkit_admin_users as u").selectAll("u").where("u.id", "=", grantorId),
      dialect,
      "reference",
    ).executeTakeFirst();
    const grantor = grantorRow === undefined ? undefined : await one(trx, grantorRow);
    const own = { organizationIds: grantor?.organizationIds ?? [], subtreeOrganizationIds: grantor?.subtreeOrganizationIds ?? [] };
    refuseGrantsBeyond(grantsBeyond(own, (id) => chains.get(id) ?? [], granted));
  };

  return {
    async listAdminUsers(scope, page, filter = {}) {
      let query = inScope(db, scope);
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
      return one(db, await inScope(db, scope)?.where("u.id", "=", id).executeTakeFirst());
    },

    async findAdminUserByEmail(email) {
      const row = await db
        .selectFrom("scimkit_admin_users as u")
        .selectAll("u")
        .where("u.email", "=", email.toLowerCase())
        .executeTakeFirst();
      return one(db, row);
    },

    createAdminUser(user, invitation, options = {}) {
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        const email = user.email.toLowerCase();
        await refuseBeyondGrantor(trx, options.grantedBy, {
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
        const query = inScope(trx, scope)?.where("u.id", "=", id);
        const row = query ? await withRowLock(query, dialect, "update").executeTakeFirst() : undefined;
        if (!row) return undefined;
        let grants: Grants | undefined;
        if (change.organizationIds !== undefined || change.subtreeOrganizationIds !== undefined) {
          const current = await one(trx, row);
          const organizationIds = change.organizationIds ?? current?.organizationIds ?? [];
          // A grant that stays keeps its subtree unless the change says otherwise.
          const subtreeOrganizationIds = (change.subtreeOrganizationIds ?? current?.subtreeOrganizationIds ?? []).filter((orgId) =>
            organizationIds.includes(orgId),
          );
          grants = { organizationIds, subtreeOrganizationIds };
          await refuseBeyondGrantor(trx, options.grantedBy, grants);
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
        return one(trx, next);
      });
    },

    deleteAdminUser(scope, id) {
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        const query = inScope(trx, scope)?.where("u.id", "=", id);
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
        return one(trx, row);
      });
    },

    async insertApiKey(key) {
      await insertKey(db, key);
    },

    replaceApiKey(id, key) {
      // One transaction: the old key is gone exactly when the new one exists.
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        const deleted = await trx.deleteFrom("scimkit_api_keys").where("id", "=", id).executeTakeFirst();
        if (deleted.numDeletedRows === 0n) return false;
        await insertKey(trx, key);
        return true;
      });
    },

    replaceOperatorKeys(key) {
      if (key.subject.kind !== "operator") return Promise.reject(new TypeError("replaceOperatorKeys: the key is not an operator key"));
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        const deleted = await trx.deleteFrom("scimkit_api_keys").where("subject_kind", "=", "operator").executeTakeFirst();
        await insertKey(trx, key);
        return Number(deleted.numDeletedRows);
      });
    },

    async findApiKeyByHash(hash) {
      // The unique index on the digest answers this with one probe.
      const row = await db.selectFrom("scimkit_api_keys").selectAll().where("hash", "=", hash).executeTakeFirst();
      return row ? apiKeyOf(row) : undefined;
    },

    async hasOperatorKey() {
      const row = await db.selectFrom("scimkit_api_keys").select("id").where("subject_kind", "=", "operator").limit(1).executeTakeFirst();
      return row !== undefined;
    },
  };
}

/** Stores `key`; the unique digest index rejects a digest that exists. */
async function insertKey(on: Kysely<AnalyticsDatabase>, key: StoredApiKey): Promise<void> {
  await on
    .insertInto("scimkit_api_keys")
    .values({
      id: key.id,
      hash: key.hash,
      subject_kind: key.subject.kind,
      admin_user_id: key.subject.kind === "admin" ? key.subject.adminUserId : null,
      created_at: key.createdAt,
    })
    .execute();
}
