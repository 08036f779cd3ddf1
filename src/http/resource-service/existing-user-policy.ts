/**
 * What `POST /Users` does for a user who already exists (`ScimRouterOptions.existingUsers`): the
 * policy and the router option choosing it. Types only, so the options, the request context and
 * the resource service name the policy without importing the code that reads the option
 * (`resolve-existing-users.ts`) or applies the policy (`link-existing-user.ts`), which import them.
 */
import type { Request } from "express";

/** What a POST of an existing user does: answer 409 `uniqueness`, or update and return that user. */
export type ExistingUserPolicy = "conflict" | "link";

/**
 * The router option: one policy for every organization, or a function choosing per organization
 * (it may read the organization's record: asked once per POST, after authentication).
 */
export type ExistingUsersOption =
  | ExistingUserPolicy
  | ((orgId: string, request: Request) => ExistingUserPolicy | Promise<ExistingUserPolicy>);
