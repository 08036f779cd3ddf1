import { describe, expect, it } from "vitest";
import { authenticationFailureLimit, failureKey, sourceOf } from "./authentication-failure-limit.js";
import { RATE_ALLOWED, type RateLimiter } from "../../store/rate-limiter.js";
import { tokenBucketLimiter } from "./token-bucket-limiter.js";

describe("authenticationFailureLimit", () => {
  it("refuses a key once its limiter refused a failure, until Retry-After, and other keys meanwhile not", async () => {
    let at = 0;
    const failures = authenticationFailureLimit(tokenBucketLimiter({ requestsPerSecond: 10 / 60, burst: 10, now: () => at }), () => at);
    for (let attempt = 0; attempt < 10; attempt++) {
      expect(failures.waitFor(["a", "b"])).toBeUndefined();
      expect(await failures.fail(["a"])).toBeUndefined();
    }
    expect(await failures.fail(["a", "b"])).toBe(6);
    expect(failures.waitFor(["b"])).toBeUndefined();
    expect(failures.waitFor(["b", "a"])).toBe(6);
    at = 5_500;
    expect(failures.waitFor(["a"])).toBe(1);
    at = 6_000;
    expect(failures.waitFor(["a"])).toBeUndefined();
  });

  it("remembers at most 10,000 refused keys, forgetting the oldest first", async () => {
    const refuseAll: RateLimiter = { take: () => ({ allowed: false, retryAfterSeconds: 60 }) };
    const failures = authenticationFailureLimit(refuseAll, () => 0);
    for (let key = 0; key < 10_050; key++) expect(await failures.fail([`key-${key}`])).toBe(60);
    // The first 50 were forgotten: each may be tried once more, then is refused again.
    expect(failures.waitFor(["key-0"])).toBeUndefined();
    expect(failures.waitFor(["key-49"])).toBeUndefined();
    expect(failures.waitFor(["key-50"])).toBe(60);
    expect(failures.waitFor(["key-10049"])).toBe(60);
  });

  it("sanitizes a custom limiter's Retry-After to whole seconds of at least 1", async () => {
    const odd: RateLimiter = {
      take: (key) => (key === "ok" ? RATE_ALLOWED : { allowed: false, retryAfterSeconds: key === "nan" ? Number.NaN : 0.2 }),
    };
    const failures = authenticationFailureLimit(odd, () => 0);
    expect(await failures.fail(["ok"])).toBeUndefined();
    expect(await failures.fail(["nan"])).toBe(1);
    expect(await failures.fail(["fraction"])).toBe(1);
  });
});

describe("failureKey and sourceOf", () => {
  it("makes fixed-size keys that keep the parts apart", () => {
    const long = failureKey("client", "acme", "x".repeat(8000));
    expect(long).toMatch(/^client:[A-Za-z0-9_-]{22}$/);
    expect(failureKey("client", "a:b", "c")).not.toBe(failureKey("client", "a", "b:c"));
    expect(failureKey("client", "acme", "1")).toBe(failureKey("client", "acme", "1"));
  });

  it("counts an IPv6 client by its /64 and an IPv4 one by its address", () => {
    expect(sourceOf("2001:db8:1:2:aaaa::7")).toBe("2001:db8:1:2::/64");
    expect(sourceOf("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(sourceOf("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(sourceOf("::1")).toBe("0:0:0:0::/64");
    expect(sourceOf("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(sourceOf("64:ff9b::192.0.2.1")).toBe("64:ff9b:0:0::/64");
    expect(sourceOf("192.0.2.1")).toBe("192.0.2.1");
    expect(sourceOf("::ffff:192.0.2.1")).toBe("::ffff:192.0.2.1");
    expect(sourceOf("")).toBe("");
  });
});
