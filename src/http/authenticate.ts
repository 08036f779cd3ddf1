/**
 * Bearer authentication (RFC 6750 §2.1, spec §5): every endpoint but `/ServiceProviderConfig`
 * needs `Authorization: Bearer <token>`, the scheme in any case. Every failure is the same 401, so
 * a response never tells whether an organization exists or what its tokens are.
 */
import type { RequestHandler } from "express";
import { ScimError } from "../errors.js";
import type { TokenVerifier } from "../auth/token-verifier.js";
import { asyncHandler } from "./async-handler.js";
import { scimContext } from "./scim-request-context.js";

const BEARER = /^\s*bearer\s+([^\s]+)\s*$/i;

function unauthorized(): ScimError {
  return new ScimError(
    401,
    undefined,
    "Authentication failed: send Authorization: Bearer <token> with a token issued for this organization.",
  );
}

export function authenticate(verifier: TokenVerifier): RequestHandler {
  return asyncHandler(async (request, response, next) => {
    const context = scimContext(response);
    const match = BEARER.exec(request.get("authorization") ?? "");
    const token = match?.[1];
    if (!token) throw unauthorized();
    const principal = await verifier.verify(token, context.orgId, {
      method: request.method,
      path: request.path,
      ...(request.ip ? { ip: request.ip } : {}),
    });
    if (!principal || principal.orgId !== context.orgId) throw unauthorized();
    context.principal = principal;
    next();
  });
}
