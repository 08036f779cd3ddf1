/**
 * A verifier's way of saying it cannot decide about any token for now — the authorization server
 * whose keys it checks signatures against is unreachable and it holds no key for this token — so
 * the HTTP layer answers 503 with `Retry-After` (RFC 9110 §15.6.4) rather than blaming the token
 * (401) or reporting a failure of the service (500).
 */

/** Thrown by `TokenVerifier.verify` when the token cannot be checked for now; the HTTP layer answers 503. */
export class TokenVerificationUnavailableError extends Error {
  /** Whole seconds, at least 1, after which the verifier will try again: sent as `Retry-After`. */
  readonly retryAfterSeconds: number;

  constructor(description: string, retryAfterSeconds: number, options?: ErrorOptions) {
    super(description, options);
    this.name = "TokenVerificationUnavailableError";
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterSeconds));
  }
}

/** Narrows an unknown thrown value. */
export function isTokenVerificationUnavailableError(value: unknown): value is TokenVerificationUnavailableError {
  return value instanceof TokenVerificationUnavailableError;
}
