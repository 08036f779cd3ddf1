/**
 * `fairShareGate`: the reference `ExpensiveWorkGate`, counting semaphores per organization, per
 * group of organizations and for everyone, with a bounded FIFO queue per organization and a duty
 * cycle per group, in process memory.
 */
import { scimError, type ScimError } from "../../errors.js";
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

interface Waiter {
  readonly orgId: string;
  readonly group: string;
  readonly admit: (permit: WorkPermit) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

/** One organization's running and waiting counts; dropped when both are 0. */
interface OrgLane {
  running: number;
  waiting: number;
}

/** One group's running and waiting counts and its rest; dropped when all three are over. */
interface GroupLane {
  running: number;
  waiting: number;
  /** The time (of `now`) before which no permit is granted: the rest after the last release. */
  restUntil: number;
}

/** `Retry-After` bounds: a whole second at least (RFC 9110 §10.2.3), a minute at most. */
const MIN_RETRY_SECONDS = 1;
const MAX_RETRY_SECONDS = 60;
/** Weight of the newest duration in the running average. */
const SMOOTHING = 0.2;
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
 * How recently another group must have been seen for a rest to apply: about the gap between two
 * requests of an identity provider that is provisioning, so a neighbour counts as present while it
 * sends, and an organization alone is never slowed for nobody.
 */
export const ACTIVE_WINDOW_MS = 1_000;

/** A group and when it was last seen. */
interface Sighting {
  group: string;
  at: number;
}

/** Idle groups kept only for their rest are swept once the map has grown past this many. */
const SWEEP_FLOOR = 64;

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
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
  // Milliseconds of rest per millisecond held: 1 at the default share, 0 when the cycle is off.
  const restPerHeld = 1 / share - 1;
  const now = options.now ?? (() => performance.now());
  const setTimer = options.setTimer ?? unrefTimer;
  const orgs = new Map<string, OrgLane>();
  const groups = new Map<string, GroupLane>();
  // Every waiting request in arrival order; each organization's and each group's in theirs.
  let queue: Waiter[] = [];
  let running = 0;
  let sweepAt = SWEEP_FLOOR;
  // The group of each organization that asked for a turn, so `observe`, told organizations only,
  // can tell one group's organizations from another's.
  const groupOf = new Map<string, string>();
  // The two groups seen last, distinct: enough to answer "was anyone else here lately?" in O(1),
  // whatever the number of organizations.
  let latest: Sighting | undefined;
  let previous: Sighting | undefined;
  // The one timer that ends the earliest rest a waiting request is held back by.
  let timer: { readonly due: number; readonly cancel: () => void } | undefined;

  const see = (group: string): void => {
    const at = now();
    if (latest?.group === group) latest.at = at;
    else {
      previous = latest;
      latest = { group, at };
    }
  };

  /** Whether a group other than `group` was seen within `ACTIVE_WINDOW_MS`. */
  const othersActive = (group: string): boolean => {
    const since = now() - ACTIVE_WINDOW_MS;
    return [latest, previous].some((seen) => seen !== undefined && seen.group !== group && seen.at >= since);
  };

  /** How long `lane` must still rest before its next permit: 0 when over, or when it is alone. */
  const restLeft = (group: string, lane: GroupLane): number => {
    const left = lane.restUntil - now();
    return left > 0 && othersActive(group) ? left : 0;
  };
  // How long a permit is held, on average over every organization: the basis of `Retry-After`.
  let averageMs: number | undefined;

  const orgLane = (orgId: string): OrgLane => {
    let lane = orgs.get(orgId);
    if (lane === undefined) {
      lane = { running: 0, waiting: 0 };
      orgs.set(orgId, lane);
    }
    return lane;
  };

  const groupLane = (group: string): GroupLane => {
    let lane = groups.get(group);
    if (lane === undefined) {
      if (groups.size >= sweepAt) sweep();
      lane = { running: 0, waiting: 0, restUntil: Number.NEGATIVE_INFINITY };
      groups.set(group, lane);
    }
    return lane;
  };

  /** Forgets lanes once nothing runs, waits or rests in them. */
  const dropIfIdle = (orgId: string, group: string): void => {
    const org = orgs.get(orgId);
    if (org !== undefined && org.running === 0 && org.waiting === 0) orgs.delete(orgId);
    const lane = groups.get(group);
    if (lane !== undefined && lane.running === 0 && lane.waiting === 0 && lane.restUntil <= now()) groups.delete(group);
  };

  /** Drops every group that only remembered a rest now over, so groups seen once cost nothing. */
  const sweep = (): void => {
    for (const [group, lane] of groups) {
      if (lane.running === 0 && lane.waiting === 0 && lane.restUntil <= now()) groups.delete(group);
    }
    sweepAt = Math.max(SWEEP_FLOOR, groups.size * 2);
  };

  const permit = (orgId: string, group: string): WorkPermit => {
    const started = now();
    const org = orgLane(orgId);
    const lane = groupLane(group);
    org.running += 1;
    lane.running += 1;
    running += 1;
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        const ended = now();
        const held = Math.max(0, ended - started);
        averageMs = averageMs === undefined ? held : averageMs + SMOOTHING * (held - averageMs);
        lane.restUntil = Math.max(lane.restUntil, ended + held * restPerHeld);
        org.running -= 1;
        lane.running -= 1;
        running -= 1;
        drain();
        dropIfIdle(orgId, group);
      },
    };
  };

  /** Whether a request of `orgId` in `group` could run now but for the group's rest; its rest, or -1 when it cannot. */
  const restBefore = (orgId: string, group: string): number => {
    const org = orgs.get(orgId);
    const lane = groups.get(group);
    if (running >= maxRunning || (org?.running ?? 0) >= concurrency || (lane?.running ?? 0) >= groupConcurrency) return -1;
    return lane === undefined ? 0 : restLeft(group, lane);
  };

  /**
   * Admits, in arrival order, every waiting request whose organization, group and the whole gate
   * have room and whose group's rest is over; one held back holds back the later ones of its
   * organization and group, so each keeps its order. Then sets the timer for the earliest rest.
   */
  const drain = (): void => {
    const kept: Waiter[] = [];
    const heldOrgs = new Set<string>();
    const heldGroups = new Set<string>();
    let earliest = Number.POSITIVE_INFINITY;
    for (const waiter of queue) {
      if (heldOrgs.has(waiter.orgId) || heldGroups.has(waiter.group)) {
        kept.push(waiter);
        continue;
      }
      const rest = restBefore(waiter.orgId, waiter.group);
      if (rest !== 0) {
        if (rest > 0) earliest = Math.min(earliest, rest);
        heldOrgs.add(waiter.orgId);
        heldGroups.add(waiter.group);
        kept.push(waiter);
        continue;
      }
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      orgLane(waiter.orgId).waiting -= 1;
      groupLane(waiter.group).waiting -= 1;
      waiter.admit(permit(waiter.orgId, waiter.group));
    }
    queue = kept;
    schedule(earliest);
  };

  /** Keeps one timer, due when the earliest rest a waiting request is held back by ends. */
  const schedule = (inMs: number): void => {
    const due = now() + inMs;
    if (timer !== undefined && (queue.length === 0 || timer.due > due)) {
      timer.cancel();
      timer = undefined;
    }
    if (timer !== undefined || !Number.isFinite(inMs) || queue.length === 0) return;
    timer = {
      due,
      cancel: setTimer(() => {
        timer = undefined;
        drain();
      }, inMs),
    };
  };

  const refusal = (orgId: string, group: string): ScimError => {
    const org = orgLane(orgId);
    const lane = groupLane(group);
    // Everyone ahead must finish first: the queue drains `concurrency` requests per average hold
    // and the rest that follows it, after the rest already under way.
    const rest = Math.max(0, lane.restUntil - now());
    const estimate = (rest + ((averageMs ?? 1000) * (1 + restPerHeld) * (org.waiting + 1)) / concurrency) / 1000;
    const seconds = Math.min(MAX_RETRY_SECONDS, Math.max(MIN_RETRY_SECONDS, Math.ceil(estimate)));
    return scimError(
      "tooManyRequests",
      `This organization already has ${plural(org.running, "expensive request")} running and ${org.waiting} waiting, ` +
        `the most this service admits (lists that filter without an index or sort, deep startIndex or large count pages, /Bulk, large bodies). ` +
        `Retry after ${plural(seconds, "second")}, send such requests one at a time, or page with a cursor; ` +
        `lookups by id, userName or externalId never wait. An operator can raise the limit with the router's fairShare option.`,
      { retryAfter: seconds },
    );
  };

  return {
    observe(orgId: string, group?: string): void {
      see(group ?? groupOf.get(orgId) ?? orgId);
    },
    acquire(orgId: string, signal?: AbortSignal, group: string = orgId): Promise<WorkPermit> {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (groupOf.get(orgId) !== group) {
        if (groupOf.size >= REMEMBERED_GROUPS) groupOf.clear();
        groupOf.set(orgId, group);
      }
      see(group);
      const org = orgLane(orgId);
      const lane = groupLane(group);
      if (org.waiting === 0 && lane.waiting === 0 && restBefore(orgId, group) === 0) return Promise.resolve(permit(orgId, group));
      if (org.waiting >= maxQueued) {
        const error = refusal(orgId, group);
        dropIfIdle(orgId, group);
        return Promise.reject(error);
      }
      const queued = new Promise<WorkPermit>((resolve, reject) => {
        const waiter: Waiter = {
          orgId,
          group,
          admit: resolve,
          signal,
          onAbort: () => {
            const at = queue.indexOf(waiter);
            if (at >= 0) {
              queue.splice(at, 1);
              orgLane(orgId).waiting -= 1;
              groupLane(group).waiting -= 1;
            }
            // Its place may have held back later requests of its organization or group.
            drain();
            dropIfIdle(orgId, group);
            reject(signal?.reason);
          },
        };
        signal?.addEventListener("abort", waiter.onAbort, { once: true });
        queue.push(waiter);
        org.waiting += 1;
        lane.waiting += 1;
      });
      // A free place held back only by the rest: start the timer that ends it.
      drain();
      return queued;
    },
  };
}
