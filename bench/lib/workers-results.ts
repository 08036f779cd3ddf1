/**
 * What `bench/workers-scaling.ts` writes to `bench/results/<date>-workers.json`, and the per-N
 * summary the report shows: each figure also as a ratio to the bare Express endpoint measured in
 * the same run (one process), and as a speed-up over one worker.
 */
import type { CpuSplit } from "./cpu-split.js";
import type { MachineInfo } from "./machine-info.js";
import type { LoadStats } from "./run-load.js";
import type { SourceVersion } from "./source-version.js";
import type { WorkersConfig } from "./workers-config.js";

export type WorkersPhaseKey = "read" | "write";

export interface WorkersPhase {
  readonly key: WorkersPhaseKey;
  /** The request, e.g. `GET /Users/{id}`. */
  readonly label: string;
  readonly stats: LoadStats;
  /** Where the cores went during the measured seconds. */
  readonly cpu?: CpuSplit;
}

export interface WorkersRun {
  /** `SCIMKIT_WORKERS`. */
  readonly workers: number;
  /** 1-based round of the alternation. */
  readonly round: number;
  /** Seeding the users over HTTP, through the host itself. */
  readonly seeding?: { readonly users: number; readonly ms: number; readonly perSecond: number };
  readonly phases: WorkersPhase[];
  /** The 1-minute load average when the host started (noise indicator). */
  readonly loadAverage?: number;
  readonly logFile?: string;
  /** The host's exit code after SIGTERM: 0 when every worker drained and stopped. */
  readonly exitCode?: number | null;
  readonly error?: string;
}

export interface BareRun {
  /** When in the run: `start`, `after round 1`, … */
  readonly at: string;
  /** Cluster processes serving `GET /bare` (1: the house baseline). */
  readonly processes: number;
  readonly stats: LoadStats;
  /** Where the cores went (the "host" is bare Express here). */
  readonly cpu?: CpuSplit;
}

export interface WorkersResults {
  readonly version: 1;
  readonly kind: "workers";
  readonly startedAt: string;
  finishedAt?: string;
  readonly machine: MachineInfo & { readonly availableParallelism: number };
  readonly config: Omit<WorkersConfig, "postgresUrl">;
  readonly source?: SourceVersion;
  /** Bare Express as one process: the denominator of every ratio. */
  readonly bare: BareRun[];
  /** Bare Express as N cluster processes: the ceiling of clustering here (empty when not asked). */
  readonly bareCluster: BareRun[];
  readonly runs: WorkersRun[];
}

/** Mean of the figures a phase gives over rounds. */
export interface PhaseSummary {
  readonly rps: number;
  /** `rps` over the one-process bare Express mean. */
  readonly ratio: number;
  /** `rps` over the same phase's mean at the fewest workers measured (normally 1). */
  readonly speedUp: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
  /** Each round's req/s, in run order. */
  readonly perRound: readonly number[];
  /** Mean shares of all cores over the rounds. */
  readonly cpu?: CpuSplit;
  /**
   * 2xx answers per second of CPU the service used (host and PostgreSQL, summed over cores), the
   * mean over rounds: flat across N means throughput followed the CPU the service was given.
   */
  readonly perServiceCoreSecond?: number;
}

export interface WorkersSummaryRow {
  readonly workers: number;
  readonly read?: PhaseSummary;
  readonly write?: PhaseSummary;
  /** Bare Express with this many cluster processes, req/s (mean), when measured. */
  readonly bareClusterRps?: number;
}

export interface WorkersSummary {
  /** One-process bare Express, mean over its measurements. */
  readonly baseline: { readonly rps: number; readonly p50Ms: number; readonly count: number };
  readonly rows: readonly WorkersSummaryRow[];
}

const mean = (values: readonly number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;

/** The per-N table: means over rounds, ratios to the one-process bare Express, speed-up over the fewest workers. */
export function summarizeWorkers(results: Pick<WorkersResults, "bare" | "bareCluster" | "runs" | "machine">): WorkersSummary {
  const cores = results.machine.availableParallelism;
  if (results.bare.length === 0) throw new Error("no bare Express measurement: ratios need one");
  const baseline = {
    rps: mean(results.bare.map((run) => run.stats.rps)),
    p50Ms: mean(results.bare.map((run) => run.stats.p50Ms)),
    count: results.bare.length,
  };
  const counts = [...new Set(results.runs.map((run) => run.workers))].sort((a, b) => a - b);
  const phasesOf = (workers: number, key: WorkersPhaseKey): WorkersPhase[] =>
    results.runs.filter((run) => run.workers === workers).flatMap((run) => run.phases.filter((phase) => phase.key === key));
  const lowest = counts[0];
  const firstRps = (key: WorkersPhaseKey): number | undefined => {
    const phases = lowest === undefined ? [] : phasesOf(lowest, key);
    return phases.length === 0 ? undefined : mean(phases.map((phase) => phase.stats.rps));
  };
  const summarize = (workers: number, key: WorkersPhaseKey): PhaseSummary | undefined => {
    const phases = phasesOf(workers, key);
    if (phases.length === 0) return undefined;
    const rps = mean(phases.map((phase) => phase.stats.rps));
    const splits = phases.flatMap((phase) => (phase.cpu === undefined ? [] : [phase.cpu]));
    const share = (key: keyof CpuSplit): number => mean(splits.map((split) => split[key]));
    const efficiency = phases.flatMap((phase) => {
      const used = phase.cpu ? ((phase.cpu.hostPct + phase.cpu.postgresPct) / 100) * cores : 0;
      return used > 0 ? [phase.stats.rps / used] : [];
    });
    return {
      rps,
      ratio: rps / baseline.rps,
      speedUp: rps / (firstRps(key) ?? rps),
      p50Ms: mean(phases.map((phase) => phase.stats.p50Ms)),
      p99Ms: mean(phases.map((phase) => phase.stats.p99Ms)),
      errors: phases.reduce((sum, phase) => sum + phase.stats.errors, 0),
      perRound: phases.map((phase) => phase.stats.rps),
      ...(efficiency.length === 0 ? {} : { perServiceCoreSecond: mean(efficiency) }),
      ...(splits.length === 0
        ? {}
        : {
            cpu: {
              hostPct: share("hostPct"),
              runnerPct: share("runnerPct"),
              postgresPct: share("postgresPct"),
              otherPct: share("otherPct"),
              stealPct: share("stealPct"),
              idlePct: share("idlePct"),
            },
          }),
    };
  };
  const rows = counts.map((workers): WorkersSummaryRow => {
    const read = summarize(workers, "read");
    const write = summarize(workers, "write");
    const cluster = results.bareCluster.filter((run) => run.processes === workers);
    return {
      workers,
      ...(read ? { read } : {}),
      ...(write ? { write } : {}),
      ...(cluster.length === 0 ? {} : { bareClusterRps: mean(cluster.map((run) => run.stats.rps)) }),
    };
  });
  return { baseline, rows };
}
