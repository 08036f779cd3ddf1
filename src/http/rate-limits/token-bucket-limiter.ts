/**
 * `tokenBucketLimiter`: the reference `RateLimiter`, one token bucket per organization in process
 * memory. Each request takes a token; tokens refill continuously at the sustained rate up to the
 * burst. Constant work per request: one map lookup and a little arithmetic.
 */
import { RATE_ALLOWED, type RateDecision, type RateLimiter } from "../../store/rate-limiter.js";

/** Options of `tokenBucketLimiter`. */
export interface TokenBucketOptions {
  /** Sustained requests per second each organization may send. Required; a positive number. */
  readonly requestsPerSecond: number;
  /**
   * Most requests an organization may send at once after a quiet spell: the bucket's size.
   * Default: two seconds' worth (`2 × requestsPerSecond`, at least 1).
   */
  readonly burst?: number;
  /** A monotonic clock in milliseconds. Default `performance.now`. */
  readonly now?: () => number;
}

interface Bucket {
  tokens: number;
  /** `now()` when `tokens` was last brought up to date. */
  at: number;
}

/** Buckets kept before the first sweep of full ones; the threshold then follows the live count. */
const SWEEP_FLOOR = 1024;

/**
 * A per-organization token bucket in this process. With several processes behind a load
 * balancer each has its own buckets, so an organization gets up to N times the rate; share a
 * limiter (see `RateLimiter`) when that matters.
 *
 * @example
 * createScimRouter({ store, auth, rateLimit: tokenBucketLimiter({ requestsPerSecond: 50, burst: 100 }) });
 */
export function tokenBucketLimiter(options: TokenBucketOptions): RateLimiter {
  const rate = options.requestsPerSecond;
  if (!(Number.isFinite(rate) && rate > 0))
    throw new Error(`tokenBucketLimiter: requestsPerSecond must be a positive number; got ${String(rate)}.`);
  const burst = options.burst ?? Math.max(1, 2 * rate);
  if (!(Number.isFinite(burst) && burst >= 1))
    throw new Error(`tokenBucketLimiter: burst must be a number of at least 1; got ${String(options.burst)}.`);
  const now = options.now ?? (() => performance.now());
  const perMs = rate / 1000;
  const buckets = new Map<string, Bucket>();
  let sweepAt = SWEEP_FLOOR;

  // A full bucket says nothing a missing one would not: dropping those keeps the map to the
  // organizations active in the last `burst / rate` seconds. Amortized O(1) per request.
  const sweep = (at: number): void => {
    for (const [key, bucket] of buckets) if (bucket.tokens + (at - bucket.at) * perMs >= burst) buckets.delete(key);
    sweepAt = Math.max(SWEEP_FLOOR, 2 * buckets.size);
  };

  return {
    take(orgId: string): RateDecision {
      const at = now();
      let bucket = buckets.get(orgId);
      if (bucket === undefined) {
        if (buckets.size >= sweepAt) sweep(at);
        bucket = { tokens: burst, at };
        buckets.set(orgId, bucket);
      } else {
        bucket.tokens = Math.min(burst, bucket.tokens + (at - bucket.at) * perMs);
        bucket.at = at;
      }
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return RATE_ALLOWED;
      }
      // A refusal takes nothing, so retrying early does not push the next allowed time further.
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)) };
    },
  };
}
