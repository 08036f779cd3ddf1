import { describe, expect, it } from "vitest";
import { inFlightCalls } from "./in-flight-calls.js";

describe("inFlightCalls", () => {
  it("counts a tracked object's pending promises, keeps `this`, and leaves other members alone", async () => {
    const calls = inFlightCalls();
    let release: () => void = () => undefined;
    const store = {
      name: "store",
      prefix: "n:",
      slow(): Promise<string> {
        return new Promise((resolve) => {
          release = () => resolve(`${this.prefix}done`);
        });
      },
      now: () => 42,
    };
    const tracked = calls.track(store);
    expect(tracked.name).toBe("store");
    expect(tracked.now()).toBe(42);
    expect(calls.count()).toBe(0);
    const pending = tracked.slow();
    expect(calls.count()).toBe(1);
    expect(await calls.idle(30, 0)).toBe(false);
    release();
    expect(await pending).toBe("n:done");
    expect(calls.count()).toBe(0);
    expect(await calls.idle(1000, 10)).toBe(true);
  });

  it("counts a rejected call as settled, and passes the rejection on", async () => {
    const calls = inFlightCalls();
    const tracked = calls.track({ fail: () => Promise.reject(new Error("database is down")) });
    await expect(tracked.fail()).rejects.toThrow("database is down");
    expect(calls.count()).toBe(0);
  });

  it("waits for a call that starts during the quiet period", async () => {
    const calls = inFlightCalls();
    const tracked = calls.track({ wait: (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)) });
    await tracked.wait(1);
    // As a handler does: its audit entry follows the write it answered.
    const next = new Promise<void>((resolve) => setTimeout(() => void tracked.wait(60).then(() => resolve()), 20));
    const idle = calls.idle(5000, 50);
    await next;
    expect(await idle).toBe(true);
    expect(calls.count()).toBe(0);
  });
});
