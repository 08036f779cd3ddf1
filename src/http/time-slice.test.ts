import { describe, expect, it } from "vitest";
import { createTimeSlice } from "./time-slice.js";

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
  const result = await createTimeSlice(sliceMs).drive(steps());
  ticking = false;
  log.push(result);
  return log;
}

describe("createTimeSlice", () => {
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
