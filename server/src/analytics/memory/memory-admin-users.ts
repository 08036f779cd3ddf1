/**
 * The admin users of the memory analytics store: their grants (bounded by the granting admin
 * user's own, issue 27), their invitations, and the analytics API keys.
 */
import type { AdminUser, AdminUserStore } from "../analytics-store.js";
import { analyticsConflictError } from "../analytics-conflict-error.js";
import { type Grants, grantsBeyond, refuseGrantsBeyond } from "../grants-beyond.js";
import { keysetPage } from "./keyset-page.js";
import type { MemoryAnalyticsState } from "./memory-analytics-state.js";
import { memoryApiKeys } from "./memory-api-keys.js";
import { chainOf } from "./memory-organization-tree.js";
import { seesAdminUser } from "./memory-scope.js";
import { plainCopy } from "./plain-copy.js";
import { sortedValues } from "./sorted-values.js";
import { withGrants } from "./with-grants.js";

/** Throws when `granted` lies beyond the grants of admin user `grantorId` (none: nothing granted). */
function refuseBeyondGrantor(state: MemoryAnalyticsState, grantorId: string | undefined, granted: Grants): void {
  if (grantorId === undefined) return;
  const grantor = state.adminUsers.get(grantorId);
  const own = { organizationIds: grantor?.organizationIds ?? [], subtreeOrganizationIds: grantor?.subtreeOrganizationIds ?? [] };
  refuseGrantsBeyond(grantsBeyond(own, (id) => chainOf(state, id), granted));
}

/** The `AdminUserStore` of the memory analytics store over `state`: admin users, invitations and keys. */
export function memoryAdminUsers(state: MemoryAnalyticsState): AdminUserStore {
  const { adminUsers, adminIdByEmail, invitations, apiKeys } = state;
  return {
    async listAdminUsers(scope, page, filter = {}) {
      const matching = sortedValues(adminUsers).filter(
        (user) =>
          seesAdminUser(scope, user) &&
          (filter.status === undefined || user.status === filter.status) &&
          (filter.role === undefined || user.role === filter.role) &&
          (filter.orgId === undefined || user.organizationIds.includes(filter.orgId)),
      );
      return keysetPage(matching, (user) => user.id, page, plainCopy);
    },

    async getAdminUser(scope, id) {
      const user = adminUsers.get(id);
      return user !== undefined && seesAdminUser(scope, user) ? plainCopy(user) : undefined;
    },

    async findAdminUserByEmail(email) {
      const id = adminIdByEmail.get(email.toLowerCase());
      const user = id === undefined ? undefined : adminUsers.get(id);
      return user === undefined ? undefined : plainCopy(user);
    },

    async createAdminUser(user, invitation, options = {}) {
      const email = user.email.toLowerCase();
      refuseBeyondGrantor(state, options.grantedBy, {
        organizationIds: user.organizationIds,
        subtreeOrganizationIds: user.subtreeOrganizationIds ?? [],
      });
      if (adminIdByEmail.has(email)) throw analyticsConflictError("An admin user with this e-mail address exists");
      if (adminUsers.has(user.id)) throw new Error(`memoryAnalyticsStore: admin user ${user.id} exists`);
      if (invitations.has(invitation.codeHash)) throw new Error("memoryAnalyticsStore: an invitation with this code digest exists");
      adminUsers.set(user.id, plainCopy(withGrants({ ...user, email }, user.organizationIds, user.subtreeOrganizationIds ?? [])));
      adminIdByEmail.set(email, user.id);
      invitations.set(invitation.codeHash, { adminUserId: user.id, expiresAt: invitation.expiresAt });
    },

    async updateAdminUser(scope, id, change, options = {}) {
      const current = adminUsers.get(id);
      if (current === undefined || !seesAdminUser(scope, current)) return undefined;
      if (change.organizationIds !== undefined || change.subtreeOrganizationIds !== undefined) {
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
        ...(change.status === undefined ? {} : { status: change.status }),
        updatedAt: change.updatedAt,
      };
      // A grant that stays keeps its subtree unless the change says otherwise.
      const granted = withGrants(
        next,
        change.organizationIds ?? current.organizationIds,
        change.subtreeOrganizationIds ?? current.subtreeOrganizationIds ?? [],
      );
      adminUsers.set(id, granted);
      return plainCopy(granted);
    },

    async deleteAdminUser(scope, id) {
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

    ...memoryApiKeys(state),
  };
}
