/**
 * The rate-limiting extension point: whether one more request of an organization may proceed
 * now. scimkit ships `tokenBucketLimiter()` (in process memory); a host running several processes
 * implements this over a shared counter (Redis, its database) so the limit holds across them.
 * The contract sits with the store's because `sqlRateLimiter` implements it over the store's
 * database, and the store imports nothing of the HTTP layer that asks it.
 */

/** A request may proceed. One shared value, so the allowed path allocates nothing. */
export interface RateAllowed {
  readonly allowed: true;
}

/** A request is refused; the router answers 429 with `Retry-After`. */
export interface RateRefused {
  readonly allowed: false;
  /**
   * Whole seconds until a request of this organization would be allowed again: the
   * `Retry-After` value (RFC 9110 §10.2.3). At least 1.
   */
  readonly retryAfterSeconds: number;
}

/** The answer of `RateLimiter.take`. */
export type RateDecision = RateAllowed | RateRefused;

/** The decision that lets a request through; limiters may return it rather than allocate. */
export const RATE_ALLOWED: RateAllowed = Object.freeze({ allowed: true });

/**
 * Counts the requests of each organization and refuses those over its rate. The router asks once
 * per authenticated request (after authentication, so a client without a valid token cannot
 * spend an organization's allowance), keyed by the organization id.
 *
 * @example
 * // A limiter shared by every process, over a counter service of the host's.
 * const shared: RateLimiter = {
 *   async take(orgId) {
 *     const { ok, waitMs } = await counters.consume(`scim:${orgId}`, 1);
 *     return ok ? RATE_ALLOWED : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
 *   },
 * };
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth, rateLimit: shared }));
 */
export interface RateLimiter {
  /**
   * Counts one request of `orgId` and says whether it may proceed.
   *
   * Contract:
   * - Called on every authenticated request, so it sits on the hot path: answer synchronously
   *   when the state is local (no promise to allocate); return a promise only when it is not.
   * - A refusal must not consume allowance: a client that keeps retrying too early is refused
   *   again, without pushing its own `Retry-After` further out.
   * - Reject (or throw) only for infrastructure failures; the request then fails with 500 and
   *   the error goes to `onError`. A host that prefers to fail open catches inside `take`.
   *
   * @param orgId The organization of the request, as the router resolved it.
   * @returns `RATE_ALLOWED` (or any `{ allowed: true }`), or a refusal with the seconds to wait.
   */
  take(orgId: string): RateDecision | Promise<RateDecision>;
}
