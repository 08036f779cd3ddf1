/**
 * `fairShareGate`: the reference `ExpensiveWorkGate`, a counting semaphore with a bounded FIFO
 * queue per organization and a duty cycle, in process memory.
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
  /**
   * The most of the wall-clock time one organization's expensive work may hold while it loops,
   * in (0, 1]. After a permit held `d` ms is released, the organization's next permit is granted
   * no earlier than `d × (1 / share − 1)` ms later, and other organizations' requests run in the
   * gap: a count alone never holds back a client that sends one request at a time, yet each of
   * its requests takes main-thread time (parsing, validation, rendering) no store thread can take
   * over. Default 0.25: an organization that loops expensive work gets at most about a quarter
   * of the service while others are served; the permit does not cover all of a large request's
   * cost (socket reads, collecting the parsed JSON afterwards), and at 0.5 a loop of refused 1 MB
   * PATCHes still left another organization's lookups 30–40 % of their throughput on two cores,
   * at 0.25 more than half (docs/security.md). `1` turns the duty cycle off. An organization whose last permit ended longer ago than
   * its rest never waits, and neither does one that is alone: the rest applies only while another
   * organization has been seen (`observe`, or its own expensive request) within the last
   * `ACTIVE_WINDOW_MS`, so a lone organization's import runs flat out.
   */
  readonly share?: number;
  /** A monotonic clock in milliseconds, for the duty cycle and `Retry-After`. Default `performance.now`. */
  readonly now?: () => number;
  /**
   * Runs `callback` after `ms` milliseconds and returns what cancels it; the duty cycle admits a
   * resting organization's next request with it. Default: an unref'd `setTimeout`, so a pending
   * rest never keeps the process alive. Tests inject a fake.
   */
  readonly setTimer?: (callback: () => void, ms: number) => () => void;
}

interface Waiter {
  readonly admit: (permit: WorkPermit) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

/** One organization's running count, its queue and its rest; dropped when all three are over. */
interface Lane {
  running: number;
  readonly waiting: Waiter[];
  /** The time (of `now`) before which no permit is granted: the rest after the last release. */
  restUntil: number;
  /** Cancels the timer that ends the rest for the head of the queue; set while one is pending. */
  cancelTimer: (() => void) | undefined;
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

function shareOf(value: number | undefined): number {
  const chosen = value ?? 0.25;
  if (!Number.isFinite(chosen) || chosen <= 0 || chosen > 1) {
    throw new Error(`fairShareGate: share must be a number above 0 and at most 1; got ${String(value)}.`);
  }
  return chosen;
}

function unrefTimer(callback: () => void, ms: number): () => void {
  const timer = setTimeout(callback, ms);
  timer.unref();
  return () => clearTimeout(timer);
}

/**
 * How recently another organization must have been seen for a rest to apply: about the gap
 * between two requests of an identity provider that is provisioning, so a neighbour counts as
 * present while it sends, and an organization alone is never slowed for nobody.
 */
export const ACTIVE_WINDOW_MS = 1_000;

/** An organization and when it was last seen. */
interface Sighting {
  orgId: string;
  at: number;
}

/** Idle lanes kept only for their rest are swept once the map has grown past this many. */
const SWEEP_FLOOR = 64;

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/**
 * At most `concurrency` expensive requests per organization at once, up to `maxQueued` more
 * waiting in arrival order, the rest refused with 429. After each permit the organization rests
 * in proportion to how long it was held (`share`), so a client that loops expensive requests one
 * at a time still leaves the others their part of the process; a request that arrives during the
 * rest waits in the queue like any other. A waiting request whose client disconnects leaves the
 * queue. The counts live in this process: with N processes behind a load balancer an organization
 * may run up to N × `concurrency`; implement `ExpensiveWorkGate` over a shared semaphore when
 * that matters.
 *
 * @example
 * createScimRouter({ store, auth, fairShare: { gate: fairShareGate({ concurrency: 1, maxQueued: 16, share: 0.25 }) } });
 */
export function fairShareGate(options: FairShareGateOptions = {}): ExpensiveWorkGate {
  const concurrency = positiveInteger("concurrency", options.concurrency, 1, 1);
  const maxQueued = positiveInteger("maxQueued", options.maxQueued, 16, 0);
  const share = shareOf(options.share);
  // Milliseconds of rest per millisecond held: 1 at the default share, 0 when the cycle is off.
  const restPerHeld = 1 / share - 1;
  const now = options.now ?? (() => performance.now());
  const setTimer = options.setTimer ?? unrefTimer;
  const lanes = new Map<string, Lane>();
  let sweepAt = SWEEP_FLOOR;
  // The two organizations seen last, distinct: enough to answer "was anyone else here lately?"
  // in O(1), whatever the number of organizations.
  let latest: Sighting | undefined;
  let previous: Sighting | undefined;

  const observe = (orgId: string): void => {
    const at = now();
    if (latest?.orgId === orgId) latest.at = at;
    else {
      previous = latest;
      latest = { orgId, at };
    }
  };

  /** Whether an organization other than `orgId` was seen within `ACTIVE_WINDOW_MS`. */
  const othersActive = (orgId: string): boolean => {
    const since = now() - ACTIVE_WINDOW_MS;
    return [latest, previous].some((seen) => seen !== undefined && seen.orgId !== orgId && seen.at >= since);
  };

  /** How long `lane` must still rest before its next permit: 0 when over, or when it is alone. */
  const restLeft = (orgId: string, lane: Lane): number => {
    const left = lane.restUntil - now();
    return left > 0 && othersActive(orgId) ? left : 0;
  };
  // How long a permit is held, on average over every organization: the basis of `Retry-After`.
  let averageMs: number | undefined;

  /** Forgets `lane` once nothing runs, waits or rests in it; its timer goes with its queue. */
  const dropIfIdle = (orgId: string, lane: Lane): void => {
    if (lane.waiting.length === 0 && lane.cancelTimer !== undefined) {
      lane.cancelTimer();
      lane.cancelTimer = undefined;
    }
    if (lane.running === 0 && lane.waiting.length === 0 && lane.restUntil <= now() && lanes.get(orgId) === lane) lanes.delete(orgId);
  };

  /** Drops every lane that only remembered a rest now over, so organizations seen once cost nothing. */
  const sweep = (): void => {
    for (const [orgId, lane] of lanes) dropIfIdle(orgId, lane);
    sweepAt = Math.max(SWEEP_FLOOR, lanes.size * 2);
  };

  const permit = (orgId: string, lane: Lane): WorkPermit => {
    const started = now();
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        const ended = now();
        const held = Math.max(0, ended - started);
        averageMs = averageMs === undefined ? held : averageMs + SMOOTHING * (held - averageMs);
        lane.restUntil = Math.max(lane.restUntil, ended + held * restPerHeld);
        lane.running -= 1;
        admitWaiting(orgId, lane);
      },
    };
  };

  const admitWaiting = (orgId: string, lane: Lane): void => {
    while (lane.running < concurrency && lane.waiting.length > 0) {
      const rest = restLeft(orgId, lane);
      if (rest > 0) {
        // One timer per lane: the head of the queue is admitted when the rest is over.
        lane.cancelTimer ??= setTimer(() => {
          lane.cancelTimer = undefined;
          admitWaiting(orgId, lane);
        }, rest);
        return;
      }
      const next = lane.waiting.shift();
      if (next === undefined) break;
      next.signal?.removeEventListener("abort", next.onAbort);
      lane.running += 1;
      next.admit(permit(orgId, lane));
    }
    dropIfIdle(orgId, lane);
  };

  const refusal = (lane: Lane): ScimError => {
    // Everyone ahead must finish first: the queue drains `concurrency` requests per average hold
    // and the rest that follows it, after the rest already under way.
    const rest = Math.max(0, lane.restUntil - now());
    const estimate = (rest + ((averageMs ?? 1000) * (1 + restPerHeld) * (lane.waiting.length + 1)) / concurrency) / 1000;
    const seconds = Math.min(MAX_RETRY_SECONDS, Math.max(MIN_RETRY_SECONDS, Math.ceil(estimate)));
    return new ScimError(
      429,
      undefined,
      `This organization already has ${plural(lane.running, "expensive request")} running and ${lane.waiting.length} waiting, ` +
        `the most this service admits (lists that filter without an index or sort, deep startIndex or large count pages, /Bulk, large bodies). ` +
        `Retry after ${plural(seconds, "second")}, send such requests one at a time, or page with a cursor; ` +
        `lookups by id, userName or externalId never wait. An operator can raise the limit with the router's fairShare option.`,
      [],
      { retryAfter: seconds },
    );
  };

  return {
    observe,
    acquire(orgId: string, signal?: AbortSignal): Promise<WorkPermit> {
      if (signal?.aborted) return Promise.reject(signal.reason);
      observe(orgId);
      let lane = lanes.get(orgId);
      if (lane === undefined) {
        if (lanes.size >= sweepAt) sweep();
        lane = { running: 0, waiting: [], restUntil: Number.NEGATIVE_INFINITY, cancelTimer: undefined };
        lanes.set(orgId, lane);
      }
      if (lane.running < concurrency && lane.waiting.length === 0 && restLeft(orgId, lane) === 0) {
        lane.running += 1;
        return Promise.resolve(permit(orgId, lane));
      }
      if (lane.waiting.length >= maxQueued) return Promise.reject(refusal(lane));
      const queue = lane;
      const queued = new Promise<WorkPermit>((resolve, reject) => {
        const waiter: Waiter = {
          admit: resolve,
          signal,
          onAbort: () => {
            const at = queue.waiting.indexOf(waiter);
            if (at >= 0) queue.waiting.splice(at, 1);
            dropIfIdle(orgId, queue);
            reject(signal?.reason);
          },
        };
        signal?.addEventListener("abort", waiter.onAbort, { once: true });
        queue.waiting.push(waiter);
      });
      // A free place held back only by the rest: start the timer that ends it.
      admitWaiting(orgId, queue);
      return queued;
    },
  };
}
