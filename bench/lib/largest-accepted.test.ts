/** Finding the largest size the server accepts from its answers, not from assumptions. */
import { describe, expect, it } from "vitest";
import { boundsNamedIn, largestAccepted, type Attempt } from "./largest-accepted.js";

describe("largestAccepted", () => {
  const server = (bound: number, detail: (size: number) => string | undefined) => {
    const tried: number[] = [];
    const tryOne = async (size: number): Promise<Attempt> => {
      tried.push(size);
      const text = detail(size);
      return size <= bound ? { size, status: 201, ms: 1 } : { size, status: 400, ms: 1, ...(text === undefined ? {} : { detail: text }) };
    };
    return { tried, tryOne };
  };

  it("takes the size wanted when it is accepted", async () => {
    const { tried, tryOne } = server(20_000, () => undefined);
    expect((await largestAccepted(10_000, tryOne)).accepted).toBe(10_000);
    expect(tried).toEqual([10_000]);
  });

  it("uses the bound a refusal names, and confirms it with one more try", async () => {
    const { tried, tryOne } = server(1_000, (size) => `emails has ${size} values; at most 1,000 are allowed`);
    expect((await largestAccepted(10_000, tryOne)).accepted).toBe(1_000);
    expect(tried).toEqual([10_000, 1_000, 1_001]);
  });

  it("bisects to within 1% when the refusal names no bound", async () => {
    const { tryOne } = server(3_333, () => "too many");
    const found = await largestAccepted(10_000, tryOne);
    expect(found.accepted).toBeLessThanOrEqual(3_333);
    expect(found.accepted).toBeGreaterThan(3_333 - 100);
    expect(found.attempts.length).toBeLessThanOrEqual(9);
  });

  it("gives up at an answer that is not a refusal (5xx): it says nothing about size", async () => {
    const found = await largestAccepted(10_000, async (size) => ({ size, status: 500, ms: 1 }));
    expect(found).toMatchObject({ accepted: 0 });
    expect(found.attempts).toHaveLength(1);
  });

  it("reads numbers below the size wanted from a detail, largest first", () => {
    expect(boundsNamedIn("12,000 operations; the maximum is 1000 (and 20000 bytes)", 12_000)).toEqual([1_000]);
    expect(boundsNamedIn(undefined, 10)).toEqual([]);
  });
});
