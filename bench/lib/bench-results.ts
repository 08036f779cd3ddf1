/** The raw results a run writes to `bench/results/<date>.json`, and the report reads. */
import type { ImportWalkResult } from "./import-walk.js";
import type { BenchConfig, RequestLogKind, TargetKind } from "./bench-config.js";
import type { MachineInfo } from "./machine-info.js";
import type { NoisyRun } from "./noisy-neighbour-results.js";
import type { PhaseKey } from "./phase-catalog.js";
import type { LoadStats } from "./run-load.js";
import type { SourceVersion } from "./source-version.js";

export interface PhaseResult {
  readonly key: PhaseKey;
  readonly label: string;
  readonly groupSize?: number;
  /** Set when the phase was not run, with why. */
  readonly unsupported?: string;
  readonly stats?: LoadStats;
  /**
   * When the phase completed fewer requests than connections under load: up to 3 requests
   * timed one at a time (1 connection), so there is a latency to show.
   */
  readonly serial?: LoadStats;
  /** `stats.rps / baseline.rps`. */
  readonly ratio?: number;
  /** `stats.p50Ms / baseline.p50Ms`. */
  readonly p50Ratio?: number;
  /** Target metrics after the phase (event-loop max covers warm-up and phase). */
  readonly rssBytes?: number;
  readonly heapUsedBytes?: number;
  readonly maxEventLoopDelayMs?: number;
  /** CPU time of the target process per request answered (2xx or not) during the phase, µs. */
  readonly targetCpuUsPerRequest?: number;
  /** Share of all cores used by other processes (PostgreSQL included) and stolen, during the phase. */
  readonly otherCpuPct?: number;
  readonly stealPct?: number;
}

export interface SeedingResult {
  readonly users: number;
  readonly ms: number;
  readonly perSecond: number;
}

export interface TargetRun {
  readonly target: TargetKind;
  readonly n: number;
  readonly description: string;
  /** The provisioning log the target ran with; absent for none (`off`, and every run before the option). */
  readonly requestLog?: Exclude<RequestLogKind, "off">;
  readonly seeding?: SeedingResult;
  readonly poolSeeding?: SeedingResult;
  /** Time of the target's optional settle step after seeding (PostgreSQL: ANALYZE), ms. */
  readonly settleMs?: number;
  /** RSS of the target before seeding and right after seeding N users. */
  readonly rssEmptyBytes?: number;
  readonly rssSeededBytes?: number;
  readonly heapSeededBytes?: number;
  readonly phases: PhaseResult[];
  /** The full import by startIndex and by cursor, after the user phases (issue 29). */
  readonly importWalk?: ImportWalkResult;
  /** The scimkit code the target loaded when it started. */
  readonly source?: SourceVersion;
  /** The machine's 1-minute load average when the run started (noise indicator). */
  readonly loadAverage?: number;
  /** How often the target was restarted because a phase left it busy past the timeout. */
  readonly restarts?: number;
  /** Set when the run failed part-way. */
  readonly error?: string;
  readonly logFile?: string;
}

export interface BareRound {
  readonly at: string;
  readonly stats: LoadStats;
  readonly otherCpuPct?: number;
  readonly stealPct?: number;
}

export interface BenchResults {
  readonly version: 1;
  readonly startedAt: string;
  finishedAt?: string;
  readonly machine: MachineInfo;
  readonly config: Omit<BenchConfig, "postgresUrl"> & { readonly postgres: boolean };
  readonly bare: BareRound[];
  /** The scimkit code when the run started (each run records its own in `runs[].source`). */
  readonly source?: SourceVersion;
  /** Mean of the bare rounds: what every ratio divides by. */
  baseline?: { readonly rps: number; readonly p50Ms: number };
  readonly runs: TargetRun[];
  /** The noisy-neighbour scenario, one run per store (absent when it did not run). */
  noisy?: NoisyRun[];
  /** Set when `noisy` comes from another results file than the rest (`--only=noisy`). */
  noisySource?: { readonly file: string; readonly startedAt: string; readonly source?: SourceVersion };
}

/** Mean rps and p50 over the bare rounds. */
export function baselineOf(bare: readonly BareRound[]): { rps: number; p50Ms: number } {
  const rps = bare.reduce((sum, round) => sum + round.stats.rps, 0) / Math.max(1, bare.length);
  const p50Ms = bare.reduce((sum, round) => sum + round.stats.p50Ms, 0) / Math.max(1, bare.length);
  return { rps, p50Ms };
}

/** Fills in `ratio` and `p50Ratio` of every phase from the baseline. */
export function withRatios(results: BenchResults): BenchResults {
  const baseline = baselineOf(results.bare);
  results.baseline = baseline;
  for (const run of results.runs) {
    run.phases.forEach((phase, index) => {
      if (!phase.stats) return;
      run.phases[index] = { ...phase, ratio: phase.stats.rps / baseline.rps, p50Ratio: phase.stats.p50Ms / baseline.p50Ms };
    });
  }
  return results;
}

/** The phase's p50: under load when any request completed, else the serial timing. */
export function p50Of(phase: PhaseResult | undefined): { ms: number; serial: boolean } | undefined {
  if (phase?.stats && phase.stats.ok > 0) return { ms: phase.stats.p50Ms, serial: false };
  if (phase?.serial && phase.serial.ok > 0) return { ms: phase.serial.p50Ms, serial: true };
  return undefined;
}

/** The phase of `run` with this key (and group size). */
export function findPhase(run: TargetRun | undefined, key: PhaseKey, groupSize?: number): PhaseResult | undefined {
  return run?.phases.find((phase) => phase.key === key && (groupSize === undefined || phase.groupSize === groupSize));
}

/** The run of `target` at `n`. */
export function findRun(results: BenchResults, target: TargetKind, n: number): TargetRun | undefined {
  return results.runs.find((run) => run.target === target && run.n === n);
}
