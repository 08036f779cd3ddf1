/** The log-on ÷ log-off ratios: paired by target, size and phase within one run. */
import { describe, expect, it } from "vitest";
import type { BenchResults, PhaseResult, TargetRun } from "./bench-results.js";
import type { LoadStats } from "./run-load.js";
import { requestLogCostTable, requestLogCosts } from "./request-log-cost.js";

const phase = (key: PhaseResult["key"], rps: number, groupSize?: number): PhaseResult => ({
  key,
  label: key,
  ...(groupSize === undefined ? {} : { groupSize }),
  stats: { rps, p50Ms: 1000 / rps } as LoadStats,
  targetCpuUsPerRequest: 400_000 / rps,
});
const run = (target: TargetRun["target"], n: number, phases: PhaseResult[], requestLog?: TargetRun["requestLog"]): TargetRun => ({
  target,
  n,
  description: "",
  phases,
  ...(requestLog === undefined ? {} : { requestLog }),
});

describe("requestLogCosts", () => {
  it("divides each log-on phase by the same target, size and phase with the log off", () => {
    const results: Pick<BenchResults, "runs"> = {
      runs: [
        run("memory", 10_000, [phase("users.getById", 2000), phase("users.post", 1000)]),
        run("memory", 10_000, [phase("users.getById", 1900), phase("users.post", 800)], "memory"),
        run("sqlite", 10_000, [phase("users.getById", 1000)]),
        run("sqlite", 10_000, [phase("users.getById", 500)], "memory"),
        run("sqlite", 10_000, [phase("users.getById", 800)]),
        run("sqlite", 10_000, [phase("users.getById", 720)], "memory"),
        run("sqlite", 1_000, [phase("users.getById", 500)], "memory"),
      ],
    };
    const costs = requestLogCosts(results);
    expect(costs.map((cost) => [cost.target, cost.phase, cost.ratio])).toEqual([
      ["memory", "users.getById", 0.95],
      ["memory", "users.post", 0.8],
      ["sqlite", "users.getById", 0.5],
      ["sqlite", "users.getById", 0.9],
    ]);
    const table = requestLogCostTable(costs);
    expect(table).toContain("| memory @ 10,000 | memory | users.getById | 2000 | 1900 | 95.0% |");
    expect(table).toContain("| 80.0% ❌ | 1.00 → 1.25 | 400 → 500 (+25.0%) |");
  });
});
