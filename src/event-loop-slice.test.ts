import { describe, expect, it } from "vitest";
import { eventLoopSlice, mapInSlices } from "./event-loop-slice.js";

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
