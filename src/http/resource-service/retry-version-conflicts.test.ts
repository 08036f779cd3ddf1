import { describe, expect, it } from "vitest";
import { ScimError, ScimType } from "../../errors.js";
import { retryVersionConflicts } from "./retry-version-conflicts.js";

const stale = (): ScimError => new ScimError(412, undefined, "stale");

/** A fake clock that `sleep` advances, so the time budget is exercised without waiting. */
function fakeTime() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

describe("retryVersionConflicts", () => {
  it("retries version conflicts until the attempt succeeds, with growing jittered waits", async () => {
    const time = fakeTime();
    let attempts = 0;
    const result = await retryVersionConflicts(
      async () => {
        attempts += 1;
        if (attempts < 40) throw stale();
        return "done";
      },
      { ...time, random: () => 0.999 },
    );
    expect(result).toBe("done");
    // Far more than any count a client could hit: bounded by time only.
    expect(attempts).toBe(40);
    expect(time.sleeps.slice(0, 4)).toEqual([4, 9, 19, 39]);
    expect(Math.max(...time.sleeps)).toBeLessThanOrEqual(250);
  });

  it("passes any other error through at once, a uniqueness 409 included", async () => {
    const time = fakeTime();
    const clash = new ScimError(409, ScimType.uniqueness, "taken");
    await expect(retryVersionConflicts(() => Promise.reject(clash), time)).rejects.toBe(clash);
    await expect(retryVersionConflicts(() => Promise.reject(new Error("down")), time)).rejects.toThrow("down");
    expect(time.sleeps).toEqual([]);
  });

  it("answers 503 with Retry-After when conflicts outlast the budget, never 409", async () => {
    const time = fakeTime();
    const failure = await retryVersionConflicts(() => Promise.reject(stale()), { ...time, budgetMs: 2_000, random: () => 0.5 }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ScimError);
    expect(failure).toMatchObject({ status: 503, scimType: undefined, retryAfter: 1 });
    expect(time.now()).toBeLessThanOrEqual(2_000);
    expect(time.now()).toBeGreaterThan(1_800);
  });
});
