/**
 * `fairShareGate`: the reference `ExpensiveWorkGate`, counting semaphores per organization, per
 * group of organizations and for everyone, with a bounded FIFO queue per organization and a duty
 * cycle per group, in process memory.
 */
import type { ExpensiveWorkGate, WorkPermit } from "./expensive-work-gate.js";
import { dropIfIdle, fairShareState, groupLane, orgLane, restBefore, see, type Waiter } from "./fair-share-lanes.js";
import { drain, grantPermit } from "./fair-share-permits.js";
import { fairShareRefusal } from "./fair-share-refusal.js";

export { ACTIVE_WINDOW_MS } from "./fair-share-lanes.js";

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
   * Expensive requests of one group (the `group` the router passes: for a host with organization
   * trees, the root of the organization's tree) that run at the same time, whichever of its
   * organizations sent them. Default `concurrency` (1): a company whose eight divisions are eight
   * organizations takes the service's expensive capacity as one organization would, not eight times over. The
   * duty cycle (`share`) is counted per group too. Without groups every organization is its own.
   */
  readonly groupConcurrency?: number;
  /**
   * Expensive requests of every organization together that run at the same time. Default 3 (or
   * `concurrency`, when that is more): one fewer than a SQLite store's four reader threads, so a
   * flood of scans from many organizations (or groups) always leaves a reader to the lookups,
   * which never wait here. Raise it with the store's parallelism (PostgreSQL's pool of ten, a
   * SQLite store with more readers).
   */
  readonly maxRunning?: number;
  /**
   * Expensive requests of one organization that may wait beyond those running; one more is
   * refused with 429 and `Retry-After`. Default 16: with one running, the last of them waits for
   * sixteen scans, a few seconds at 100,000 users, still inside an identity provider's timeout.
   */
  readonly maxQueued?: number;
  /**
   * The most of the wall-clock time one group's expensive work (an organization's, when it is its
   * own group) may hold while it loops, in (0, 1]. After a permit held `d` ms is released, the group's next permit is granted
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

/** Organizations whose group the gate remembers for `observe`; beyond it the memory starts over. */
const REMEMBERED_GROUPS = 10_000;

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
 * At most `concurrency` expensive requests per organization, `groupConcurrency` per group and
 * `maxRunning` in all at once, up to `maxQueued` more per organization waiting in arrival order,
 * the rest refused with 429. After each permit its group rests in proportion to how long it was
 * held (`share`), so a client that loops expensive requests one at a time — or eight clients of
 * eight organizations of one tree — still leave the others their part of the process; a request
 * that arrives during the rest waits in the queue like any other. A waiting request whose client
 * disconnects leaves the queue. The counts live in this process: with N processes behind a load
 * balancer an organization may run up to N × `concurrency`; implement `ExpensiveWorkGate` over a
 * shared semaphore when that matters.
 *
 * @example
 * createScimRouter({ store, auth, fairShare: { gate: fairShareGate({ concurrency: 1, maxQueued: 16, share: 0.25 }) } });
 */
export function fairShareGate(options: FairShareGateOptions = {}): ExpensiveWorkGate {
  const concurrency = positiveInteger("concurrency", options.concurrency, 1, 1);
  const groupConcurrency = positiveInteger("groupConcurrency", options.groupConcurrency, concurrency, 1);
  const maxRunning = positiveInteger("maxRunning", options.maxRunning, Math.max(3, concurrency), 1);
  const maxQueued = positiveInteger("maxQueued", options.maxQueued, 16, 0);
  const share = shareOf(options.share);
  const state = fairShareState({
    concurrency,
    groupConcurrency,
    maxRunning,
    restPerHeld: 1 / share - 1,
    now: options.now ?? (() => performance.now()),
    setTimer: options.setTimer ?? unrefTimer,
  });
  // The group of each organization that asked for a turn, so `observe`, told organizations only,
  // can tell one group's organizations from another's.
  const groupOf = new Map<string, string>();

  return {
    observe(orgId: string, group?: string): void {
      see(state, group ?? groupOf.get(orgId) ?? orgId);
    },
    acquire(orgId: string, signal?: AbortSignal, group: string = orgId): Promise<WorkPermit> {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (groupOf.get(orgId) !== group) {
        if (groupOf.size >= REMEMBERED_GROUPS) groupOf.clear();
        groupOf.set(orgId, group);
      }
      see(state, group);
      const org = orgLane(state, orgId);
      const lane = groupLane(state, group);
      if (org.waiting === 0 && lane.waiting === 0 && restBefore(state, orgId, group) === 0)
        return Promise.resolve(grantPermit(state, orgId, group));
      if (org.waiting >= maxQueued) {
        const error = fairShareRefusal(state, orgId, group);
        dropIfIdle(state, orgId, group);
        return Promise.reject(error);
      }
      const queued = new Promise<WorkPermit>((resolve, reject) => {
        const waiter: Waiter = {
          orgId,
          group,
          admit: resolve,
          signal,
          onAbort: () => {
            const at = state.queue.indexOf(waiter);
            if (at >= 0) {
              state.queue.splice(at, 1);
              orgLane(state, orgId).waiting -= 1;
              groupLane(state, group).waiting -= 1;
            }
            // Its place may have held back later requests of its organization or group.
            drain(state);
            dropIfIdle(state, orgId, group);
            reject(signal?.reason);
          },
        };
        signal?.addEventListener("abort", waiter.onAbort, { once: true });
        state.queue.push(waiter);
        org.waiting += 1;
        lane.waiting += 1;
      });
      // A free place held back only by the rest: start the timer that ends it.
      drain(state);
      return queued;
    },
  };
}
