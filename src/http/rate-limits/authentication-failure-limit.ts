/**
 * `authenticationFailureLimit`: a bound on failed authentications (the OAuth token endpoint's wrong
 * client secrets), counted per key — a client, a source address — by a `RateLimiter`, so guessing
 * costs the guesser time and us no more than the bound. A key over the bound is refused before any
 * work is done for it, the right secret included, until its allowance has refilled.
 */
import { createHash } from "node:crypto";
import type { RateLimiter } from "../../store/rate-limiter.js";

/** Keys remembered as refused in this process at most; the oldest refusal is forgotten first. */
const MAX_REFUSED_KEYS = 10_000;

/** Counts failures by key and says which keys must wait. */
export interface AuthenticationFailureLimit {
  /** Whole seconds the most refused of `keys` must still wait, or undefined when none must: ask before the work. */
  waitFor(keys: readonly string[]): number | undefined;
  /** Counts one failure of each of `keys`; resolves with the seconds to wait when that went over the bound. */
  fail(keys: readonly string[]): Promise<number | undefined>;
}

/**
 * A fixed-size key for `parts`, whatever they hold (an organization id and a client id of up to a
 * form's size): 128 bits of SHA-256, so neither the map here nor a shared limiter's table grows
 * with what a client sends.
 */
export function failureKey(kind: string, ...parts: readonly string[]): string {
  return `${kind}:${createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 22)}`;
}

/**
 * The part of source address `ip` a client is counted by: the address itself, but for IPv6 its
 * /64 — one subscriber's network is a /64 at least (RFC 6177 §2, RFC 4291 §2.5.4 interface ids),
 * so counting each of its 2^64 addresses apart would bound nothing.
 *
 * @example sourceOf("2001:db8:1:2:aaaa::7") // "2001:db8:1:2::/64"
 */
export function sourceOf(ip: string): string {
  const address = ip.split("%")[0] ?? "";
  // IPv4, and IPv4 as Node reports it on a dual-stack socket (::ffff:a.b.c.d), stay whole.
  if (!address.includes(":") || /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address)) return address;
  const halves = address.split("::");
  if (halves.length > 2) return address;
  const groupsOf = (part: string | undefined): string[] => (part === undefined || part === "" ? [] : part.split(":"));
  const head = groupsOf(halves[0]);
  const tail = groupsOf(halves[1]);
  // An embedded IPv4 address (RFC 4291 §2.2) stands for the last two groups.
  const width = (groups: readonly string[]) => groups.reduce((sum, group) => sum + (group.includes(".") ? 2 : 1), 0);
  const zeros = halves.length === 2 ? Math.max(0, 8 - width(head) - width(tail)) : 0;
  const groups = [...head, ...Array.from({ length: zeros }, () => "0"), ...tail].slice(0, 4);
  if (groups.some((group) => !/^[0-9a-f]{1,4}$/i.test(group))) return address;
  return `${groups.map((group) => Number.parseInt(group, 16).toString(16)).join(":")}::/64`;
}

/**
 * Failures counted by `limiter` (each failure takes one of a key's allowance; a refusal is the
 * bound reached), with the keys it refused remembered here until their `Retry-After` so the next
 * attempt is refused without being tried. The memory held is at most `MAX_REFUSED_KEYS` refusals
 * plus whatever `limiter` keeps (the token bucket keeps keys that failed within the last refill).
 *
 * @example
 * const failures = authenticationFailureLimit(tokenBucketLimiter({ requestsPerSecond: 10 / 60, burst: 10 }));
 */
export function authenticationFailureLimit(limiter: RateLimiter, now: () => number = Date.now): AuthenticationFailureLimit {
  const refusedUntil = new Map<string, number>();

  const remember = (key: string, until: number): void => {
    refusedUntil.delete(key);
    if (refusedUntil.size >= MAX_REFUSED_KEYS) {
      const at = now();
      for (const [other, end] of refusedUntil) if (end <= at) refusedUntil.delete(other);
      // Still full: forgetting the oldest refusal lets that key be tried once more, then refused again.
      const oldest = refusedUntil.keys().next();
      if (refusedUntil.size >= MAX_REFUSED_KEYS && oldest.done !== true) refusedUntil.delete(oldest.value);
    }
    refusedUntil.set(key, until);
  };

  return {
    waitFor(keys) {
      const at = now();
      let wait: number | undefined;
      for (const key of keys) {
        const until = refusedUntil.get(key);
        if (until === undefined) continue;
        if (until <= at) refusedUntil.delete(key);
        else wait = Math.max(wait ?? 0, Math.ceil((until - at) / 1000));
      }
      return wait;
    },
    async fail(keys) {
      let wait: number | undefined;
      for (const key of keys) {
        const decision = await limiter.take(key);
        if (decision.allowed) continue;
        // RFC 9110 §10.2.3: Retry-After is a whole number of seconds; a custom limiter's figure is sanitized.
        const seconds = Number.isFinite(decision.retryAfterSeconds) ? Math.max(1, Math.ceil(decision.retryAfterSeconds)) : 1;
        remember(key, now() + seconds * 1000);
        wait = Math.max(wait ?? 0, seconds);
      }
      return wait;
    },
  };
}
