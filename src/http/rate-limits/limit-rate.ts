/**
 * The middleware that applies a `RateLimiter` to each authenticated request: over the rate is a
 * 429 SCIM error with `Retry-After` (RFC 6585 §4). RFC 7644 §3.12 has no `scimType` for it, so
 * the error has none. The step itself (`rateLimitStep`) is shared with any API beside SCIM — the
 * analytics router counts by API key and answers with its own problem.
 */
import type { NextFunction, RequestHandler, Response } from "express";
import { scimError, type ScimError } from "../../errors.js";
import type { RateDecision, RateLimiter, RateRefused } from "../../store/rate-limiter.js";
import { scimContext } from "../request-context/scim-request-context.js";

function isPending(decision: RateDecision | Promise<RateDecision>): decision is Promise<RateDecision> {
  return typeof (decision as Partial<PromiseLike<RateDecision>>).then === "function";
}

/** How `rateLimitStep` applies a limiter. */
export interface RateLimitStepOptions {
  /**
   * The key to count the request by, read from the response's locals (set by the authentication
   * before it): an organization id, an API key id. `undefined` lets the request through uncounted
   * (a public route).
   */
  readonly keyOf: (response: Response) => string | undefined;
  /** The error to pass to the router's error handler for a refused request, in the API's own format. */
  readonly refuse: (decision: RateRefused) => unknown;
}

/**
 * An Express step that asks `limiter` about each request's key and passes `refuse(decision)` on
 * when it says no. A limiter that throws or rejects fails the request through the error handler,
 * as the `RateLimiter` contract says. For an API of the host's beside SCIM, sharing a limiter.
 *
 * @example
 * router.use(authenticate, rateLimitStep(limiter, { keyOf: (response) => response.locals.user?.id, refuse: () => createError(429) }));
 */
export function rateLimitStep(limiter: RateLimiter, options: RateLimitStepOptions): RequestHandler {
  const settle = (decision: RateDecision, next: NextFunction): void => {
    if (decision.allowed) next();
    else next(options.refuse(decision));
  };
  return (_request, response, next) => {
    const key = options.keyOf(response);
    if (key === undefined) {
      next();
      return;
    }
    let decision: RateDecision | Promise<RateDecision>;
    try {
      decision = limiter.take(key);
    } catch (error) {
      next(error);
      return;
    }
    // The reference limiter answers synchronously: no promise, no extra tick on the hot path.
    if (isPending(decision)) Promise.resolve(decision).then((settled) => settle(settled, next), next);
    else settle(decision, next);
  };
}

/** The 429 of a refused SCIM request. */
function tooManyRequests(decision: RateRefused): ScimError {
  // A custom limiter's figure is sanitized: Retry-After is a whole number of seconds (RFC 9110 §10.2.3).
  const seconds = Number.isFinite(decision.retryAfterSeconds) ? Math.max(1, Math.ceil(decision.retryAfterSeconds)) : 1;
  return scimError(
    "tooManyRequests",
    `Too many requests for this organization; retry after ${seconds} second${seconds === 1 ? "" : "s"}.`,
    {
      retryAfter: seconds,
    },
  );
}

/** Counts the request against its organization's rate; mount after `authenticate`. */
export function limitRate(limiter: RateLimiter): RequestHandler {
  return rateLimitStep(limiter, { keyOf: (response) => scimContext(response).orgId, refuse: tooManyRequests });
}
