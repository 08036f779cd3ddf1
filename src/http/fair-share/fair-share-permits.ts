/**
 * Handing out a fair-share gate's permits: a permit counts in its organization's, its group's and
 * the gate's lanes until released, and its release starts its group's rest and admits, in arrival
 * order, the waiting requests that now have room.
 */
import type { WorkPermit } from "./expensive-work-gate.js";
import { dropIfIdle, type FairShareState, groupLane, orgLane, restBefore, type Waiter } from "./fair-share-lanes.js";

/** Weight of the newest duration in the running average. */
const SMOOTHING = 0.2;

/** A permit of `orgId` in `group`, counted from now. */
export function grantPermit(state: FairShareState, orgId: string, group: string): WorkPermit {
  const started = state.now();
  const org = orgLane(state, orgId);
  const lane = groupLane(state, group);
  org.running += 1;
  lane.running += 1;
  state.running += 1;
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      const ended = state.now();
      const held = Math.max(0, ended - started);
      state.averageMs = state.averageMs === undefined ? held : state.averageMs + SMOOTHING * (held - state.averageMs);
      lane.restUntil = Math.max(lane.restUntil, ended + held * state.restPerHeld);
      org.running -= 1;
      lane.running -= 1;
      state.running -= 1;
      drain(state);
      dropIfIdle(state, orgId, group);
    },
  };
}

/**
 * Admits, in arrival order, every waiting request whose organization, group and the whole gate
 * have room and whose group's rest is over; one held back holds back the later ones of its
 * organization and group, so each keeps its order. Then sets the timer for the earliest rest.
 */
export function drain(state: FairShareState): void {
  const kept: Waiter[] = [];
  const heldOrgs = new Set<string>();
  const heldGroups = new Set<string>();
  let earliest = Number.POSITIVE_INFINITY;
  for (const waiter of state.queue) {
    if (heldOrgs.has(waiter.orgId) || heldGroups.has(waiter.group)) {
      kept.push(waiter);
      continue;
    }
    const rest = restBefore(state, waiter.orgId, waiter.group);
    if (rest !== 0) {
      if (rest > 0) earliest = Math.min(earliest, rest);
      heldOrgs.add(waiter.orgId);
      heldGroups.add(waiter.group);
      kept.push(waiter);
      continue;
    }
    waiter.signal?.removeEventListener("abort", waiter.onAbort);
    orgLane(state, waiter.orgId).waiting -= 1;
    groupLane(state, waiter.group).waiting -= 1;
    waiter.admit(grantPermit(state, waiter.orgId, waiter.group));
  }
  state.queue = kept;
  schedule(state, earliest);
}

/** Keeps one timer, due when the earliest rest a waiting request is held back by ends. */
function schedule(state: FairShareState, inMs: number): void {
  const due = state.now() + inMs;
  if (state.timer !== undefined && (state.queue.length === 0 || state.timer.due > due)) {
    state.timer.cancel();
    state.timer = undefined;
  }
  if (state.timer !== undefined || !Number.isFinite(inMs) || state.queue.length === 0) return;
  state.timer = {
    due,
    cancel: state.setTimer(() => {
      state.timer = undefined;
      drain(state);
    }, inMs),
  };
}
