/**
 * `limitAnalyticsRate`: the analytics router's use of a `RateLimiter`, one allowance per API key.
 * An admin user's key spans organizations and the operator's spans all, so an organization is no
 * key to count by here; the caller's key is.
 */
import type { RequestHandler } from "express";
import type { RateDecision, RateLimiter } from "../http/rate-limiter.js";
import { rateLimited } from "./analytics-problem.js";
import type { ApiKeyCaller } from "./api-keys.js";

/**
 * The step after authentication that asks `limiter` about the caller's key id (`ApiKeyCaller.keyId`)
 * and refuses with a 429 `rate-limited` problem and `Retry-After` when it says no. Public
 * operations have no key and never reach it. A limiter that throws or rejects fails the request
 * with 500 through the router's error handler, as the `RateLimiter` contract says.
 */
export function limitAnalyticsRate(limiter: RateLimiter): RequestHandler {
  const decide = (decision: RateDecision, next: (error?: unknown) => void): void => {
    if (decision.allowed) next();
    else next(rateLimited(decision.retryAfterSeconds));
  };
  return (_request, response, next) => {
    const caller = (response.locals as { analyticsCaller?: ApiKeyCaller }).analyticsCaller;
    if (caller === undefined) {
      next();
      return;
    }
    let decision: RateDecision | Promise<RateDecision>;
    try {
      decision = limiter.take(caller.keyId);
    } catch (error) {
      next(error);
      return;
    }
    // A local limiter answers synchronously: no promise on the hot path.
    if ("then" in decision) void decision.then((settled) => decide(settled, next), next);
    else decide(decision, next);
  };
}
