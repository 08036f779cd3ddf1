import { describe, expect, it } from "vitest";
import { workersResults } from "./workers-results.fixture.js";
import { summarizeWorkers } from "./workers-results.js";

describe("the 1 → N workers summary", () => {
  it("means each N over its rounds, as ratios to one bare Express process and as speed-ups over one worker", () => {
    const summary = summarizeWorkers(workersResults);
    expect(summary.baseline).toEqual({ rps: 10_000, p50Ms: 1, count: 2 });
    const [one, two] = summary.rows;
    expect(one).toMatchObject({ workers: 1, read: { rps: 1100, ratio: 0.11, speedUp: 1, p50Ms: 19, p99Ms: 50, perRound: [1000, 1200] } });
    // Only round 1 has a CPU split: its figure is the mean.
    expect(one?.read?.perServiceCoreSecond).toBe(1000);
    expect(one?.read?.cpu).toEqual({ hostPct: 30, postgresPct: 20, runnerPct: 10, otherPct: 35, stealPct: 0, idlePct: 5 });
    expect(one?.write?.perServiceCoreSecond).toBeUndefined();
    expect(one?.write).toMatchObject({ rps: 400, speedUp: 1, perRound: [400] });
    expect(one?.bareClusterRps).toBeUndefined();
    expect(two?.read?.speedUp).toBeCloseTo(1500 / 1100);
    expect(two).toMatchObject({ workers: 2, write: { rps: 500, ratio: 0.05, speedUp: 1.25, errors: 2 }, bareClusterRps: 15_000 });
  });

  it("refuses to summarize without a baseline", () => {
    expect(() => summarizeWorkers({ ...workersResults, bare: [] })).toThrow(/no bare Express measurement/);
  });
});
