/**
 * What a `fairShareGate` holds: its bounds, a lane per organization and per group with their
 * running and waiting counts (and a group's rest), the queue of waiting requests in arrival order,
 * and the two groups seen last. The gate's functions work on this one object; lanes are created
 * on first use and forgotten once nothing runs, waits or rests in them.
 */
import type { WorkPermit } from "./expensive-work-gate.js";

/**
 * How recently another group must have been seen for a rest to apply: about the gap between two
 * requests of an identity provider that is provisioning, so a neighbour counts as present while it
 * sends, and an organization alone is never slowed for nobody.
 */
export const ACTIVE_WINDOW_MS = 1_000;

/** Idle groups kept only for their rest are swept once the map has grown past this many. */
const SWEEP_FLOOR = 64;

/** A request waiting for a permit. */
export interface Waiter {
  /** Its organization. */
  readonly orgId: string;
  /** Its organization's group. */
  readonly group: string;
  /** Hands it its permit. */
  readonly admit: (permit: WorkPermit) => void;
  /** Its client's disconnect. */
  readonly signal: AbortSignal | undefined;
  /** Takes it out of the queue when the client disconnects. */
  readonly onAbort: () => void;
}

/** One organization's running and waiting counts; dropped when both are 0. */
export interface OrgLane {
  running: number;
  waiting: number;
}

/** One group's running and waiting counts and its rest; dropped when all three are over. */
export interface GroupLane {
  running: number;
  waiting: number;
  /** The time (of `now`) before which no permit is granted: the rest after the last release. */
  restUntil: number;
}

/** A group and when it was last seen. */
interface Sighting {
  group: string;
  at: number;
}

/** The state of one fair-share gate. */
export interface FairShareState {
  /** Expensive requests of one organization at once. */
  readonly concurrency: number;
  /** Expensive requests of one group at once. */
  readonly groupConcurrency: number;
  /** Expensive requests of everyone at once. */
  readonly maxRunning: number;
  /** Milliseconds of rest per millisecond held: 1 at the default share, 0 when the cycle is off. */
  readonly restPerHeld: number;
  /** The monotonic clock. */
  readonly now: () => number;
  /** Runs a callback later; returns what cancels it. */
  readonly setTimer: (callback: () => void, ms: number) => () => void;
  /** Lanes by organization. */
  readonly orgs: Map<string, OrgLane>;
  /** Lanes by group. */
  readonly groups: Map<string, GroupLane>;
  /** Every waiting request in arrival order; each organization's and each group's in theirs. */
  queue: Waiter[];
  /** Permits held, everyone's. */
  running: number;
  /** The size of `groups` at which idle lanes are swept next. */
  sweepAt: number;
  /**
   * The two groups seen last, distinct: enough to answer "was anyone else here lately?" in O(1),
   * whatever the number of organizations.
   */
  latest: Sighting | undefined;
  previous: Sighting | undefined;
  /** The one timer that ends the earliest rest a waiting request is held back by. */
  timer: { readonly due: number; readonly cancel: () => void } | undefined;
  /** How long a permit is held, on average over every organization: the basis of `Retry-After`. */
  averageMs: number | undefined;
}

/** Records that `group` was seen now. */
export function see(state: FairShareState, group: string): void {
  const at = state.now();
  if (state.latest?.group === group) state.latest.at = at;
  else {
    state.previous = state.latest;
    state.latest = { group, at };
  }
}

/** Whether a group other than `group` was seen within `ACTIVE_WINDOW_MS`. */
function othersActive(state: FairShareState, group: string): boolean {
  const since = state.now() - ACTIVE_WINDOW_MS;
  return [state.latest, state.previous].some((seen) => seen !== undefined && seen.group !== group && seen.at >= since);
}

/** How long `lane` must still rest before its next permit: 0 when over, or when it is alone. */
function restLeft(state: FairShareState, group: string, lane: GroupLane): number {
  const left = lane.restUntil - state.now();
  return left > 0 && othersActive(state, group) ? left : 0;
}

/** The lane of `orgId`, created when it has none. */
export function orgLane(state: FairShareState, orgId: string): OrgLane {
  let lane = state.orgs.get(orgId);
  if (lane === undefined) {
    lane = { running: 0, waiting: 0 };
    state.orgs.set(orgId, lane);
  }
  return lane;
}

/** The lane of `group`, created when it has none (idle ones swept first when there are many). */
export function groupLane(state: FairShareState, group: string): GroupLane {
  let lane = state.groups.get(group);
  if (lane === undefined) {
    if (state.groups.size >= state.sweepAt) sweep(state);
    lane = { running: 0, waiting: 0, restUntil: Number.NEGATIVE_INFINITY };
    state.groups.set(group, lane);
  }
  return lane;
}

/** Forgets lanes once nothing runs, waits or rests in them. */
export function dropIfIdle(state: FairShareState, orgId: string, group: string): void {
  const org = state.orgs.get(orgId);
  if (org !== undefined && org.running === 0 && org.waiting === 0) state.orgs.delete(orgId);
  const lane = state.groups.get(group);
  if (lane !== undefined && lane.running === 0 && lane.waiting === 0 && lane.restUntil <= state.now()) state.groups.delete(group);
}

/** Drops every group that only remembered a rest now over, so groups seen once cost nothing. */
function sweep(state: FairShareState): void {
  for (const [group, lane] of state.groups) {
    if (lane.running === 0 && lane.waiting === 0 && lane.restUntil <= state.now()) state.groups.delete(group);
  }
  state.sweepAt = Math.max(SWEEP_FLOOR, state.groups.size * 2);
}

/** Whether a request of `orgId` in `group` could run now but for the group's rest; its rest, or -1 when it cannot. */
export function restBefore(state: FairShareState, orgId: string, group: string): number {
  const org = state.orgs.get(orgId);
  const lane = state.groups.get(group);
  if (state.running >= state.maxRunning || (org?.running ?? 0) >= state.concurrency || (lane?.running ?? 0) >= state.groupConcurrency)
    return -1;
  return lane === undefined ? 0 : restLeft(state, group, lane);
}

/** A new, empty state with these bounds. */
export function fairShareState(
  bounds: Pick<FairShareState, "concurrency" | "groupConcurrency" | "maxRunning" | "restPerHeld" | "now" | "setTimer">,
): FairShareState {
  return {
    ...bounds,
    orgs: new Map(),
    groups: new Map(),
    queue: [],
    running: 0,
    sweepAt: SWEEP_FLOOR,
    latest: undefined,
    previous: undefined,
    timer: undefined,
    averageMs: undefined,
  };
}
