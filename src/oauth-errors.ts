/**
 * The registry of scimkit's OAuth 2.0 errors: `OAUTH_ERRORS` names every error code the library
 * answers with and its HTTP status — those of the token endpoint (RFC 6749 §5.2), rendered by
 * `oauthErrorHandler` and `oauthPathErrorHandler` (src/http/oauth/oauth-error.ts) as
 * `{"error", "error_description"}`, and those of a refused bearer token (RFC 6750 §3.1), sent in
 * the `WWW-Authenticate` challenge of a SCIM error (src/http/authentication/bearer-challenge.ts).
 * `OAuthError` carries a token endpoint's refusal; `oauthError` builds one by its code, and nothing
 * else constructs it (test/error-registries.test.ts holds the library to that).
 *
 * One error of this format is not built here: `TokenRefusedError` (src/auth/token-refused-error.ts),
 * a public class a `TokenVerifier` throws to refuse a token with an RFC 6750 code of this registry.
 * It never reaches a wire as itself: the SCIM router answers it as its `unauthorized` or
 * `forbidden` error with the code in `WWW-Authenticate`, the token endpoint as `invalid_client`.
 */

/** An OAuth error of the registry: the HTTP status it is answered with. */
export interface OAuthErrorDefinition {
  readonly status: number;
}

const definitions = {
  /**
   * RFC 6749 §5.2 (and RFC 6750 §3.1): a parameter missing, repeated or malformed, or credentials
   * sent two ways. 400; a body that could not be read keeps its own status (413, 415), a method
   * other than POST is 405.
   */
  invalid_request: { status: 400 },
  /** RFC 6749 §5.2: client authentication failed; 401 with a `Basic` challenge (§2.3.1). */
  invalid_client: { status: 401 },
  /** RFC 6749 §5.2: a grant other than client_credentials. */
  unsupported_grant_type: { status: 400 },
  /** RFC 6749 §5.2: a scope the endpoint does not grant. */
  invalid_scope: { status: 400 },
  /**
   * RFC 8628 §3.5, registered for the token endpoint in the IANA OAuth Extensions Error registry:
   * a client over the bound on failed authentications (§5.2 has no code for "too many attempts");
   * 429 with `Retry-After` (RFC 6585 §4).
   */
  slow_down: { status: 429 },
  /** RFC 6749 §4.1.2.1's code for an unexpected failure; its cause goes to `onError`, never to the client. */
  server_error: { status: 500 },
  /** RFC 6750 §3.1: the access token is expired, revoked, malformed or for another audience. */
  invalid_token: { status: 401 },
  /** RFC 6750 §3.1: the access token lacks the scope the request needs. */
  insufficient_scope: { status: 403 },
} as const satisfies Record<string, OAuthErrorDefinition>;

/** An error code of the registry. */
export type OAuthErrorName = keyof typeof definitions;

/** Every OAuth error scimkit answers with, by its code: the one place to find them. */
export const OAUTH_ERRORS: Readonly<Record<OAuthErrorName, OAuthErrorDefinition>> = definitions;

/** The codes of a refused bearer token (RFC 6750 §3.1), sent in `WWW-Authenticate`. */
export type BearerErrorCode = "invalid_token" | "insufficient_scope";

/** The codes the token endpoint answers with in its body (RFC 6749 §5.2). */
export type OAuthErrorCode = Exclude<OAuthErrorName, BearerErrorCode>;

/** A refused token request: the RFC 6749 §5.2 code, the HTTP status and a sentence for the client's developer. */
export class OAuthError extends Error {
  readonly status: number;
  readonly code: OAuthErrorCode;
  readonly description: string;
  /** Whole seconds to wait before retrying, sent as `Retry-After`; with 429 `slow_down`. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, code: OAuthErrorCode, description: string, retryAfterSeconds?: number) {
    super(description);
    this.name = "OAuthError";
    this.status = status;
    this.code = code;
    this.description = description;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** What `oauthError` takes besides the code and the description. */
export interface OAuthErrorOptions {
  /** Another status than the registry's: for `invalid_request`, the 405, 413 or 415 of a request not read. */
  readonly status?: number;
  /** Whole seconds for `Retry-After`; with `slow_down`. */
  readonly retryAfterSeconds?: number;
}

/**
 * The token endpoint's error `code`, with `description` for the client's developer (sent as
 * `error_description`: it must tell nothing of which part of a client's credentials was wrong).
 *
 * @example throw oauthError("invalid_scope", 'The only scope granted is "scim".')
 */
export function oauthError(code: OAuthErrorCode, description: string, options: OAuthErrorOptions = {}): OAuthError {
  return new OAuthError(options.status ?? OAUTH_ERRORS[code].status, code, description, options.retryAfterSeconds);
}
