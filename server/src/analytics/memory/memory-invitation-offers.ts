/**
 * Invitations in the memory analytics store (issue 27): an invited admin user stored with its
 * code, or — when the e-mail is an admin user's the inviter may not see — a pending offer that
 * looks the same to the inviter, and that joins that admin user when it is accepted.
 */
import type { AcceptedOffer, AdminUser, GrantOptions, InvitationOutcome, OrgScope, StoredApiKey } from "../analytics-store.js";
import { analyticsConflictError } from "../analytics-conflict-error.js";
import { type Grants, grantsBeyond, refuseGrantsBeyond } from "../grants-beyond.js";
import { mergedGrants, refuseWiderRole } from "../offered-grants.js";
import type { MemoryAnalyticsState } from "./memory-analytics-state.js";
import { chainOf } from "./memory-organization-tree.js";
import { seesAdminUser } from "./memory-scope.js";
import { plainCopy } from "./plain-copy.js";
import { withGrants } from "./with-grants.js";

/** An invitation's code digest and expiry. */
type Invitation = { readonly codeHash: string; readonly expiresAt: string };

/** The grants of `user` (an admin user or the entry of an offer). */
export function grantsOf(user: AdminUser): Grants {
  return { organizationIds: user.organizationIds, subtreeOrganizationIds: user.subtreeOrganizationIds ?? [] };
}

/** Throws when `granted` lies beyond the grants of admin user `grantorId` (none: nothing granted). */
export function refuseBeyondGrantor(state: MemoryAnalyticsState, grantorId: string | undefined, granted: Grants): void {
  if (grantorId === undefined) return;
  const grantor = state.adminUsers.get(grantorId);
  const own = { organizationIds: grantor?.organizationIds ?? [], subtreeOrganizationIds: grantor?.subtreeOrganizationIds ?? [] };
  refuseGrantsBeyond(grantsBeyond(own, (id) => chainOf(state, id), granted));
}

/** Throws when `id` is an admin user's or an offer's, or `codeHash` an invitation's or an offer's: the caller's ids are fresh. */
function refuseTakenIds(state: MemoryAnalyticsState, id: string, codeHash: string): void {
  if (state.adminUsers.has(id) || state.offers.has(id)) throw new Error(`memoryAnalyticsStore: admin user ${id} exists`);
  if (state.invitations.has(codeHash) || state.offerIdByCode.has(codeHash)) {
    throw new Error("memoryAnalyticsStore: an invitation with this code digest exists");
  }
}

/** Stores the invited admin user `user` with its pending invitation; a conflict error when its e-mail is taken. */
export function storeAdminUser(state: MemoryAnalyticsState, user: AdminUser, invitation: Invitation): void {
  const email = user.email.toLowerCase();
  if (state.adminIdByEmail.has(email)) throw analyticsConflictError("An admin user with this e-mail address exists");
  refuseTakenIds(state, user.id, invitation.codeHash);
  state.adminUsers.set(user.id, plainCopy(withGrants({ ...user, email }, user.organizationIds, user.subtreeOrganizationIds ?? [])));
  state.adminIdByEmail.set(email, user.id);
  state.invitations.set(invitation.codeHash, { adminUserId: user.id, expiresAt: invitation.expiresAt });
}

/** Withdraws the pending offer `id`. */
export function removeOffer(state: MemoryAnalyticsState, id: string): void {
  const offer = state.offers.get(id);
  if (offer === undefined) return;
  state.offers.delete(id);
  state.offerIdByCode.delete(offer.codeHash);
}

/** `AdminUserStore.inviteAdminUser` over the state. */
export function inviteAdminUser(
  state: MemoryAnalyticsState,
  scope: OrgScope,
  user: AdminUser,
  invitation: Invitation,
  options: GrantOptions,
): InvitationOutcome {
  refuseBeyondGrantor(state, options.grantedBy, grantsOf(user));
  const email = user.email.toLowerCase();
  const holderId = state.adminIdByEmail.get(email);
  const holder = holderId === undefined ? undefined : state.adminUsers.get(holderId);
  if (holder !== undefined && seesAdminUser(scope, holder)) return { taken: plainCopy(holder) };
  for (const offer of state.offers.values()) {
    if (offer.entry.email === email && seesAdminUser(scope, offer.entry)) return { taken: plainCopy(offer.entry) };
  }
  if (holder === undefined) {
    storeAdminUser(state, user, invitation);
    return { stored: "admin-user" };
  }
  refuseTakenIds(state, user.id, invitation.codeHash);
  const entry = plainCopy(withGrants({ ...user, email }, user.organizationIds, user.subtreeOrganizationIds ?? []));
  state.offers.set(user.id, { entry, offeredBy: options.grantedBy, codeHash: invitation.codeHash });
  state.offerIdByCode.set(invitation.codeHash, user.id);
  return { stored: "offer" };
}

/** `AdminUserStore.acceptInvitationOffer` over the state. */
export function acceptInvitationOffer(
  state: MemoryAnalyticsState,
  codeHash: string,
  at: string,
  key: StoredApiKey,
): AcceptedOffer | undefined {
  const { adminUsers, apiKeys } = state;
  const offerId = state.offerIdByCode.get(codeHash);
  const offer = offerId === undefined ? undefined : state.offers.get(offerId);
  if (offer === undefined || !(Date.parse(at) < Date.parse(offer.entry.invitationExpiresAt ?? ""))) return undefined;
  // Every check before anything changes, so a refused offer stays pending.
  refuseBeyondGrantor(state, offer.offeredBy, grantsOf(offer.entry));
  const holderId = state.adminIdByEmail.get(offer.entry.email);
  const holder = holderId === undefined ? undefined : adminUsers.get(holderId);
  if (holder !== undefined) {
    refuseWiderRole(holder.role, offer.entry.role);
    const grants = mergedGrants(grantsOf(holder), grantsOf(offer.entry));
    const merged = withGrants({ ...holder, updatedAt: at }, grants.organizationIds, grants.subtreeOrganizationIds);
    removeOffer(state, offer.entry.id);
    adminUsers.set(holder.id, merged);
    return { adminUser: plainCopy(merged), keyStored: false };
  }
  if (apiKeys.has(key.hash)) throw new Error("memoryAnalyticsStore: an API key with this digest exists");
  const { invitationExpiresAt: _pending, ...rest } = offer.entry;
  const created: AdminUser = { ...rest, status: "active", activatedAt: at, updatedAt: at };
  removeOffer(state, created.id);
  adminUsers.set(created.id, created);
  state.adminIdByEmail.set(created.email, created.id);
  apiKeys.set(key.hash, plainCopy(key));
  return { adminUser: plainCopy(created), keyStored: true };
}
