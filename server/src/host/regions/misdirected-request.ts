/**
 * The wrong region answers precisely (issue 30, point 3): a SCIM or OAuth request for an
 * organization homed in another region is answered 421 Misdirected Request, with a SCIM error
 * whose `detail` names the base URL the identity provider must use, before anything else runs —
 * no token is checked (this region holds none of that organization's, and asks no other), and no
 * data is read or written: the answer comes from the in-memory directory.
 *
 * Why 421 and not 404 (RFC 9110 §15.5.20: "the request was directed at a server that is unable or
 * unwilling to produce an authoritative response for the target URI"): to Entra ID and Okta a 404
 * on `GET /Users/{id}` means the user is gone, and they create it again — here, in the wrong
 * region, or they mark it deprovisioned. 421 is an error they surface to the admin, which is
 * what a tenant URL pointing at the wrong region needs; it is not cached (RFC 9110 §15.5.20) and
 * says nothing a 404 would not (organization ids are the path an admin configures, not secrets),
 * except which region holds the organization.
 */
import type { RequestHandler } from "express";
import { ScimError } from "scimkit/core";
import type { RegionDirectoryEntry } from "@scimkit/server";
import type { RegionDirectory } from "./region-directory.js";

/** The 421 for `entry`'s organization, homed in `entry.homeRegion`, reached at this host, counted. */
export function misdirectedError(
  directory: RegionDirectory,
  entry: Pick<RegionDirectoryEntry, "id" | "homeRegion">,
  surface: "scim" | "oauth",
): ScimError {
  directory.countMisdirected(entry);
  const scimUrl = directory.scimBaseUrl(entry.homeRegion, entry.id);
  const where =
    surface === "scim"
      ? `its SCIM base URL is ${scimUrl}. Change the tenant URL in the identity provider's provisioning settings to it`
      : `its token endpoint is ${directory.baseUrls[entry.homeRegion] ?? ""}/oauth/Organizations/${encodeURIComponent(entry.id)}/token (SCIM base URL ${scimUrl}). Change the identity provider's token URL to it`;
  return new ScimError(
    421,
    undefined,
    `Organization ${entry.id} is hosted in region ${entry.homeRegion}, not ${directory.self}: ${where}; the credentials stay the same.`,
  );
}

/**
 * Middleware for `/scim/Organizations/:orgId` and `/oauth/Organizations/:orgId`: 421 for an
 * organization homed elsewhere, unless `servedHere` says it moved in since the replica was read.
 */
export function misdirectedRequest(
  directory: RegionDirectory,
  surface: "scim" | "oauth",
  servedHere: (orgId: string) => boolean = () => false,
): RequestHandler {
  return (request, _response, next) => {
    const orgId: unknown = request.params["orgId"];
    const entry = typeof orgId === "string" && !servedHere(orgId) ? directory.homeElsewhere(orgId) : undefined;
    if (entry === undefined) {
      next();
      return;
    }
    next(misdirectedError(directory, entry, surface));
  };
}
