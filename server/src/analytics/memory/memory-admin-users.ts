/**
 * The admin users of the memory analytics store: their grants (bounded by the granting admin
 * user's own, issue 27), their invitations, and the analytics API keys.
 */
import type { AdminUser, AdminUserStore } from "../analytics-store.js";
import { compareKeys, keysetPage } from "./keyset-page.js";
import type { MemoryAnalyticsState } from "./memory-analytics-state.js";
import { memoryApiKeys } from "./memory-api-keys.js";
import {
  acceptInvitationOffer,
  grantsOf,
  inviteAdminUser,
  refuseBeyondGrantor,
  removeOffer,
  storeAdminUser,
} from "./memory-invitation-offers.js";
import { seesAdminUser } from "./memory-scope.js";
import { plainCopy } from "./plain-copy.js";
import { withGrants } from "./with-grants.js";

/** The `AdminUserStore` of the memory analytics store over `state`: admin users, invitations and keys. */
export function memoryAdminUsers(state: MemoryAnalyticsState): AdminUserStore {
  const { adminUsers, adminIdByEmail, invitations, offers, apiKeys } = state;
  return {
    async listAdminUsers(scope, page, filter = {}) {
      const entries = [...adminUsers.values(), ...[...offers.values()].map((offer) => offer.entry)];
      const matching = entries
        .sort((a, b) => compareKeys(a.id, b.id))
        .filter(
          (user) =>
            seesAdminUser(scope, user) &&
            (filter.status === undefined || user.status === filter.status) &&
            (filter.role === undefined || user.role === filter.role) &&
            (filter.orgId === undefined || user.organizationIds.includes(filter.orgId)),
        );
      return keysetPage(matching, (user) => user.id, page, plainCopy);
    },

    async getAdminUser(scope, id) {
      const user = adminUsers.get(id) ?? offers.get(id)?.entry;
      return user !== undefined && seesAdminUser(scope, user) ? plainCopy(user) : undefined;
    },

    async findAdminUserByEmail(email) {
      const id = adminIdByEmail.get(email.toLowerCase());
      const user = id === undefined ? undefined : adminUsers.get(id);
      return user === undefined ? undefined : plainCopy(user);
    },

    async createAdminUser(user, invitation, options = {}) {
      refuseBeyondGrantor(state, options.grantedBy, grantsOf(user));
      storeAdminUser(state, user, invitation);
    },

    async inviteAdminUser(scope, user, invitation, options = {}) {
      return inviteAdminUser(state, scope, user, invitation, options);
    },

    async updateAdminUser(scope, id, change, options = {}) {
      const offer = offers.get(id);
      const current = adminUsers.get(id) ?? offer?.entry;
      if (current === undefined || !seesAdminUser(scope, current)) return undefined;
      const regrants = change.organizationIds !== undefined || change.subtreeOrganizationIds !== undefined;
      if (regrants) {
        const organizationIds = change.organizationIds ?? current.organizationIds;
        const subtreeOrganizationIds = change.subtreeOrganizationIds ?? current.subtreeOrganizationIds ?? [];
        refuseBeyondGrantor(state, options.grantedBy, {
          organizationIds,
          subtreeOrganizationIds: subtreeOrganizationIds.filter((orgId) => organizationIds.includes(orgId)),
        });
      }
      const next: AdminUser = {
        ...current,
        ...(change.role === undefined ? {} : { role: change.role }),
        // An offer is `invited` until accepted.
        ...(change.status === undefined || offer !== undefined ? {} : { status: change.status }),
        updatedAt: change.updatedAt,
      };
      // A grant that stays keeps its subtree unless the change says otherwise.
      const granted = withGrants(
        next,
        change.organizationIds ?? current.organizationIds,
        change.subtreeOrganizationIds ?? current.subtreeOrganizationIds ?? [],
      );
      if (offer === undefined) adminUsers.set(id, granted);
      else offers.set(id, { ...offer, entry: granted, offeredBy: regrants ? options.grantedBy : offer.offeredBy });
      return plainCopy(granted);
    },

    async deleteAdminUser(scope, id) {
      const offer = offers.get(id);
      if (offer !== undefined) {
        if (!seesAdminUser(scope, offer.entry)) return false;
        removeOffer(state, id);
        return true;
      }
      const user = adminUsers.get(id);
      if (user === undefined || !seesAdminUser(scope, user)) return false;
      adminUsers.delete(id);
      adminIdByEmail.delete(user.email);
      for (const [codeHash, invitation] of invitations) if (invitation.adminUserId === id) invitations.delete(codeHash);
      for (const [hash, key] of apiKeys) if (key.subject.kind === "admin" && key.subject.adminUserId === id) apiKeys.delete(hash);
      return true;
    },

    async acceptInvitation(codeHash, at, key) {
      const invitation = invitations.get(codeHash);
      const user = invitation === undefined ? undefined : adminUsers.get(invitation.adminUserId);
      if (invitation === undefined || user === undefined || user.status !== "invited") return undefined;
      if (!(Date.parse(at) < Date.parse(invitation.expiresAt))) return undefined;
      // Checked before anything changes, so a refused key leaves the invitation usable.
      if (apiKeys.has(key.hash)) throw new Error("memoryAnalyticsStore: an API key with this digest exists");
      const { invitationExpiresAt: _pending, ...rest } = user;
      const next: AdminUser = { ...rest, status: "active", activatedAt: at, updatedAt: at };
      invitations.delete(codeHash);
      adminUsers.set(user.id, next);
      apiKeys.set(key.hash, plainCopy(key));
      return plainCopy(next);
    },

    async acceptInvitationOffer(codeHash, at, key) {
      return acceptInvitationOffer(state, codeHash, at, key);
    },

    ...memoryApiKeys(state),
  };
}
