import { describe, expect, it } from "vitest";
import type { EventLoopSlice } from "../event-loop-slice.js";
import { sortedPrefix } from "./sorted-prefix.js";

/** A slice that is always spent, counting the turns it is asked to give. */
function countingSlice(): EventLoopSlice & { readonly turns: () => number } {
  let turns = 0;
  return {
    due: () => true,
    next: async () => {
      turns += 1;
    },
    turns: () => turns,
  };
}

interface Item {
  readonly key: number;
  readonly at: number;
}

function items(length: number, seed = 7): Item[] {
  let state = seed;
  // A small linear congruential generator: the same pseudo-random keys on every run, with repeats.
  return Array.from({ length }, (_, at) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return { key: state % 1000, at };
  });
}

const byKey = (a: Item, b: Item): number => a.key - b.key;

describe("sortedPrefix", () => {
  it.each([
    [0, 10],
    [5, 10],
    [4096, 4096],
    [4097, 50],
    [20_000, 100],
    [20_000, 15_000],
    [20_000, 20_000],
    [20_000, 30_000],
  ])("gives the first entries of %i in sorted order, as a stable sort would (limit %i)", async (length, limit) => {
    const input = items(length);
    const expected = input.slice().sort(byKey).slice(0, limit);
    expect(await sortedPrefix(input, limit, byKey)).toEqual(expected);
  });

  it("gives nothing for a limit of zero or less", async () => {
    expect(await sortedPrefix(items(10_000), 0, byKey)).toEqual([]);
    expect(await sortedPrefix(items(10_000), -3, byKey)).toEqual([]);
  });

  it("gives the event loop turns while it sorts a long list, and leaves the input as it was", async () => {
    const input = items(20_000);
    const before = input.slice();
    const slice = countingSlice();
    const sorted = await sortedPrefix(input, 20_000, byKey, slice);
    expect(slice.turns()).toBeGreaterThan(5);
    expect(sorted).toEqual(before.slice().sort(byKey));
    expect(input).toEqual(before);
  });
});
