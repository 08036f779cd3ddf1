/** The four noisy-neighbour targets, each just met and just missed, and the failures that have no figure. */
import { describe, expect, it } from "vitest";
import { evaluateNoisyRun } from "./evaluate-noisy-goals.js";
import type { NoisyWindow } from "./noisy-neighbour-results.js";
import { run, stats, window } from "./noisy-run.fixture.js";

describe("evaluateNoisyRun", () => {
  it("meets all four targets when B barely notices A and A answers within 1 s", () => {
    const goals = evaluateNoisyRun(
      run([window("alone", stats(4_000, 10, 60)), window("lists", stats(3_000, 20, 120), 300), window("bulk", stats(2_500, 25, 200), 900)]),
    );
    expect(goals.map((goal) => goal.status)).toEqual(["met", "met", "met", "met"]);
    expect(goals[0]?.measured).toContain("63% (2500 vs 4000 req/s; under Bulk");
  });

  it("names the worst of A's loads for each target, and misses each threshold just past it", () => {
    const goals = evaluateNoisyRun(
      run([
        window("alone", stats(4_000, 10, 60)),
        window("lists", stats(1_900, 31, 250), 1_001),
        window("patch", stats(3_000, 12, 100), 200),
      ]),
    );
    expect(goals.map((goal) => goal.status)).toEqual(["not met", "not met", "not met", "not met"]);
    expect(goals[0]?.measured).toContain("three list requests");
    expect(goals[3]?.measured).toContain("lists request");
  });

  it("counts a window where B completed nothing, and an A request without an answer, as failures", () => {
    const stalled = stats(0, Number.NaN, Number.NaN, { ok: 0, count: 0, statusCodes: {} });
    const lost: NoisyWindow = {
      load: "patch",
      b: stalled,
      a: [{ shape: "PATCH", count: 1, statusCodes: { timeout: 1 }, p50Ms: 800, maxMs: 800, meanMs: 800 }],
    };
    const goals = evaluateNoisyRun(run([window("alone", stats(4_000, 10, 60)), lost], 5_000));
    expect(goals.map((goal) => goal.status)).toEqual(["not met", "not met", "not met", "not met"]);
    expect(goals[1]?.measured).toContain("no B request completed");
    expect(goals[3]?.measured).toContain("1 without an answer");
    expect(goals[0]?.caveat).toContain("5,000 users");
  });

  it("takes an event-loop stall during B's window as B's max when it is longer: a B request waited that long", () => {
    const stall: NoisyWindow = { ...window("patch", stats(3_900, 10, 40), 500), bWindowEventLoopDelayMs: 400 };
    const goal = evaluateNoisyRun(run([window("alone", stats(4_000, 10, 60)), stall]))[2];
    expect(goal?.status).toBe("not met");
    expect(goal?.measured).toBe(
      "400 ms (an event-loop stall; the slowest counted request took 40 ms) (under PATCH of 12,000 replace ops; alone before it: 60 ms)",
    );
  });

  it("does not judge the helper requests", () => {
    const helper: NoisyWindow = {
      load: "add",
      b: stats(3_000, 10, 60),
      a: [
        { shape: "add", count: 2, statusCodes: { 400: 2 }, p50Ms: 5, maxMs: 6, meanMs: 5 },
        { shape: "reset", helper: true, count: 2, statusCodes: { 200: 2 }, p50Ms: 1_500, maxMs: 2_000, meanMs: 1_500 },
      ],
    };
    expect(evaluateNoisyRun(run([window("alone", stats(4_000, 10, 60)), helper]))[3]?.status).toBe("met");
  });
});
