/**
 * A verifier's way of saying why it refused a token (RFC 6750 §3.1), so the HTTP layer can tell the
 * client in `WWW-Authenticate`: `invalid_token` (401) for a token that is expired, badly signed,
 * for another audience or another organization; `insufficient_scope` (403) for a valid token
 * without the scope the request needs. A verifier that only answers `null` keeps today's 401 with
 * a bare `Bearer` challenge.
 */

import type { BearerErrorCode } from "../oauth-errors.js";

/** The RFC 6750 §3.1 error codes a verifier may refuse with (src/oauth-errors.ts). */
export type TokenRefusalCode = BearerErrorCode;

/** Options of `TokenRefusedError`. */
export interface TokenRefusalOptions {
  /**
   * For `insufficient_scope`: the scope the request needs, space-separated (RFC 6750 §3, RFC 6749
   * §3.3), sent as the challenge's `scope` attribute. Absent: none is sent.
   */
  readonly scope?: string;
}

/**
 * Thrown by `TokenVerifier.verify` to refuse a token with a reason; the HTTP layer answers 401
 * (`invalid_token`) or 403 (`insufficient_scope`) with `WWW-Authenticate: Bearer realm="SCIM",
 * error="…", error_description="…"`. Any other rejection is still an infrastructure failure (500).
 *
 * The reason must depend on the token alone, never on the organization asked about: a token of
 * organization A on organization B's path is refused exactly as a token nobody issued (same code,
 * same description), so the answer says nothing about B.
 *
 * @example throw new TokenRefusedError("invalid_token", "The access token has expired.");
 * @example throw new TokenRefusedError("insufficient_scope", "The access token lacks the scope scim.", { scope: "scim" });
 */
export class TokenRefusedError extends Error {
  /** The RFC 6750 §3.1 error code. */
  readonly code: TokenRefusalCode;
  /**
   * A sentence for the client's developer, sent as `error_description` and in the error body.
   * Characters RFC 6750 §3 does not allow there (`"`, `\`, controls, non-ASCII) are replaced when
   * the header is written.
   */
  readonly description: string;
  /** See `TokenRefusalOptions.scope`. */
  readonly scope: string | undefined;

  constructor(code: TokenRefusalCode, description: string, options: TokenRefusalOptions = {}) {
    super(description);
    this.name = "TokenRefusedError";
    this.code = code;
    this.description = description;
    this.scope = options.scope;
  }
}

/** Narrows an unknown thrown value. */
export function isTokenRefusedError(value: unknown): value is TokenRefusedError {
  return value instanceof TokenRefusedError;
}
