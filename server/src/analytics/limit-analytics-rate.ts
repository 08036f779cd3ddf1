/**
 * `limitAnalyticsRate`: the analytics router's use of a `RateLimiter`, one allowance per API key.
 * An admin user's key spans organizations and the operator's spans all, so an organization is no
 * key to count by here; the caller's key is.
 */
import type { RequestHandler } from "express";
import { rateLimitStep, type RateLimiter } from "scimkit/rate-limit";
import { rateLimited } from "./analytics-problem.js";
import type { ApiKeyCaller } from "./api-keys.js";

/**
 * The step after authentication that asks `limiter` about the caller's key id (`ApiKeyCaller.keyId`)
 * and refuses with a 429 `rate-limited` problem and `Retry-After` when it says no. Public
 * operations have no key and never reach it. A limiter that throws or rejects fails the request
 * with 500 through the router's error handler, as the `RateLimiter` contract says.
 */
export function limitAnalyticsRate(limiter: RateLimiter): RequestHandler {
  return rateLimitStep(limiter, {
    keyOf: (response) => (response.locals as { analyticsCaller?: ApiKeyCaller }).analyticsCaller?.keyId,
    refuse: (decision) => rateLimited(decision.retryAfterSeconds),
  });
}
