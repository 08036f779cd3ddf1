/**
 * The organization's compatibility profile (architecture §4, §7.1): chosen once per request, after
 * the organization is known and before any route, from the router's `compatibility` option.
 */
import type { Request, RequestHandler } from "express";
import type { CompatibilityProfile } from "../../scim/compatibility/compatibility-profile.js";
import { COMPATIBILITY_PROFILE_NAMES } from "../../scim/compatibility/compatibility-profile-name.js";
import { COMPATIBILITY_PROFILES, compatibilityProfileNamed } from "../../scim/compatibility/compatibility-profiles.js";
import { scimContext } from "./scim-request-context.js";
import type { ScimRouterOptions } from "../scim-router-options.js";

const VALID_NAMES = COMPATIBILITY_PROFILE_NAMES.map((name) => JSON.stringify(name)).join(", ");

function isProfile(value: unknown): value is CompatibilityProfile {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<CompatibilityProfile>;
  return typeof candidate.name === "string" && typeof candidate.tolerances === "object" && typeof candidate.responses === "object";
}

/**
 * A profile, or a profile named by a built-in name, as the option or its function gives it; a
 * message naming the valid names for anything else.
 */
export function compatibilityProfileOf(value: unknown): CompatibilityProfile | string {
  if (typeof value === "string") {
    return compatibilityProfileNamed(value) ?? `no compatibility profile is named ${JSON.stringify(value)}; the names are ${VALID_NAMES}`;
  }
  if (isProfile(value)) return value;
  return `a compatibility profile is one of ${VALID_NAMES} or a CompatibilityProfile object, not ${typeof value}`;
}

/**
 * Checks a fixed `compatibility` option when the router is built (a TypeError naming the valid
 * names), and returns the middleware that puts the profile into the request's context; none for
 * `generic`, the profile a context without one has (`compatibilityOf` in `resource-service.ts`). A function is asked per
 * request; a result that is no profile is the host's mistake: a 500 through `onError`.
 */
export function resolveCompatibility(option: ScimRouterOptions["compatibility"]): RequestHandler | undefined {
  if (typeof option !== "function") {
    const fixed = compatibilityProfileOf(option ?? "generic");
    if (typeof fixed === "string") throw new TypeError(`scimkit: compatibility: ${fixed}.`);
    if (fixed === COMPATIBILITY_PROFILES.generic) return undefined;
    return (_request, response, next) => {
      scimContext(response).compatibility = fixed;
      next();
    };
  }
  return (request: Request, response, next) => {
    const context = scimContext(response);
    Promise.resolve()
      .then(() => option(context.orgId, request))
      .then((chosen) => {
        const profile = compatibilityProfileOf(chosen);
        if (typeof profile === "string") {
          throw new Error(`scimkit: the compatibility function for organization ${JSON.stringify(context.orgId)}: ${profile}.`);
        }
        context.compatibility = profile;
        next();
      })
      .catch(next);
  };
}
