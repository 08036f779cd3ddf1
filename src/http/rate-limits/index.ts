/**
 * `scimkit/rate-limit` (docs/security.md "Limits"): the router's `rateLimit` and the same limits
 * on routes of your own. A `RateLimiter` decides per key; `tokenBucketLimiter` is the in-process
 * one, `sqlRateLimiter` (`scimkit/sql`) counts in the store's database for every process at once.
 * `rateLimitStep` is the Express step the router uses, for an API of yours beside SCIM sharing a
 * limiter: it counts each request by the key you read from it and passes your own error on.
 */
export { RATE_ALLOWED } from "../../store/rate-limiter.js";
export type { RateAllowed, RateDecision, RateLimiter, RateRefused } from "../../store/rate-limiter.js";
export { tokenBucketLimiter } from "./token-bucket-limiter.js";
export type { TokenBucketOptions } from "./token-bucket-limiter.js";
export { rateLimitStep } from "./limit-rate.js";
export type { RateLimitStepOptions } from "./limit-rate.js";
