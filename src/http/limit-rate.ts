/**
 * The middleware that applies a `RateLimiter` to each authenticated request: over the rate is a
 * 429 SCIM error with `Retry-After` (RFC 6585 §4). RFC 7644 §3.12 has no `scimType` for it, so
 * the error has none.
 */
import type { NextFunction, RequestHandler, Response } from "express";
import { ScimError } from "../errors.js";
import type { RateDecision, RateLimiter } from "./rate-limiter.js";
import { scimContext } from "./scim-request-context.js";

function isPending(decision: RateDecision | Promise<RateDecision>): decision is Promise<RateDecision> {
  return typeof (decision as Partial<PromiseLike<RateDecision>>).then === "function";
}

function settle(decision: RateDecision, next: NextFunction): void {
  if (decision.allowed) {
    next();
    return;
  }
  // A custom limiter's figure is sanitized: Retry-After is a whole number of seconds (RFC 9110 §10.2.3).
  const seconds = Number.isFinite(decision.retryAfterSeconds) ? Math.max(1, Math.ceil(decision.retryAfterSeconds)) : 1;
  next(
    new ScimError(429, undefined, `Too many requests for this organization; retry after ${seconds} second${seconds === 1 ? "" : "s"}.`, [], {
      retryAfter: seconds,
    }),
  );
}

/** Counts the request against its organization's rate; mount after `authenticate`. */
export function limitRate(limiter: RateLimiter): RequestHandler {
  return (_request, response: Response, next) => {
    let decision: RateDecision | Promise<RateDecision>;
    try {
      decision = limiter.take(scimContext(response).orgId);
    } catch (error) {
      next(error);
      return;
    }
    // The reference limiter answers synchronously: no promise, no extra tick on the hot path.
    if (isPending(decision)) Promise.resolve(decision).then((settled) => settle(settled, next), next);
    else settle(decision, next);
  };
}
