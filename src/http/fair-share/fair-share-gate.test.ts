import { describe, expect, it } from "vitest";
import { ScimError } from "../../errors.js";
import type { WorkPermit } from "./expensive-work-gate.js";
import { ACTIVE_WINDOW_MS, fairShareGate } from "./fair-share-gate.js";

/** Lets every settled promise run its callbacks. */
async function settle(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

/** Acquires, recording the label in `admitted` when the permit arrives. */
function track(promise: Promise<WorkPermit>, label: string, admitted: string[]): Promise<WorkPermit> {
  return promise.then((permit) => {
    admitted.push(label);
    return permit;
  });
}

// These cases are about the count and the queue, so the duty cycle is off (`share: 1`); it has
// its own cases below, on a fake clock.
describe("fairShareGate", () => {
  it("runs one expensive request per organization by default and admits the waiting ones in arrival order", async () => {
    const gate = fairShareGate({ share: 1 });
    const admitted: string[] = [];
    const first = track(gate.acquire("a"), "a1", admitted);
    const second = track(gate.acquire("a"), "a2", admitted);
    const third = track(gate.acquire("a"), "a3", admitted);
    await settle();
    expect(admitted).toEqual(["a1"]);

    (await first).release();
    await settle();
    expect(admitted).toEqual(["a1", "a2"]);
    (await second).release();
    await settle();
    expect(admitted).toEqual(["a1", "a2", "a3"]);
    (await third).release();
  });

  it("bounds each organization by its own count: another organization never waits", async () => {
    const gate = fairShareGate({ concurrency: 2, maxRunning: 4, share: 1 });
    const admitted: string[] = [];
    const a = [gate.acquire("a"), gate.acquire("a"), track(gate.acquire("a"), "a3", admitted)];
    const b = [track(gate.acquire("b"), "b1", admitted), track(gate.acquire("b"), "b2", admitted)];
    await settle();
    expect(admitted).toEqual(["b1", "b2"]);
    (await a[0])?.release();
    await settle();
    expect(admitted).toEqual(["b1", "b2", "a3"]);
    for (const permit of await Promise.all([...a, ...b])) permit.release();
  });

  it("refuses a request beyond the queue bound with 429, Retry-After and an actionable detail", async () => {
    const gate = fairShareGate({ maxQueued: 1, share: 1 });
    const running = await gate.acquire("a");
    const waiting = gate.acquire("a");
    const refused = await gate.acquire("a").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ScimError);
    const error = refused as ScimError;
    expect(error.status).toBe(429);
    expect(error.retryAfter).toBeGreaterThanOrEqual(1);
    expect(error.detail).toContain("1 expensive request running and 1 waiting");
    expect(error.detail).toContain("fairShare");
    // Another organization still gets its turn at once.
    const other = await gate.acquire("b");
    other.release();
    running.release();
    (await waiting).release();
  });

  it("drops a waiting request whose client left, and gives its place to the next one", async () => {
    const gate = fairShareGate({ maxQueued: 1, share: 1 });
    const admitted: string[] = [];
    const running = await gate.acquire("a");
    const client = new AbortController();
    const abandoned = gate.acquire("a", client.signal);
    const reason = new Error("client gone");
    client.abort(reason);
    await expect(abandoned).rejects.toBe(reason);
    // The place is free again: the queue holds one, and it is this one.
    const next = track(gate.acquire("a"), "next", admitted);
    await settle();
    expect(admitted).toEqual([]);
    running.release();
    await settle();
    expect(admitted).toEqual(["next"]);
    (await next).release();
  });

  it("refuses at once, taking no place, when the client has already left", async () => {
    const gate = fairShareGate({ maxQueued: 0, share: 1 });
    const client = new AbortController();
    client.abort(new Error("gone"));
    await expect(gate.acquire("a", client.signal)).rejects.toThrow("gone");
    const permit = await gate.acquire("a");
    permit.release();
  });

  it("releases a permit once only, however often release is called", async () => {
    const gate = fairShareGate({ concurrency: 1, share: 1 });
    const admitted: string[] = [];
    const first = await gate.acquire("a");
    const second = track(gate.acquire("a"), "a2", admitted);
    const third = track(gate.acquire("a"), "a3", admitted);
    first.release();
    first.release();
    await settle();
    // A second release of the first permit did not let the third request in beside the second.
    expect(admitted).toEqual(["a2"]);
    (await second).release();
    (await third).release();
  });

  it("frees the organization's place when the work fails", async () => {
    const gate = fairShareGate({ share: 1 });
    const work = async (): Promise<void> => {
      const permit = await gate.acquire("a");
      try {
        throw new Error("store failed");
      } finally {
        permit.release();
      }
    };
    await expect(work()).rejects.toThrow("store failed");
    const permit = await gate.acquire("a");
    permit.release();
  });

  it("rejects options that would admit nothing", () => {
    expect(() => fairShareGate({ concurrency: 0 })).toThrow(/concurrency/);
    expect(() => fairShareGate({ maxQueued: -1 })).toThrow(/maxQueued/);
    expect(() => fairShareGate({ concurrency: 1.5 })).toThrow(/concurrency/);
    expect(() => fairShareGate({ share: 0 })).toThrow(/share/);
    expect(() => fairShareGate({ share: -0.5 })).toThrow(/share/);
    expect(() => fairShareGate({ share: 1.5 })).toThrow(/share/);
    expect(() => fairShareGate({ share: Number.NaN })).toThrow(/share/);
  });

  it("estimates Retry-After from how long permits are held", async () => {
    let clock = 0;
    const gate = fairShareGate({ maxQueued: 1, now: () => clock, share: 1 });
    const held = await gate.acquire("a");
    clock += 5_000;
    held.release();
    const running = await gate.acquire("a");
    const waiting = gate.acquire("a");
    const error = (await gate.acquire("a").catch((refusal: unknown) => refusal)) as ScimError;
    // One ahead in the queue and one running, each holding about five seconds.
    expect(error.retryAfter).toBe(10);
    running.release();
    (await waiting).release();
  });
});

interface FakeTime {
  readonly now: () => number;
  readonly setTimer: (callback: () => void, ms: number) => () => void;
  /** Moves the clock on by `ms` and runs every timer due by then. */
  advance(ms: number): void;
  /** Timers scheduled and not yet run or cancelled. */
  pending(): number;
}

/** A clock and timers that move only when the test says so. */
function fakeTime(): FakeTime {
  let clock = 0;
  const timers = new Set<{ readonly due: number; readonly run: () => void }>();
  return {
    now: () => clock,
    setTimer(callback, ms) {
      const timer = { due: clock + ms, run: callback };
      timers.add(timer);
      return () => void timers.delete(timer);
    },
    advance(ms) {
      clock += ms;
      for (const timer of [...timers].sort((a, b) => a.due - b.due)) {
        if (timer.due > clock || !timers.has(timer)) continue;
        timers.delete(timer);
        timer.run();
      }
    },
    pending: () => timers.size,
  };
}

describe("fairShareGate's duty cycle", () => {
  it("grants an organization's next permit only after a rest of d × (1 / share − 1), and another organization's at once", async () => {
    const time = fakeTime();
    const gate = fairShareGate({ share: 0.25, now: time.now, setTimer: time.setTimer });
    const admitted: string[] = [];
    const first = await gate.acquire("a");
    time.advance(100);
    first.release();
    gate.observe?.("b");
    // Held 100 at a quarter share, with a neighbour about: three times as long at rest, 300.
    const second = track(gate.acquire("a"), "a2", admitted);
    const other = track(gate.acquire("b"), "b1", admitted);
    await settle();
    expect(admitted).toEqual(["b1"]);
    time.advance(299);
    await settle();
    expect(admitted).toEqual(["b1"]);
    time.advance(1);
    await settle();
    expect(admitted).toEqual(["b1", "a2"]);
    (await second).release();
    (await other).release();
    expect(time.pending()).toBe(0);
  });

  it("rests as long as the permit was held at a share of one half, and admits the queue in order afterwards", async () => {
    const time = fakeTime();
    const gate = fairShareGate({ share: 0.5, now: time.now, setTimer: time.setTimer });
    const admitted: string[] = [];
    const first = await gate.acquire("a");
    time.advance(40);
    first.release();
    gate.observe?.("neighbour");
    const waiting = ["a2", "a3"].map((label) => track(gate.acquire("a"), label, admitted));
    time.advance(39);
    await settle();
    expect(admitted).toEqual([]);
    time.advance(1);
    await settle();
    expect(admitted).toEqual(["a2"]);
    // a2 held nothing: a3 follows without a rest.
    (await waiting[0])?.release();
    await settle();
    expect(admitted).toEqual(["a2", "a3"]);
    (await waiting[1])?.release();
  });

  it("never holds back an organization alone, and rests it again once a neighbour has been seen within ACTIVE_WINDOW_MS", async () => {
    const time = fakeTime();
    const gate = fairShareGate({ share: 0.25, now: time.now, setTimer: time.setTimer });
    const loop = async (): Promise<void> => {
      const permit = await gate.acquire("a");
      time.advance(100);
      permit.release();
    };
    // Alone: each permit follows the last at once, no rest, no timer.
    for (let round = 0; round < 3; round++) await loop();
    expect(time.pending()).toBe(0);
    const admitted: string[] = [];
    // A neighbour's request (a cheap one: the router reports every request) brings the rest back.
    gate.observe?.("b");
    const resting = track(gate.acquire("a"), "a", admitted);
    await settle();
    expect(admitted).toEqual([]);
    time.advance(300);
    await settle();
    expect(admitted).toEqual(["a"]);
    // Held long enough that its rest (3 × ACTIVE_WINDOW_MS) is far from over when it asks again,
    // by which time the neighbour was last seen longer than ACTIVE_WINDOW_MS ago: alone, no rest.
    time.advance(ACTIVE_WINDOW_MS);
    (await resting).release();
    const free = await gate.acquire("a");
    expect(time.pending()).toBe(0);
    free.release();
  });

  it("charges nothing to an organization whose rest is over, nor with share 1", async () => {
    const time = fakeTime();
    const gate = fairShareGate({ now: time.now, setTimer: time.setTimer });
    const first = await gate.acquire("a");
    time.advance(50);
    first.release();
    time.advance(50);
    // The rest ended while the organization was idle: granted at once, no timer.
    const again = await gate.acquire("a");
    expect(time.pending()).toBe(0);
    again.release();

    const off = fairShareGate({ share: 1, now: time.now, setTimer: time.setTimer });
    const held = await off.acquire("a");
    time.advance(1_000);
    held.release();
    const next = await off.acquire("a");
    expect(time.pending()).toBe(0);
    next.release();
  });

  it("keeps the queue bound during the rest: one beyond it is refused with a Retry-After that includes the rest", async () => {
    const time = fakeTime();
    const gate = fairShareGate({ maxQueued: 1, share: 0.5, now: time.now, setTimer: time.setTimer });
    const first = await gate.acquire("a");
    time.advance(4_000);
    first.release();
    gate.observe?.("neighbour");
    const waiting = gate.acquire("a");
    const error = (await gate.acquire("a").catch((refusal: unknown) => refusal)) as ScimError;
    expect(error.status).toBe(429);
    expect(error.detail).toContain("0 expensive requests running and 1 waiting");
    // 4 s of rest left, then the waiting one and this one, each about 4 s held and 4 s at rest.
    expect(error.retryAfter).toBe(20);
    time.advance(4_000);
    (await waiting).release();
  });

  it("lets a client that leaves during the rest out of the queue, and drops the timer once the queue is empty", async () => {
    const time = fakeTime();
    const gate = fairShareGate({ maxQueued: 1, share: 0.5, now: time.now, setTimer: time.setTimer });
    const admitted: string[] = [];
    const first = await gate.acquire("a");
    time.advance(100);
    first.release();
    gate.observe?.("neighbour");
    const client = new AbortController();
    const abandoned = gate.acquire("a", client.signal);
    expect(time.pending()).toBe(1);
    const reason = new Error("client gone");
    client.abort(reason);
    await expect(abandoned).rejects.toBe(reason);
    expect(time.pending()).toBe(0);
    // Its place is free, and the rest still holds for the next one.
    const next = track(gate.acquire("a"), "next", admitted);
    await settle();
    expect(admitted).toEqual([]);
    time.advance(100);
    await settle();
    expect(admitted).toEqual(["next"]);
    (await next).release();
  });

  it("grants at once after 200 organizations came and went and their rests ended (the idle lanes are swept)", async () => {
    const time = fakeTime();
    const gate = fairShareGate({ now: time.now, setTimer: time.setTimer });
    // Many organizations each hold a permit once; none of them is waited for afterwards.
    for (let index = 0; index < 200; index++) {
      const permit = await gate.acquire(`org${index}`);
      time.advance(1);
      permit.release();
    }
    time.advance(10);
    const admitted: string[] = [];
    const fresh = await track(gate.acquire("org0"), "org0", admitted);
    expect(admitted).toEqual(["org0"]);
    expect(time.pending()).toBe(0);
    fresh.release();
  });

  it("ends a rest on a real timer by default", async () => {
    const gate = fairShareGate();
    const first = await gate.acquire("a");
    await new Promise((resolve) => setTimeout(resolve, 5));
    first.release();
    gate.observe?.("neighbour");
    // Waits its rest on a real timer, then runs.
    const next = await gate.acquire("a");
    next.release();
  });
});

describe("fairShareGate's groups and its bound on everyone", () => {
  it("queues the request of a group beyond groupConcurrency, whichever of its organizations sends it, while another group runs", async () => {
    const gate = fairShareGate({ groupConcurrency: 8, maxRunning: 10, share: 1 });
    const admitted: string[] = [];
    const divisions = Array.from({ length: 9 }, (_, index) => `division${index + 1}`);
    const tree = divisions.map((orgId) => track(gate.acquire(orgId, undefined, "holding"), orgId, admitted));
    const other = track(gate.acquire("neighbour", undefined, "neighbour"), "neighbour", admitted);
    await settle();
    expect(admitted).toEqual([...divisions.slice(0, 8), "neighbour"]);
    (await tree[0])?.release();
    await settle();
    expect(admitted).toEqual([...divisions.slice(0, 8), "neighbour", "division9"]);
    for (const permit of await Promise.all([...tree.slice(1), other])) permit.release();
  });

  it("counts a group's organizations as one by default: a second organization of the tree waits for the first", async () => {
    const gate = fairShareGate({ share: 1 });
    const admitted: string[] = [];
    const first = await gate.acquire("division1", undefined, "holding");
    const second = track(gate.acquire("division2", undefined, "holding"), "division2", admitted);
    const other = track(gate.acquire("neighbour"), "neighbour", admitted);
    await settle();
    expect(admitted).toEqual(["neighbour"]);
    first.release();
    await settle();
    expect(admitted).toEqual(["neighbour", "division2"]);
    (await second).release();
    (await other).release();
  });

  it("runs at most maxRunning expensive requests in all, and admits the next once one ends", async () => {
    const gate = fairShareGate({ share: 1 });
    const admitted: string[] = [];
    const permits = ["a", "b", "c", "d"].map((orgId) => track(gate.acquire(orgId), orgId, admitted));
    await settle();
    // The default leaves the fourth SQLite reader to lookups.
    expect(admitted).toEqual(["a", "b", "c"]);
    (await permits[1])?.release();
    await settle();
    expect(admitted).toEqual(["a", "b", "c", "d"]);
    for (const permit of await Promise.all([permits[0], permits[2], permits[3]])) permit?.release();
  });

  it("rests the group, not only the organization: the tree's next organization waits, another group does not", async () => {
    const time = fakeTime();
    const gate = fairShareGate({ share: 0.25, now: time.now, setTimer: time.setTimer });
    const admitted: string[] = [];
    const first = await gate.acquire("division1", undefined, "holding");
    time.advance(100);
    first.release();
    gate.observe?.("neighbour");
    const sibling = track(gate.acquire("division2", undefined, "holding"), "division2", admitted);
    const other = track(gate.acquire("neighbour"), "neighbour", admitted);
    await settle();
    expect(admitted).toEqual(["neighbour"]);
    time.advance(300);
    await settle();
    expect(admitted).toEqual(["neighbour", "division2"]);
    (await sibling).release();
    (await other).release();
  });

  it("never rests a tree whose own organizations are the only ones about", async () => {
    const time = fakeTime();
    const gate = fairShareGate({ share: 0.25, now: time.now, setTimer: time.setTimer });
    const first = await gate.acquire("division1", undefined, "holding");
    time.advance(100);
    first.release();
    // A sibling's cheap request is its own tree's: nobody else is being served.
    gate.observe?.("division2", "holding");
    const next = await gate.acquire("division2", undefined, "holding");
    expect(time.pending()).toBe(0);
    next.release();
  });
});
