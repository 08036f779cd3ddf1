/** A small workers results file for the summary and section tests. */
import type { LoadStats } from "./run-load.js";
import type { WorkersResults } from "./workers-results.js";

const stats = (rps: number, p50Ms: number, p99Ms: number, errors = 0): LoadStats => ({
  rps,
  p50Ms,
  p99Ms,
  errors,
  count: rps * 10,
  p90Ms: p99Ms,
  maxMs: p99Ms,
  meanMs: p50Ms,
  ok: rps * 10,
  non2xx: errors,
  timeouts: 0,
  statusCodes: { 200: rps * 10 },
  elapsedSec: 10,
});

export const workersResults: WorkersResults = {
  version: 1,
  kind: "workers",
  startedAt: "2026-11-24T14:00:00.000Z",
  machine: {
    cpuModel: "Test CPU",
    cpuCount: 2,
    availableParallelism: 2,
    totalMemoryBytes: 1,
    platform: "linux",
    nodeVersion: "v24",
    loadAverageAtStart: [1, 1, 1],
    tasksetAvailable: true,
    pinned: false,
    postgresVersion: "15.20",
  },
  config: {
    workers: [1, 2],
    rounds: 2,
    users: 2000,
    warmup: 3,
    duration: 10,
    connections: 32,
    timeout: 30,
    bareCluster: true,
    noDocs: false,
  },
  bare: [
    { at: "start", processes: 1, stats: stats(9000, 1, 5) },
    { at: "after round 1", processes: 1, stats: stats(11000, 1, 5) },
  ],
  bareCluster: [{ at: "round 1", processes: 2, stats: stats(15000, 1, 4) }],
  runs: [
    {
      workers: 1,
      round: 1,
      phases: [
        {
          key: "read",
          label: "GET /Users/{id}",
          stats: stats(1000, 20, 60),
          // Host and PostgreSQL together used one of the two cores.
          cpu: { hostPct: 30, postgresPct: 20, runnerPct: 10, otherPct: 35, stealPct: 0, idlePct: 5 },
        },
        { key: "write", label: "PATCH replace active", stats: stats(400, 50, 150) },
      ],
    },
    {
      workers: 2,
      round: 1,
      phases: [
        { key: "read", label: "GET /Users/{id}", stats: stats(1500, 15, 50) },
        { key: "write", label: "PATCH replace active", stats: stats(500, 40, 100, 2) },
      ],
    },
    { workers: 1, round: 2, phases: [{ key: "read", label: "GET /Users/{id}", stats: stats(1200, 18, 40) }] },
    { workers: 2, round: 2, phases: [], error: "the host exited 1 after SIGTERM" },
  ],
};
