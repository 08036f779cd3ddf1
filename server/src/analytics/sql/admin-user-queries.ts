/**
 * Admin users, their invitations and the analytics API keys in SQL (`scimkit_admin_users`,
 * `scimkit_admin_user_organizations`, `scimkit_invitations`, `scimkit_api_keys`), and the pending
 * invitation offers listed among them (`scimkit_invitation_offers`, issue 27). Secrets are SHA-256
 * digests only, looked up by unique indexes.
 */
import { type ExpressionBuilder, type Kysely, type Selectable, sql } from "kysely";
import type { SqlDialect } from "scimkit/sql";
import type { AdminUsersTable, AnalyticsDatabase, ApiKeysTable, InvitationOffersTable } from "./analytics-tables.js";
import { analyticsWriteTransaction } from "./analytics-write-transaction.js";
import { withRowLock } from "./with-row-lock.js";
import { analyticsConflictError } from "../analytics-conflict-error.js";
import { type Grants, grantsBeyond, refuseGrantsBeyond } from "../grants-beyond.js";
import { mergedGrants, refuseWiderRole } from "../offered-grants.js";
import { lockChains } from "./organization-tree.js";
import type { AdminRole, AdminUser, AdminUserStatus, AnalyticsStore, OrgScope, StoredApiKey } from "../analytics-store.js";
import { deleteGrants, type GrantHolder, insertGrants, NO_GRANTS, readGrants } from "./grant-links.js";
import { pageOf, rowsToRead } from "./keyset-page.js";
import { scopeOrgIds } from "./scope-org-ids.js";

type AdminUserMembers =
  | "listAdminUsers"
  | "getAdminUser"
  | "findAdminUserByEmail"
  | "createAdminUser"
  | "inviteAdminUser"
  | "updateAdminUser"
  | "deleteAdminUser"
  | "acceptInvitation"
  | "acceptInvitationOffer"
  | "insertApiKey"
  | "replaceApiKey"
  | "replaceOperatorKeys"
  | "findApiKeyByHash"
  | "hasOperatorKey";

type AdminUsersFrom = ExpressionBuilder<AnalyticsDatabase & { u: AdminUsersTable }, "u">;
type OffersFrom = ExpressionBuilder<AnalyticsDatabase & { o: InvitationOffersTable }, "o">;
type Invitation = { readonly codeHash: string; readonly expiresAt: string };

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

/** The grants of `user`. */
function grantsOf(user: AdminUser): Grants {
  return { organizationIds: user.organizationIds, subtreeOrganizationIds: user.subtreeOrganizationIds ?? [] };
}

/**
 * The grants `user` ends with after `change`, or undefined when it changes none: a grant that
 * stays keeps its subtree unless the change says otherwise.
 */
function changedGrants(
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

  /** Whether the offer `o` grants one of `orgIds`. */
  const offerSharesOrganization = (eb: OffersFrom, orgIds: readonly string[]) =>
    eb.exists(
      eb
        .selectFrom("scimkit_invitation_offer_organizations as l")
        .select("l.org_id")
        .whereRef("l.offer_id", "=", "o.id")
        .where("l.org_id", "in", orgIds),
    );

  /** The pending offers `scope` may see (as admin users), or undefined when it sees none. */
  const offersInScope = (on: Kysely<AnalyticsDatabase>, scope: OrgScope) => {
    const ids = scopeOrgIds(scope);
    if (ids?.length === 0) return undefined;
    const query = on.selectFrom("scimkit_invitation_offers as o").selectAll("o");
    return ids === undefined ? query : query.where((eb) => offerSharesOrganization(eb, ids));
  };

  /** `rows` as admin users (`entryOf`), with the grants of `holder` each has, read in one query. */
  const withGrants = async <R extends { readonly id: string }>(
    on: Kysely<AnalyticsDatabase>,
    holder: GrantHolder,
    rows: readonly R[],
    entryOf: (row: R, grants: Grants) => AdminUser,
  ): Promise<AdminUser[]> => {
    const grants = await readGrants(
      on,
      holder,
      rows.map((row) => row.id),
    );
    return rows.map((row) => entryOf(row, grants.get(row.id) ?? NO_GRANTS));
  };

  const one = async (on: Kysely<AnalyticsDatabase>, row: Selectable<AdminUsersTable> | undefined): Promise<AdminUser | undefined> =>
    row ? (await withGrants(on, "admin-user", [row], adminUserOf))[0] : undefined;

  /** The offer of `row` as the admin user it is listed as. */
  const oneOffer = async (
    on: Kysely<AnalyticsDatabase>,
    row: Selectable<InvitationOffersTable> | undefined,
  ): Promise<AdminUser | undefined> => (row ? (await withGrants(on, "offer", [row], offerEntryOf))[0] : undefined);

  /**
   * The admin user with `email` (an admin user's row, with `visible` 1 when it shares an
   * organization with `scope`), in one query whatever it finds: an invitation must not take
   * longer for an e-mail that is someone's (issue 27).
   */
  const holderOf = (trx: Kysely<AnalyticsDatabase>, scope: OrgScope, email: string) => {
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
  };

  /**
   * Inserts the invited admin user `user` with its grants and pending invitation; false, nothing
   * written, when its e-mail is taken.
   */
  const insertAdminUser = async (trx: Kysely<AnalyticsDatabase>, user: AdminUser, invitation: Invitation): Promise<boolean> => {
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
  };

  /** Inserts the offer of `user`'s role and grants to its e-mail, as `inviteAdminUser` describes. */
  const insertOffer = async (trx: Kysely<AnalyticsDatabase>, user: AdminUser, invitation: Invitation, offeredBy: string | undefined) => {
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
  };

  /** Removes the offer `id` and its grants. */
  const deleteOffer = async (trx: Kysely<AnalyticsDatabase>, id: string): Promise<void> => {
    // Explicit rather than by cascade, so the grants go even where foreign keys are not enforced.
    await deleteGrants(trx, "offer", id);
    await trx.deleteFrom("scimkit_invitation_offer_codes").where("offer_id", "=", id).execute();
    await trx.deleteFrom("scimkit_invitation_offers").where("id", "=", id).execute();
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

  /** `updateAdminUser` of the pending offer `id`, which stays `invited` and is offered by whoever changed its grants. */
  const updateOffer = async (
    trx: Kysely<AnalyticsDatabase>,
    scope: OrgScope,
    id: string,
    change: Parameters<AnalyticsStore["updateAdminUser"]>[2],
    grantedBy: string | undefined,
  ): Promise<AdminUser | undefined> => {
    const query = offersInScope(trx, scope)?.where("o.id", "=", id);
    const row = query ? await withRowLock(query, dialect, "update").executeTakeFirst() : undefined;
    const offer = await oneOffer(trx, row);
    if (!row || !offer) return undefined;
    const grants = changedGrants(offer, change);
    if (grants !== undefined) await refuseBeyondGrantor(trx, grantedBy, grants);
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
  };

  /** The pending offers `scope` may see that `filter` keeps, one page's worth after `page.after`. */
  const offerPage = async (
    scope: OrgScope,
    page: Parameters<AnalyticsStore["listAdminUsers"]>[1],
    filter: NonNullable<Parameters<AnalyticsStore["listAdminUsers"]>[2]>,
  ): Promise<AdminUser[]> => {
    let query = offersInScope(db, scope);
    // An offer is `invited` until it is accepted.
    if (!query || (filter.status !== undefined && filter.status !== "invited")) return [];
    const { role, orgId } = filter;
    if (role !== undefined) query = query.where("o.role", "=", role);
    if (orgId !== undefined) query = query.where((eb) => offerSharesOrganization(eb, [orgId]));
    if (page.after !== undefined) query = query.where("o.id", ">", page.after);
    return withGrants(db, "offer", await query.orderBy("o.id").limit(rowsToRead(page)).execute(), offerEntryOf);
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
      // Offers and admin users in one id order: a page of each is enough to make one page of both.
      const users = [...(await withGrants(db, "admin-user", rows, adminUserOf)), ...(await offerPage(scope, page, filter))].sort((a, b) =>
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
      const user = await one(db, await inScope(db, scope)?.where("u.id", "=", id).executeTakeFirst());
      return user ?? oneOffer(db, await offersInScope(db, scope)?.where("o.id", "=", id).executeTakeFirst());
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
        await refuseBeyondGrantor(trx, options.grantedBy, grantsOf(user));
        if (!(await insertAdminUser(trx, user, invitation))) throw analyticsConflictError("An admin user with this e-mail address exists");
      });
    },

    inviteAdminUser(scope, user, invitation, options = {}) {
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        const email = user.email.toLowerCase();
        await refuseBeyondGrantor(trx, options.grantedBy, grantsOf(user));
        // The same two reads whatever they find, then a row, its grants and its code (issue 27).
        let holder = await holderOf(trx, scope, email);
        const offer = await offersInScope(trx, scope)?.where("o.email", "=", email).orderBy("o.id").limit(1).executeTakeFirst();
        if (holder === undefined && offer === undefined) {
          if (await insertAdminUser(trx, user, invitation)) return { stored: "admin-user" };
          // Another invitation took the e-mail since it was read: decide again on what it made.
          holder = await holderOf(trx, scope, email);
          if (holder === undefined) throw analyticsConflictError("An admin user with this e-mail address exists");
        }
        if (holder !== undefined && Number(holder.visible) === 1) {
          const { visible: _visible, ...row } = holder;
          return { taken: (await one(trx, row)) as AdminUser };
        }
        if (offer !== undefined) return { taken: (await oneOffer(trx, offer)) as AdminUser };
        await insertOffer(trx, user, invitation, options.grantedBy);
        return { stored: "offer" };
      });
    },

    updateAdminUser(scope, id, change, options = {}) {
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        const query = inScope(trx, scope)?.where("u.id", "=", id);
        const row = query ? await withRowLock(query, dialect, "update").executeTakeFirst() : undefined;
        if (!row) return updateOffer(trx, scope, id, change, options.grantedBy);
        const regrants = change.organizationIds !== undefined || change.subtreeOrganizationIds !== undefined;
        const grants = regrants ? changedGrants((await one(trx, row)) as AdminUser, change) : undefined;
        if (grants !== undefined) await refuseBeyondGrantor(trx, options.grantedBy, grants);
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
        return one(trx, next);
      });
    },

    deleteAdminUser(scope, id) {
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        const query = inScope(trx, scope)?.where("u.id", "=", id);
        const row = query ? await withRowLock(query, dialect, "delete").executeTakeFirst() : undefined;
        if (!row) {
          const offer = offersInScope(trx, scope)?.where("o.id", "=", id);
          if (!offer || !(await withRowLock(offer, dialect, "delete").executeTakeFirst())) return false;
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

    acceptInvitationOffer(codeHash, now, key) {
      return analyticsWriteTransaction(db, dialect, async (trx) => {
        // Locked, so of two accepts racing with one code the second waits, then finds it gone.
        const offerRow = await withRowLock(
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
        await refuseBeyondGrantor(trx, offerRow.offered_by ?? undefined, offered);
        const holderRow = await withRowLock(
          trx.selectFrom("scimkit_admin_users as u").selectAll("u").where("u.email", "=", offer.email),
          dialect,
          "update",
        ).executeTakeFirst();
        const holder = await one(trx, holderRow);
        if (holderRow && holder) {
          refuseWiderRole(holder.role, offer.role);
          await deleteOffer(trx, offer.id);
          await trx.updateTable("scimkit_admin_users").set({ updated_at: now }).where("id", "=", holder.id).execute();
          await deleteGrants(trx, "admin-user", holder.id);
          await insertGrants(trx, "admin-user", holder.id, mergedGrants(grantsOf(holder), offered));
          return { adminUser: (await one(trx, { ...holderRow, updated_at: now })) as AdminUser, keyStored: false };
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
        return { adminUser: (await one(trx, created)) as AdminUser, keyStored: true };
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
