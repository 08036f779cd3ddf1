/**
 * Suspension (issue 6: "a suspended organization's SCIM tokens stop working"): the operator
 * suspends an organization through the analytics interface, and its identity provider's next SCIM
 * call is refused — without revoking the tokens, so reactivating restores them unchanged.
 */
import type { TokenVerifier } from "scimkit";
import type { OrganizationStore } from "./analytics-store.js";
import { organizationScimSettings } from "./organization-scim-settings.js";

/**
 * Wraps a SCIM `TokenVerifier` so that, on an organization the analytics store knows as
 * `suspended` — or does not know at all (deleted, or never created: issue 27, item 12) — every
 * token verifies to `null`: the router's ordinary 401, the same body as a wrong token, so a
 * client learns nothing it could not learn from a revoked one. A deployment that serves SCIM
 * organizations it never registers there uses `organizationScimSettings(store, {
 * unknownOrganizations: "serve" }).activeOnly(verifier)` instead.
 *
 * The status is read on every request (no cache), as `TokenVerifier` requires of revocation:
 * suspension and reactivation take effect on the next call, in every process sharing the store.
 * The token is verified first and the status read only for a token that passed, so an
 * unauthenticated caller cannot make the service read the analytics store.
 *
 * @example
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth: activeOrganizationsOnly(tokens, analyticsStore) }));
 */
export function activeOrganizationsOnly(verifier: TokenVerifier, store: Pick<OrganizationStore, "getOrganization">): TokenVerifier {
  return organizationScimSettings(store).activeOnly(verifier);
}
