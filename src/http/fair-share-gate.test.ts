import { describe, expect, it } from "vitest";
import { ScimError } from "../errors.js";
import type { WorkPermit } from "./expensive-work-gate.js";
import { fairShareGate } from "./fair-share-gate.js";

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

describe("fairShareGate", () => {
  it("runs one expensive request per organization by default and admits the waiting ones in arrival order", async () => {
    const gate = fairShareGate();
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
    const gate = fairShareGate({ concurrency: 2 });
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
    const gate = fairShareGate({ maxQueued: 1 });
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
    const gate = fairShareGate({ maxQueued: 1 });
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
    const gate = fairShareGate({ maxQueued: 0 });
    const client = new AbortController();
    client.abort(new Error("gone"));
    await expect(gate.acquire("a", client.signal)).rejects.toThrow("gone");
    const permit = await gate.acquire("a");
    permit.release();
  });

  it("releases a permit once only, however often release is called", async () => {
    const gate = fairShareGate({ concurrency: 1 });
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
    const gate = fairShareGate();
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
  });

  it("estimates Retry-After from how long permits are held", async () => {
    let clock = 0;
    const gate = fairShareGate({ maxQueued: 1, now: () => clock });
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
