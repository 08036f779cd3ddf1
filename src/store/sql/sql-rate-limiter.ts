/**
 * `sqlRateLimiter`: a `RateLimiter` whose token buckets live in the store's database
 * (`scimkit_rate_buckets`), so every host on one database enforces one limit per organization
 * (issue 19). A host does not write per request: it leases a few tokens at a time from the
 * shared bucket and spends them locally, synchronously, until they run out or the lease ends.
 */
import { type Kysely, sql } from "kysely";
import { RATE_ALLOWED, type RateDecision, type RateLimiter } from "../rate-limiter.js";
import type { SqlDialect } from "./dialects/sql-dialect.js";
import type { SqlStoreDatabase } from "./sql-tables.js";

/** Options of `sqlRateLimiter`. */
export interface SqlRateLimiterOptions {
  /** Sustained requests per second each key may send, all hosts together. Required; positive. */
  readonly requestsPerSecond: number;
  /** Most requests a key may send at once after a quiet spell, all hosts together. Default `2 × requestsPerSecond`, at least 1. */
  readonly burst?: number;
  /**
   * Prefix of the keys in the table, so two limiters on one database (SCIM by organization,
   * analytics by API key) never share a bucket. Default `"scim"`.
   */
  readonly namespace?: string;
  /**
   * Most tokens one lease takes from the shared bucket. Larger leases write less; each host may
   * hold up to this many unspent tokens, which the others cannot use meanwhile, so the limit is
   * met from below by at most `hosts × leaseSize` requests. Default `max(1, ⌊requestsPerSecond / 20⌋)`:
   * one write per 20th of a second's allowance.
   */
  readonly leaseSize?: number;
  /**
   * Milliseconds a host may spend a lease's tokens; unspent ones are then dropped (never given
   * back), so a host that went quiet does not hold allowance the others need. Default 1,000.
   */
  readonly leaseMs?: number;
  /** Wall-clock milliseconds; every host's must agree (NTP). Default `Date.now`. */
  readonly now?: () => number;
}

/** `store.db` and `store.dialect` of a `SqlStore`: where the buckets are kept. */
export interface SqlRateLimiterDatabase {
  readonly db: Kysely<SqlStoreDatabase>;
  readonly dialect: SqlDialect;
}

/** A key's state in this process. */
interface Local {
  /** Leased tokens not yet spent. */
  tokens: number;
  /** `now()` after which `tokens` are dropped. */
  leaseEndsAt: number;
  /** `now()` before which the shared bucket will not hold a whole lease: once `tokens` are spent, refuse without asking it. */
  refusedUntil: number;
  /** The lease being taken, shared by every request that waits for it. */
  pending: Promise<void> | undefined;
}

/** Local states kept before the first sweep of idle ones. */
const SWEEP_FLOOR = 1024;
const MILLI = 1000;

/**
 * A `RateLimiter` over the store's database, for hosts that share it (PostgreSQL). Refusals take
 * nothing, locally or from the bucket; a refused key is refused locally until the bucket will have
 * refilled, so a client hammering past its limit costs no write per request either.
 *
 * The table holds the keys seen within one refill of the bucket (`burst / requestsPerSecond`
 * seconds), not every key ever seen: a full bucket is the same as none, so when a host adds a key
 * it deletes its namespace's rows untouched for that long, at most once per that interval. Keys
 * an unauthenticated client picks (a source address, a made-up client id) are kept as long.
 *
 * @example
 * const store = await sqlStore({ postgres: process.env.DATABASE_URL });
 * createScimRouter({ store, auth: store.tokens, rateLimit: sqlRateLimiter(store, { requestsPerSecond: 100 }) });
 */
export function sqlRateLimiter(store: SqlRateLimiterDatabase, options: SqlRateLimiterOptions): RateLimiter {
  const rate = options.requestsPerSecond;
  if (!(Number.isFinite(rate) && rate > 0))
    throw new Error(`sqlRateLimiter: requestsPerSecond must be a positive number; got ${String(rate)}.`);
  const burst = options.burst ?? Math.max(1, 2 * rate);
  if (!(Number.isFinite(burst) && burst >= 1)) throw new Error(`sqlRateLimiter: burst must be at least 1; got ${String(options.burst)}.`);
  const wantedLease = options.leaseSize ?? Math.max(1, Math.floor(rate / 20));
  if (!(Number.isInteger(wantedLease) && wantedLease >= 1))
    throw new Error(`sqlRateLimiter: leaseSize must be a whole number of at least 1; got ${String(options.leaseSize)}.`);
  // A lease larger than the bucket could never be filled.
  const leaseSize = Math.min(wantedLease, Math.floor(burst));
  const leaseMs = options.leaseMs ?? 1000;
  if (!(Number.isFinite(leaseMs) && leaseMs > 0))
    throw new Error(`sqlRateLimiter: leaseMs must be positive; got ${String(options.leaseMs)}.`);
  const namespace = options.namespace ?? "scim";
  const now = options.now ?? Date.now;
  const { db, dialect } = store;
  const burstMilli = Math.round(burst * MILLI);
  const milliPerMs = rate; // rate per second × 1000 milli-tokens ÷ 1000 ms
  const locals = new Map<string, Local>();
  let sweepAt = SWEEP_FLOOR;
  // A bucket untouched for this long has refilled: its row says nothing a missing one would not.
  const refillMs = Math.ceil((burst / rate) * 1000);
  const prefix = `${namespace}:`;
  let prunedAt = Number.NEGATIVE_INFINITY;

  /**
   * Takes up to `leaseSize` whole tokens from the shared bucket; resolves with those taken and the
   * milliseconds until the bucket will hold a whole lease again, which this host waits before it
   * asks again: under sustained overload each host then writes once per lease, not per request.
   */
  const lease = (key: string): Promise<{ readonly granted: number; readonly waitMs: number }> =>
    dialect.writeTransaction(db, async (trx) => {
      const at = now();
      const lock = dialect.rowLock("update");
      const select = trx.selectFrom("scimkit_rate_buckets").select(["milli_tokens", "at_ms"]).where("key", "=", key);
      let row = await (lock === undefined ? select : select.modifyEnd(lock)).executeTakeFirst();
      if (row === undefined) {
        if (at - prunedAt >= refillMs) {
          prunedAt = at;
          // substr, not LIKE or a range: exact in every collation, `_` and `%` included.
          await trx
            .deleteFrom("scimkit_rate_buckets")
            .where(sql<boolean>`substr(${sql.ref("key")}, 1, ${prefix.length}) = ${prefix}`)
            .where("at_ms", "<=", at - refillMs)
            .execute();
        }
        // The first host to see the key creates it full; a concurrent first loses the insert and locks the winner's row.
        await dialect
          .ignoreConflicts(trx.insertInto("scimkit_rate_buckets").values({ key, milli_tokens: burstMilli, at_ms: at }))
          .execute();
        row = await (lock === undefined ? select : select.modifyEnd(lock)).executeTakeFirstOrThrow();
      }
      const lastAt = Number(row.at_ms);
      // A host whose clock is behind the last writer's refills nothing rather than a negative amount.
      const available = Math.min(burstMilli, Number(row.milli_tokens) + Math.max(0, at - lastAt) * milliPerMs);
      const granted = Math.min(leaseSize, Math.floor(available / MILLI));
      await trx
        .updateTable("scimkit_rate_buckets")
        .set({ milli_tokens: Math.floor(available - granted * MILLI), at_ms: Math.max(at, lastAt) })
        .where("key", "=", key)
        .execute();
      const left = available - granted * MILLI;
      return { granted, waitMs: Math.max(0, Math.ceil((leaseSize * MILLI - left) / milliPerMs)) };
    });

  const sweep = (at: number): void => {
    for (const [key, local] of locals)
      if (local.pending === undefined && at >= local.leaseEndsAt && at >= local.refusedUntil) locals.delete(key);
    sweepAt = Math.max(SWEEP_FLOOR, 2 * locals.size);
  };

  const refusal = (waitMs: number): RateDecision => ({ allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) });

  const take = (orgId: string): RateDecision | Promise<RateDecision> => {
    const key = `${namespace}:${orgId}`;
    const at = now();
    let local = locals.get(key);
    if (local === undefined) {
      if (locals.size >= sweepAt) sweep(at);
      local = { tokens: 0, leaseEndsAt: 0, refusedUntil: 0, pending: undefined };
      locals.set(key, local);
    }
    if (local.tokens >= 1 && at < local.leaseEndsAt) {
      local.tokens -= 1;
      return RATE_ALLOWED;
    }
    if (at < local.refusedUntil) return refusal(local.refusedUntil - at);
    const state = local;
    if (state.pending === undefined) {
      state.pending = lease(key).then(
        ({ granted, waitMs }) => {
          const leasedAt = now();
          state.pending = undefined;
          state.tokens = granted;
          state.leaseEndsAt = leasedAt + leaseMs;
          // Checked only once the tokens are spent: refused locally until a whole lease has refilled.
          state.refusedUntil = leasedAt + waitMs;
        },
        (error: unknown) => {
          state.pending = undefined;
          throw error;
        },
      );
    }
    // Every request that found the tokens spent waits for the one lease, then tries again.
    return state.pending.then(() => take(orgId));
  };

  return { take };
}
