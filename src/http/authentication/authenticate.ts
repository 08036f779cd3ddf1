/**
 * Bearer authentication (RFC 6750 §2.1, spec §5): every endpoint but `/ServiceProviderConfig`
 * needs `Authorization: Bearer <token>`, the scheme in any case. A verifier's `null` is always the
 * same 401, so a response never tells whether an organization exists or what its tokens are; a
 * verifier that refuses with a `TokenRefusedError` gets its RFC 6750 §3.1 reason sent, a reason
 * that by that error's contract depends on the token alone; one that cannot check tokens for now
 * (`TokenVerificationUnavailableError`: its authorization server is down) gets a 503 with
 * `Retry-After`, which tells nothing of the token or the organization.
 */
import type { RequestHandler } from "express";
import { isTokenRefusedError, type TokenRefusedError } from "../../auth/token-refused-error.js";
import {
  isTokenVerificationUnavailableError,
  type TokenVerificationUnavailableError,
} from "../../auth/token-verification-unavailable-error.js";
import type { TokenVerifier } from "../../auth/token-verifier.js";
import { scimError, type ScimError } from "../../errors.js";
import { asyncHandler } from "../express-helpers/async-handler.js";
import { scimContext } from "../request-context/scim-request-context.js";

const BEARER = /^\s*bearer\s+([^\s]+)\s*$/i;

function unauthorized(): ScimError {
  return scimError("unauthorized", "Authentication failed: send Authorization: Bearer <token> with a token issued for this organization.");
}

/** RFC 6750 §3.1: `invalid_token` is a 401, `insufficient_scope` a 403. */
function refused(refusal: TokenRefusedError): ScimError {
  const scope = refusal.scope === undefined ? {} : { scope: refusal.scope };
  const bearerError = { error: refusal.code, description: refusal.description, ...scope };
  return refusal.code === "insufficient_scope"
    ? scimError("forbidden", `Forbidden: ${refusal.description}`, { bearerError })
    : scimError("unauthorized", `Authentication failed: ${refusal.description}`, { bearerError });
}

/** RFC 9110 §15.6.4: the verifier cannot check tokens for now (its authorization server is down); retry later. */
function unavailable(error: TokenVerificationUnavailableError): ScimError {
  return scimError("unavailable", error.message, { retryAfter: error.retryAfterSeconds });
}

export function authenticate(verifier: TokenVerifier): RequestHandler {
  return asyncHandler(async (request, response, next) => {
    const context = scimContext(response);
    const match = BEARER.exec(request.get("authorization") ?? "");
    const token = match?.[1];
    if (!token) throw unauthorized();
    let principal: Awaited<ReturnType<TokenVerifier["verify"]>>;
    try {
      principal = await verifier.verify(token, context.orgId, {
        method: request.method,
        path: request.path,
        ...(request.ip ? { ip: request.ip } : {}),
      });
    } catch (error) {
      if (isTokenVerificationUnavailableError(error)) throw unavailable(error);
      throw isTokenRefusedError(error) ? refused(error) : error;
    }
    if (!principal || principal.orgId !== context.orgId) throw unauthorized();
    context.principal = principal;
    next();
  });
}
