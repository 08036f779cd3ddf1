/**
 * Re-running a read-modify-write that lost a race to another process (architecture §4b). Within one
 * process the service serializes writes to a resource (`keyedMutex`), so a version conflict here
 * means another process — a second host on the same database — wrote in between, or a membership
 * delta, which takes no lock (`patch-membership.ts`), did. Each conflict means that writer
 * succeeded, so retrying makes progress; the bound is time, not a count, so a busy resource never
 * turns a client's request into an error it would misread.
 */
import { ScimError, scimError } from "../../errors.js";

/** How `retryVersionConflicts` waits and when it gives up. */
export interface ConflictRetryOptions {
  /**
   * How long, from the first attempt, conflicts are retried before the request fails with 503
   * and `Retry-After`. Default 10,000 ms: far above any contention real clients produce, below
   * the timeouts identity providers put on a request.
   */
  readonly budgetMs?: number;
  /** The first backoff ceiling in ms; it doubles per conflict up to `maxDelayMs`. Default 5. */
  readonly baseDelayMs?: number;
  /** The largest backoff ceiling in ms. Default 250. */
  readonly maxDelayMs?: number;
  /** Waits `ms` milliseconds. Default `setTimeout`; tests pass a fake. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** The clock in ms. Default `Date.now`. */
  readonly now?: () => number;
  /** A number in [0, 1) for the jitter. Default `Math.random`. */
  readonly random?: () => number;
}

function isVersionConflict(error: unknown): boolean {
  return error instanceof ScimError && error.status === 412;
}

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` until it does not fail with a version conflict (a 412 `ScimError`), waiting a
 * random time below an exponentially growing ceiling between tries ("full jitter"), so that two
 * processes that collided do not collide again in lockstep. Other errors pass through at once.
 * When `budgetMs` has passed, fails with 503 and `Retry-After: 1` (RFC 9110 §15.6.4): the request
 * was valid and wrote nothing, and a 409 would read as a uniqueness clash (RFC 7644 §3.12).
 *
 * Only for writes without the client's `If-Match`: with it, a conflict is the client's 412.
 *
 * @example const outcome = await retryVersionConflicts(() => readModifyWrite());
 */
export async function retryVersionConflicts<T>(attempt: () => Promise<T>, options: ConflictRetryOptions = {}): Promise<T> {
  const budget = options.budgetMs ?? 10_000;
  const base = options.baseDelayMs ?? 5;
  const ceiling = options.maxDelayMs ?? 250;
  const sleep = options.sleep ?? wait;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const deadline = now() + budget;
  for (let conflicts = 0; ; conflicts += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!isVersionConflict(error)) throw error;
    }
    const delay = Math.floor(random() * Math.min(ceiling, base * 2 ** Math.min(conflicts, 30)));
    if (now() + delay >= deadline) {
      throw scimError(
        "unavailable",
        "The resource is being changed by other servers at the same time and this change could not be applied in time; nothing was written. Retry the request.",
        {
          retryAfter: 1,
        },
      );
    }
    await sleep(delay);
  }
}
