/**
 * What the provisioning log costs (issue 18: "the log on costs ≤ 10% of throughput"): each phase of
 * a target measured with a log beside the same phase, target and size measured without one in the
 * same run, as the throughput kept (log-on req/s ÷ log-off req/s).
 */
import type { RequestLogKind, TargetKind } from "./bench-config.js";
import type { BenchResults, PhaseResult } from "./bench-results.js";

/** One phase measured with and without a log. */
export interface RequestLogCost {
  readonly target: TargetKind;
  readonly n: number;
  readonly requestLog: Exclude<RequestLogKind, "off">;
  readonly phase: string;
  readonly offRps: number;
  readonly onRps: number;
  /** `onRps / offRps`: 0.9 and above meets the bound. */
  readonly ratio: number;
  readonly offP50Ms: number;
  readonly onP50Ms: number;
  /**
   * The target's CPU per request with the log off and on (µs), when measured: the log's cost in
   * work, which a machine busy with other processes disturbs far less than throughput.
   */
  readonly offCpuUs?: number;
  readonly onCpuUs?: number;
}

/** The bound: the log on keeps at least this share of the throughput. */
export const REQUEST_LOG_MIN_RATIO = 0.9;

const phaseName = (phase: PhaseResult): string => (phase.groupSize === undefined ? phase.key : `${phase.key}@${phase.groupSize}`);

/** Every phase of a log-on run that the same run also measured with the log off, in run order. */
export function requestLogCosts(results: Pick<BenchResults, "runs">): RequestLogCost[] {
  const costs: RequestLogCost[] = [];
  results.runs.forEach((on, index) => {
    if (on.requestLog === undefined) return;
    // The log-off run of the same target and size nearest before it (`--request-log=off,memory,off,memory`
    // pairs each on with the off just before it), else the first after it.
    const twin = (run: (typeof results.runs)[number]): boolean =>
      run.requestLog === undefined && run.target === on.target && run.n === on.n;
    const off = results.runs.slice(0, index).reverse().find(twin) ?? results.runs.slice(index + 1).find(twin);
    if (!off) return;
    for (const phase of on.phases) {
      const before = off.phases.find((candidate) => phaseName(candidate) === phaseName(phase));
      if (!phase.stats || !before?.stats || before.stats.rps === 0) continue;
      costs.push({
        target: on.target,
        n: on.n,
        requestLog: on.requestLog,
        phase: phaseName(phase),
        offRps: before.stats.rps,
        onRps: phase.stats.rps,
        ratio: phase.stats.rps / before.stats.rps,
        offP50Ms: before.stats.p50Ms,
        onP50Ms: phase.stats.p50Ms,
        ...(before.targetCpuUsPerRequest === undefined ? {} : { offCpuUs: before.targetCpuUsPerRequest }),
        ...(phase.targetCpuUsPerRequest === undefined ? {} : { onCpuUs: phase.targetCpuUsPerRequest }),
      });
    }
  });
  return costs;
}

const cpuOf = (cost: RequestLogCost): string =>
  cost.offCpuUs === undefined || cost.onCpuUs === undefined
    ? "–"
    : `${Math.round(cost.offCpuUs)} → ${Math.round(cost.onCpuUs)} (+${(((cost.onCpuUs - cost.offCpuUs) / cost.offCpuUs) * 100).toFixed(1)}%)`;

/** The costs as a Markdown table, one row per phase. */
export function requestLogCostTable(costs: readonly RequestLogCost[]): string {
  const rows = costs.map(
    (cost) =>
      `| ${cost.target} @ ${cost.n.toLocaleString("en-US")} | ${cost.requestLog} | ${cost.phase} | ${Math.round(cost.offRps)} | ${Math.round(cost.onRps)} | ${(cost.ratio * 100).toFixed(1)}%${cost.ratio >= REQUEST_LOG_MIN_RATIO ? "" : " ❌"} | ${cost.offP50Ms.toFixed(2)} → ${cost.onP50Ms.toFixed(2)} | ${cpuOf(cost)} |`,
  );
  return [
    "| Target | Log | Phase | Log off req/s | Log on req/s | On ÷ off | p50 ms off → on | Target CPU µs/request off → on |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}
