/** The soak run's result, as JSON and as the markdown summary written beside it. */
import type { LatencySummary } from "./latency-recorder.js";
import type { RssGrowthVerdict } from "./rss-growth.js";

/** One sampling interval of the run. */
export interface SoakWindow {
  readonly atSeconds: number;
  readonly requests: number;
  readonly errors: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly rssMiB: number;
  readonly liveUsers: number;
}

export interface SoakResult {
  readonly startedAt: string;
  readonly commit: string;
  readonly machine: {
    readonly cpus: number;
    readonly cpuModel: string;
    readonly memoryGiB: number;
    readonly node: string;
    readonly platform: string;
  };
  readonly config: {
    readonly seconds: number;
    readonly requestsPerSecond: number;
    readonly organizations: number;
    readonly workersPerOrganization: number;
    readonly population: number;
    readonly seed: number;
    readonly sampleSeconds: number;
    readonly store: string;
  };
  readonly elapsedSeconds: number;
  readonly requests: number;
  readonly errors: number;
  readonly errorRatePercent: number;
  readonly achievedRequestsPerSecond: number;
  readonly latency: LatencySummary;
  readonly operations: Readonly<Record<string, { readonly requests: number; readonly errors: number; readonly latency: LatencySummary }>>;
  readonly rss: RssGrowthVerdict;
  readonly windows: readonly SoakWindow[];
  readonly hostLogLines: number;
  readonly errorSamples: readonly string[];
  readonly shutdown: { readonly exitCode: number | null; readonly ms: number };
  readonly passed: boolean;
  readonly failures: readonly string[];
}

const ms = (value: number): string => (Number.isFinite(value) ? value.toFixed(1) : "–");

/** The markdown summary: verdict, totals, per-operation percentiles, and RSS over time. */
export function soakSummary(result: SoakResult): string {
  const { rss } = result;
  const lines = [
    `# Soak run ${result.startedAt}`,
    "",
    `**${result.passed ? "Passed" : "Failed"}**${result.failures.length > 0 ? `: ${result.failures.join("; ")}` : ""}.`,
    "",
    `Commit ${result.commit}; ${result.machine.cpus} × ${result.machine.cpuModel}, ${result.machine.memoryGiB} GiB, Node ${result.machine.node} (${result.machine.platform}).`,
    `Store: ${result.config.store}. ${result.config.organizations} organizations × ${result.config.workersPerOrganization} workers, ` +
      `target ${result.config.requestsPerSecond} req/s, population ${result.config.population} users per organization, seed ${result.config.seed}.`,
    "",
    "| | |",
    "|---|---|",
    `| Duration | ${result.elapsedSeconds} s |`,
    `| Requests | ${result.requests} (${result.achievedRequestsPerSecond} req/s) |`,
    `| Errors | ${result.errors} (${result.errorRatePercent} %) |`,
    `| Latency p50 / p90 / p99 / max | ${ms(result.latency.p50Ms)} / ${ms(result.latency.p90Ms)} / ${ms(result.latency.p99Ms)} / ${ms(result.latency.maxMs)} ms |`,
    `| RSS first / max | ${rss.firstMiB} / ${rss.maxMiB} MiB |`,
    `| RSS median, middle → last third | ${rss.middleThirdMedianMiB} → ${rss.lastThirdMedianMiB} MiB (${rss.growthPercent.toFixed(1)} %, limit ${rss.limitPercent} %) |`,
    `| RSS slope over the last two thirds | ${rss.slopeMiBPerMinute.toFixed(2)} MiB/min |`,
    `| Shutdown (SIGTERM) | exit ${result.shutdown.exitCode} after ${result.shutdown.ms} ms |`,
    "",
    "| Operation | Requests | Errors | p50 ms | p90 ms | p99 ms | max ms |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...Object.entries(result.operations)
      .sort(([, a], [, b]) => b.requests - a.requests)
      .map(
        ([operation, { requests, errors, latency }]) =>
          `| ${operation} | ${requests} | ${errors} | ${ms(latency.p50Ms)} | ${ms(latency.p90Ms)} | ${ms(latency.p99Ms)} | ${ms(latency.maxMs)} |`,
      ),
    "",
    `RSS and latency every ${result.config.sampleSeconds} s:`,
    "",
    "| t (s) | Requests | Errors | p50 ms | p99 ms | RSS MiB | Users |",
    "|---:|---:|---:|---:|---:|---:|---:|",
    ...result.windows.map(
      (window) =>
        `| ${window.atSeconds} | ${window.requests} | ${window.errors} | ${ms(window.p50Ms)} | ${ms(window.p99Ms)} | ${window.rssMiB} | ${window.liveUsers} |`,
    ),
    ...(result.errorSamples.length > 0
      ? ["", "First errors:", "", ...result.errorSamples.map((line) => `- \`${line.replaceAll("`", "'")}\``)]
      : []),
    "",
  ];
  return lines.join("\n");
}
