import { describe, expect, it } from "vitest";
import { driveInSlices, eventLoopSlice, mapInSlices } from "./event-loop-slice.js";

describe("eventLoopSlice", () => {
  it("is not due at once, is due once its budget is spent, and starts over after a turn", async () => {
    const slice = eventLoopSlice(1_000_000);
    expect(slice.due()).toBe(false);
    const spent = eventLoopSlice(0);
    expect(spent.due()).toBe(true);
    let ranBetween = false;
    setImmediate(() => {
      ranBetween = true;
    });
    await spent.next();
    // The turn let the callback queued before it run first.
    expect(ranBetween).toBe(true);
  });
});

describe("mapInSlices", () => {
  it("maps in order, giving the loop turns when the slice is spent", async () => {
    let turns = 0;
    const slice = { due: () => true, next: async () => void (turns += 1) };
    const input = Array.from({ length: 1000 }, (_, index) => index);
    expect(await mapInSlices(input, (value) => value * 2, slice)).toEqual(input.map((value) => value * 2));
    expect(turns).toBeGreaterThan(10);
  });

  it("takes no turn while the slice lasts", async () => {
    let turns = 0;
    const slice = { due: () => false, next: async () => void (turns += 1) };
    expect(await mapInSlices(["a", "b"], (value) => value.toUpperCase(), slice)).toEqual(["A", "B"]);
    expect(turns).toBe(0);
  });
});

/** Steps that log themselves, beside a ticker that logs each turn of the event loop. */
async function interleaving(sliceMs: number): Promise<string[]> {
  const log: string[] = [];
  let ticking = true;
  const tick = (): void => {
    log.push("turn");
    if (ticking) setImmediate(tick);
  };
  function* steps(): Generator<void, string, void> {
    for (let step = 0; step < 3; step += 1) {
      log.push(`step ${step}`);
      yield;
    }
    return "done";
  }
  setImmediate(tick);
  const result = await driveInSlices(steps(), eventLoopSlice(sliceMs));
  ticking = false;
  log.push(result);
  return log;
}

describe("driveInSlices", () => {
  it("lets the event loop turn between steps once the slice is used up", async () => {
    const log = await interleaving(0);
    expect(log.slice(0, log.indexOf("done") + 1).filter((entry, index, all) => entry !== all[index - 1])).toEqual([
      "step 0",
      "turn",
      "step 1",
      "turn",
      "step 2",
      "turn",
      "done",
    ]);
  });

  it("runs every step in one turn while the slice lasts", async () => {
    const log = await interleaving(60_000);
    expect(log.slice(0, 4)).toEqual(["step 0", "step 1", "step 2", "done"]);
  });
});
