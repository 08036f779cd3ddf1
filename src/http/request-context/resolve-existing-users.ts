/**
 * The organization's `existingUsers` policy (`ScimRouterOptions.existingUsers`, applied by
 * `link-existing-user.ts`): the option checked when the router is built, and put into the
 * request's context after authentication, for a POST only.
 */
import type { Request, RequestHandler } from "express";
import type { ExistingUserPolicy, ExistingUsersOption } from "../resource-service/existing-user-policy.js";
import { scimContext } from "./scim-request-context.js";

const POLICIES: ReadonlySet<string> = new Set(["conflict", "link"]);

/** Whether `value` is a valid `existingUsers` option, for the router to check when it is built. */
export function isExistingUsersOption(value: unknown): value is ExistingUsersOption {
  return typeof value === "function" || (typeof value === "string" && POLICIES.has(value));
}

/**
 * The policy of `option` for organization `orgId`. A function that answers anything else is the
 * host's bug: thrown as a plain `Error` (a 500 reported to `onError`), never guessed at.
 */
export async function existingUsersOf(option: ExistingUsersOption, orgId: string, request: Request): Promise<ExistingUserPolicy> {
  const policy = typeof option === "function" ? await option(orgId, request) : option;
  if (!POLICIES.has(policy))
    throw new Error(`existingUsers answered ${JSON.stringify(policy)} for ${orgId}; expected "conflict" or "link"`);
  return policy;
}

/**
 * The step that puts the organization's policy into the request's context, for a POST only (a
 * resource's or `/Bulk`'s: the only requests that create users); undefined for `"conflict"`, the
 * policy a context without one has. A fixed policy is set without waiting on anything.
 */
export function resolveExistingUsers(option: ExistingUsersOption): RequestHandler | undefined {
  if (option === "conflict") return undefined;
  if (typeof option !== "function") {
    return (request, response, next) => {
      if (request.method === "POST") scimContext(response).existingUsers = option;
      next();
    };
  }
  return (request, response, next) => {
    if (request.method !== "POST") return next();
    const context = scimContext(response);
    existingUsersOf(option, context.orgId, request)
      .then((policy) => {
        context.existingUsers = policy;
        next();
      })
      .catch(next);
  };
}
