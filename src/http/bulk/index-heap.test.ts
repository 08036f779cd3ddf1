import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fuzzParameters } from "../../scim/fuzz.fixture.js";
import { createIndexHeap } from "./index-heap.js";

describe("createIndexHeap", () => {
  it("takes the queued indexes lowest first, whatever the order they came in", () => {
    fc.assert(
      fc.property(fc.array(fc.nat(1_000)), (indexes) => {
        const heap = createIndexHeap();
        for (const index of indexes) heap.push(index);
        expect(heap.size).toBe(indexes.length);
        const taken: number[] = [];
        for (let index = heap.pop(); index !== undefined; index = heap.pop()) taken.push(index);
        expect(taken).toEqual([...indexes].sort((a, b) => a - b));
      }),
      fuzzParameters(200),
    );
  });

  it("interleaves pushes and pops", () => {
    const heap = createIndexHeap();
    heap.push(5);
    heap.push(2);
    expect(heap.pop()).toBe(2);
    heap.push(1);
    heap.push(9);
    expect([heap.pop(), heap.pop(), heap.pop(), heap.pop()]).toEqual([1, 5, 9, undefined]);
  });
});
