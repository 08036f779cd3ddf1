/**
 * An organization's record in the analytics store as the source of its SCIM settings (issue 15):
 * whether its tokens work (suspension), the compatibility profile its requests are served under,
 * and what `POST /Users` does with a user that exists — read from the store every host shares, so a
 * change holds from the next request on in every process: the status on each verification, the
 * two settings at most once per request between them.
 */
import type { Request } from "express";
import type { ExistingUserPolicy, TokenVerifier } from "scimkit";
import type { CompatibilityProfileName } from "scimkit/core";
import type { Organization, OrganizationStore, OrgScope } from "./analytics-store.js";

const EVERYTHING: OrgScope = { all: true };

/** What an organization the store does not know (or has no setting for) is served with. */
export interface OrganizationScimDefaults {
  /** Default `"generic"`. */
  readonly compatibility?: CompatibilityProfileName;
  /** Default `"conflict"`. */
  readonly existingUsers?: ExistingUserPolicy;
  /**
   * What `activeOnly` does with a token of an organization the store does not have: `"refuse"`
   * (default) answers `null`, so a token left over from a deleted organization (issued or used as
   * its delete committed) never works; `"serve"` lets it through, for a deployment that serves
   * SCIM organizations it never registers in the analytics store.
   */
  readonly unknownOrganizations?: "refuse" | "serve";
}

/** The router options an organization's record decides; pass them to `createScimRouter`. */
export interface OrganizationScimSettings {
  /**
   * Wraps a SCIM `TokenVerifier` so that every token of a `suspended` organization — or of one the
   * store does not have, unless `unknownOrganizations: "serve"` — verifies to `null` (the router's
   * ordinary 401). The token is verified first, so an unauthenticated caller cannot make the
   * service read the analytics store.
   */
  activeOnly(verifier: TokenVerifier): TokenVerifier;
  /** `ScimRouterOptions.compatibility`: the organization's profile, or the default. */
  compatibility(orgId: string, request: Request): Promise<CompatibilityProfileName>;
  /** `ScimRouterOptions.existingUsers`: the organization's choice, or the default. */
  existingUsers(orgId: string, request: Request): Promise<ExistingUserPolicy>;
}

/**
 * @example
 * const settings = organizationScimSettings(analyticsStore);
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({
 *   store, auth: settings.activeOnly(tokens),
 *   compatibility: settings.compatibility, existingUsers: settings.existingUsers,
 * }));
 */
export function organizationScimSettings(
  store: Pick<OrganizationStore, "getOrganization">,
  defaults: OrganizationScimDefaults = {},
): OrganizationScimSettings {
  // One read per request however many settings it asks for: keyed by the request object, gone with it.
  const read = new WeakMap<Request, { readonly orgId: string; readonly organization: Promise<Organization | undefined> }>();
  const serveUnknown = defaults.unknownOrganizations === "serve";
  const organizationOf = (orgId: string, request: Request): Promise<Organization | undefined> => {
    const known = read.get(request);
    if (known !== undefined && known.orgId === orgId) return known.organization;
    const organization = store.getOrganization(EVERYTHING, orgId);
    read.set(request, { orgId, organization });
    return organization;
  };
  return {
    activeOnly(verifier) {
      return {
        async verify(token, orgId, request) {
          const principal = await verifier.verify(token, orgId, request);
          if (principal === null) return null;
          // Read afresh on every call, never from the request's memo: `TokenVerifier` wants a
          // suspension to hold from the very next call, whoever reuses a context object.
          const organization = await store.getOrganization(EVERYTHING, orgId);
          if (organization === undefined) return serveUnknown ? principal : null;
          return organization.status === "suspended" ? null : principal;
        },
      };
    },
    async compatibility(orgId, request) {
      return (await organizationOf(orgId, request))?.compatibility ?? defaults.compatibility ?? "generic";
    },
    async existingUsers(orgId, request) {
      return (await organizationOf(orgId, request))?.existingUsers ?? defaults.existingUsers ?? "conflict";
    },
  };
}
