/** Noisy-neighbour results for the tests of the goals and the report: B's stats, windows, runs. */
import type { NoisyRun, NoisyWindow } from "./noisy-neighbour-results.js";
import type { LoadStats } from "./run-load.js";

export function stats(rps: number, p99Ms: number, maxMs: number, extra: Partial<LoadStats> = {}): LoadStats {
  const ok = Math.round(rps * 10);
  return {
    count: ok,
    p50Ms: p99Ms / 4,
    p90Ms: p99Ms / 2,
    p99Ms,
    maxMs,
    meanMs: p99Ms / 3,
    rps,
    ok,
    errors: 0,
    non2xx: 0,
    timeouts: 0,
    statusCodes: { 200: ok },
    elapsedSec: 10,
    ...extra,
  };
}

export function window(load: NoisyWindow["load"], b: LoadStats, aMaxMs?: number): NoisyWindow {
  return {
    load,
    b,
    ...(aMaxMs === undefined
      ? {}
      : { a: [{ shape: `${load} request`, count: 3, statusCodes: { 200: 3 }, p50Ms: aMaxMs / 2, maxMs: aMaxMs, meanMs: aMaxMs / 2 }] }),
    maxEventLoopDelayMs: 12,
  };
}

export function run(windows: NoisyWindow[], aUsers = 50_000): NoisyRun {
  return { target: "memory", aUsers, bUsers: 100, connections: 10, durationSec: 10, description: "", windows };
}
