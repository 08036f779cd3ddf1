/**
 * What the router knows about a request once it has resolved the organization: kept in
 * `res.locals.scim`, the Express place for per-request state.
 */
import type { Request, RequestHandler, Response } from "express";
import { scimError } from "../../errors.js";
import type { Principal } from "../../auth/token-verifier.js";
import type { CompatibilityProfile } from "../../scim/compatibility/compatibility-profile.js";
import type { ExistingUserPolicy } from "../resource-service/existing-user-policy.js";
import type { ServiceContext } from "../resource-service/resource-service.js";
import { defaultBaseUrl } from "./request-origin.js";
import type { ScimRouterOptions } from "../scim-router-options.js";
import type { WorkPermit } from "../fair-share/expensive-work-gate.js";
import { isPossibleId } from "../../is-possible-id.js";

/** Per-request state: organization, base URL and, after authentication, the principal. */
export interface ScimRequestContext extends ServiceContext {
  principal?: Principal;
  /** The organization's compatibility profile, set by `resolveCompatibility` right after the organization. */
  compatibility?: CompatibilityProfile;
  /** The organization's `existingUsers` policy, set after authentication for a POST. */
  existingUsers?: ExistingUserPolicy;
  /**
   * The fair-share permit this request took on its headers (a large body), held until its
   * response ends. Expensive work later in the same request runs under it instead of asking the
   * gate again, which at one permit per organization would wait for itself.
   */
  permit?: WorkPermit;
  /**
   * The organization's fair-share group (`FairShareOptions.group`), resolved once after
   * authentication when the router has a group function; absent: the organization is its own.
   */
  fairShareGroup?: string;
}

/** The context `resolveOrganization` stored for this request. */
export function scimContext(response: Response): ScimRequestContext {
  const context = (response.locals as { scim?: ScimRequestContext }).scim;
  if (!context) throw new Error("scimkit: the request context is missing; the router's middleware did not run.");
  return context;
}

function organizationOf(request: Request, option: ScimRouterOptions["organization"]): string | undefined {
  if (typeof option === "string") return option;
  if (typeof option === "function") return option(request);
  const fromPath = request.params["orgId"];
  return typeof fromPath === "string" ? fromPath : undefined;
}

/** Resolves the organization and the base URL before anything else runs. */
export function resolveOrganization(options: ScimRouterOptions): RequestHandler {
  return (request, response, next) => {
    const orgId = organizationOf(request, options.organization);
    if ((orgId === undefined || orgId === "") && typeof options.organization === "function") {
      // The host's function found no organization in this request: the client's problem.
      next(scimError("notFound", "No such organization."));
      return;
    }
    if (orgId === undefined || orgId === "") {
      // A host configuration mistake, not a client's: say so in the 500 report.
      next(
        new Error("scimkit: no organization for this request. Mount the router at a path with :orgId or pass the `organization` option."),
      );
      return;
    }
    // Before authentication: neither the token verifier nor a store is asked about an id that
    // names nothing, and the answer is the one any unknown organization gets.
    if (orgId.length > 256 || !isPossibleId(orgId)) {
      next(scimError("notFound", "No such organization."));
      return;
    }
    const baseUrl =
      typeof options.baseUrl === "string"
        ? options.baseUrl.replace(/\/+$/, "").replaceAll("{orgId}", encodeURIComponent(orgId))
        : typeof options.baseUrl === "function"
          ? options.baseUrl(request, orgId).replace(/\/+$/, "")
          : defaultBaseUrl(request);
    (response.locals as { scim?: ScimRequestContext }).scim = { orgId, baseUrl };
    next();
  };
}
