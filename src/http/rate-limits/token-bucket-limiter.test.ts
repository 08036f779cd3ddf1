import { describe, expect, it } from "vitest";
import { RATE_ALLOWED } from "../../store/rate-limiter.js";
import { tokenBucketLimiter } from "./token-bucket-limiter.js";

/** A settable monotonic clock in milliseconds. */
function clock(): { readonly now: () => number; advance(ms: number): void } {
  let time = 1_000;
  return { now: () => time, advance: (ms) => void (time += ms) };
}

function takeMany(limiter: ReturnType<typeof tokenBucketLimiter>, orgId: string, count: number): boolean[] {
  return Array.from({ length: count }, () => {
    const decision = limiter.take(orgId);
    if (decision instanceof Promise) throw new Error("the in-memory limiter answers synchronously");
    return decision.allowed;
  });
}

describe("tokenBucketLimiter", () => {
  it("allows a burst, then refuses with the seconds until the next token", () => {
    const time = clock();
    const limiter = tokenBucketLimiter({ requestsPerSecond: 2, burst: 5, now: time.now });
    expect(takeMany(limiter, "acme", 5)).toEqual([true, true, true, true, true]);
    // Empty: the next token is half a second away, which Retry-After rounds up to 1.
    expect(limiter.take("acme")).toEqual({ allowed: false, retryAfterSeconds: 1 });
    time.advance(500);
    expect(takeMany(limiter, "acme", 2)).toEqual([true, false]);
  });

  it("returns the shared allowed decision, allocating nothing on the allowed path", () => {
    const limiter = tokenBucketLimiter({ requestsPerSecond: 10, now: clock().now });
    expect(limiter.take("acme")).toBe(RATE_ALLOWED);
  });

  it("refills at the sustained rate up to the burst, not beyond", () => {
    const time = clock();
    const limiter = tokenBucketLimiter({ requestsPerSecond: 10, burst: 3, now: time.now });
    takeMany(limiter, "acme", 3);
    time.advance(60_000);
    expect(takeMany(limiter, "acme", 4)).toEqual([true, true, true, false]);
    time.advance(100);
    expect(takeMany(limiter, "acme", 2)).toEqual([true, false]);
  });

  it("does not charge refusals: a client retrying too early is not pushed further out", () => {
    const time = clock();
    const limiter = tokenBucketLimiter({ requestsPerSecond: 0.25, burst: 1, now: time.now });
    expect(takeMany(limiter, "acme", 1)).toEqual([true]);
    expect(limiter.take("acme")).toEqual({ allowed: false, retryAfterSeconds: 4 });
    for (let i = 0; i < 100; i += 1) limiter.take("acme");
    time.advance(3_000);
    expect(limiter.take("acme")).toEqual({ allowed: false, retryAfterSeconds: 1 });
    time.advance(1_000);
    expect(limiter.take("acme")).toBe(RATE_ALLOWED);
  });

  it("keeps one bucket per organization", () => {
    const time = clock();
    const limiter = tokenBucketLimiter({ requestsPerSecond: 1, burst: 2, now: time.now });
    expect(takeMany(limiter, "acme", 3)).toEqual([true, true, false]);
    expect(takeMany(limiter, "globex", 2)).toEqual([true, true]);
    // Names are plain keys, prototype names included.
    expect(takeMany(limiter, "__proto__", 3)).toEqual([true, true, false]);
    expect(takeMany(limiter, "constructor", 1)).toEqual([true]);
  });

  it("defaults the burst to two seconds' worth", () => {
    const limiter = tokenBucketLimiter({ requestsPerSecond: 3, now: clock().now });
    expect(takeMany(limiter, "acme", 7)).toEqual([true, true, true, true, true, true, false]);
  });

  it("forgets organizations whose bucket has refilled, and still limits the active ones", () => {
    const time = clock();
    const limiter = tokenBucketLimiter({ requestsPerSecond: 1, burst: 1, now: time.now });
    expect(takeMany(limiter, "busy", 2)).toEqual([true, false]);
    // 5,000 organizations come and go; the sweeps along the way must not drop "busy"'s empty bucket.
    for (let i = 0; i < 5_000; i += 1) limiter.take(`org-${i}`);
    expect(takeMany(limiter, "busy", 1)).toEqual([false]);
    time.advance(1_000);
    // Every bucket refilled: a sweep may drop them all, and an organization starts full again.
    for (let i = 0; i < 5_000; i += 1) limiter.take(`later-${i}`);
    expect(takeMany(limiter, "busy", 2)).toEqual([true, false]);
  });

  it("rejects a rate or burst that cannot limit", () => {
    expect(() => tokenBucketLimiter({ requestsPerSecond: 0 })).toThrow(/requestsPerSecond must be a positive number/);
    expect(() => tokenBucketLimiter({ requestsPerSecond: Number.NaN })).toThrow(/requestsPerSecond/);
    expect(() => tokenBucketLimiter({ requestsPerSecond: Infinity })).toThrow(/requestsPerSecond/);
    expect(() => tokenBucketLimiter({ requestsPerSecond: 5, burst: 0.5 })).toThrow(/burst must be a number of at least 1/);
  });
});
