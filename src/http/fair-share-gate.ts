/**
 * `fairShareGate`: the reference `ExpensiveWorkGate`, a counting semaphore with a bounded FIFO
 * queue per organization, in process memory.
 */
import { ScimError } from "../errors.js";
import type { ExpensiveWorkGate, WorkPermit } from "./expensive-work-gate.js";

/** Options of `fairShareGate`. */
export interface FairShareGateOptions {
  /**
   * Expensive requests of one organization that run at the same time. Default 1: the store's
   * parallelism (four SQLite reader threads, ten PostgreSQL connections, one event loop for the
   * memory store) is then shared by the organizations that have expensive work, one lane each, and
   * an organization that loops scans costs the others one lane, however many clients it runs.
   */
  readonly concurrency?: number;
  /**
   * Expensive requests of one organization that may wait beyond those running; one more is
   * refused with 429 and `Retry-After`. Default 16: with one running, the last of them waits for
   * sixteen scans, a few seconds at 100,000 users, still inside an identity provider's timeout.
   */
  readonly maxQueued?: number;
  /** A monotonic clock in milliseconds, for the `Retry-After` estimate. Default `performance.now`. */
  readonly now?: () => number;
}

interface Waiter {
  readonly admit: (permit: WorkPermit) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

/** One organization's running count and its queue; dropped when both are empty. */
interface Lane {
  running: number;
  readonly waiting: Waiter[];
}

/** `Retry-After` bounds: a whole second at least (RFC 9110 §10.2.3), a minute at most. */
const MIN_RETRY_SECONDS = 1;
const MAX_RETRY_SECONDS = 60;
/** Weight of the newest duration in the running average. */
const SMOOTHING = 0.2;

function positiveInteger(name: string, value: number | undefined, fallback: number, minimum: number): number {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen < minimum) {
    throw new Error(`fairShareGate: ${name} must be an integer of at least ${minimum}; got ${String(value)}.`);
  }
  return chosen;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/**
 * At most `concurrency` expensive requests per organization at once, up to `maxQueued` more
 * waiting in arrival order, the rest refused with 429. A waiting request whose client disconnects
 * leaves the queue. The counts live in this process: with N processes behind a load balancer an
 * organization may run up to N × `concurrency`; implement `ExpensiveWorkGate` over a shared
 * semaphore when that matters.
 *
 * @example
 * createScimRouter({ store, auth, fairShare: { gate: fairShareGate({ concurrency: 1, maxQueued: 16 }) } });
 */
export function fairShareGate(options: FairShareGateOptions = {}): ExpensiveWorkGate {
  const concurrency = positiveInteger("concurrency", options.concurrency, 1, 1);
  const maxQueued = positiveInteger("maxQueued", options.maxQueued, 16, 0);
  const now = options.now ?? (() => performance.now());
  const lanes = new Map<string, Lane>();
  // How long a permit is held, on average over every organization: the basis of `Retry-After`.
  let averageMs: number | undefined;

  const permit = (orgId: string, lane: Lane): WorkPermit => {
    const started = now();
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        const held = Math.max(0, now() - started);
        averageMs = averageMs === undefined ? held : averageMs + SMOOTHING * (held - averageMs);
        lane.running -= 1;
        admitWaiting(orgId, lane);
      },
    };
  };

  const admitWaiting = (orgId: string, lane: Lane): void => {
    while (lane.running < concurrency) {
      const next = lane.waiting.shift();
      if (next === undefined) break;
      next.signal?.removeEventListener("abort", next.onAbort);
      lane.running += 1;
      next.admit(permit(orgId, lane));
    }
    if (lane.running === 0 && lane.waiting.length === 0 && lanes.get(orgId) === lane) lanes.delete(orgId);
  };

  const refusal = (lane: Lane): ScimError => {
    // Everyone ahead must finish first: the queue drains `concurrency` requests per average hold.
    const estimate = ((averageMs ?? 1000) * (lane.waiting.length + 1)) / concurrency / 1000;
    const seconds = Math.min(MAX_RETRY_SECONDS, Math.max(MIN_RETRY_SECONDS, Math.ceil(estimate)));
    return new ScimError(
      429,
      undefined,
      `This organization already has ${plural(lane.running, "expensive request")} running and ${lane.waiting.length} waiting, ` +
        `the most this service admits (lists that filter without an index or sort, deep startIndex or large count pages, /Bulk). ` +
        `Retry after ${plural(seconds, "second")}, send such requests one at a time, or page with a cursor; ` +
        `lookups by id, userName or externalId never wait. An operator can raise the limit with the router's fairShare option.`,
      [],
      { retryAfter: seconds },
    );
  };

  return {
    acquire(orgId: string, signal?: AbortSignal): Promise<WorkPermit> {
      if (signal?.aborted) return Promise.reject(signal.reason);
      let lane = lanes.get(orgId);
      if (lane === undefined) {
        lane = { running: 0, waiting: [] };
        lanes.set(orgId, lane);
      }
      if (lane.running < concurrency) {
        lane.running += 1;
        return Promise.resolve(permit(orgId, lane));
      }
      if (lane.waiting.length >= maxQueued) return Promise.reject(refusal(lane));
      const queue = lane;
      return new Promise<WorkPermit>((resolve, reject) => {
        const waiter: Waiter = {
          admit: resolve,
          signal,
          onAbort: () => {
            const at = queue.waiting.indexOf(waiter);
            if (at >= 0) queue.waiting.splice(at, 1);
            reject(signal?.reason);
          },
        };
        signal?.addEventListener("abort", waiter.onAbort, { once: true });
        queue.waiting.push(waiter);
      });
    },
  };
}
