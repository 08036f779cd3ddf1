/**
 * What the noisy-neighbour scenario (issue 12) records per store: organization B's cheap reads
 * alone and under each of organization A's loads, and A's own requests.
 */
import type { TargetKind } from "./bench-config.js";
import type { LoadStats } from "./run-load.js";
import type { SourceVersion } from "./source-version.js";

/** A's loads, in the order they run. */
export const A_LOADS = ["lists", "patch", "add", "bulk"] as const;
export type ALoad = (typeof A_LOADS)[number];

/**
 * What organization A runs during a window; `alone` is B on its own. B alone is measured before
 * each of A's loads and once after the last, and each load is compared with the `alone` window
 * right before it: on a shared machine the noise drifts, and a baseline minutes old would carry it.
 */
export type NoisyLoad = "alone" | ALoad;

/** The loads a chart shows, in order. */
export const NOISY_LOADS: readonly NoisyLoad[] = ["alone", ...A_LOADS];

export const NOISY_LOAD_LABELS: Record<NoisyLoad, string> = {
  alone: "B alone",
  lists: "A: three list requests",
  patch: "A: PATCH of 12,000 replace ops",
  add: "A: add 9,999 e-mails",
  bulk: "A: Bulk of 1,000 reverse-chained POSTs",
};

/** The `alone` window B's figures under the A load of `windows[index]` are compared with: the last one before it. */
export function aloneBefore(windows: readonly NoisyWindow[], index: number): NoisyWindow | undefined {
  for (let k = index - 1; k >= 0; k -= 1) {
    const window = windows[k];
    if (window?.load === "alone") return window;
  }
  return undefined;
}

/** How a server answered something it may refuse, e.g. `413` and its `detail`. */
export interface Answer {
  readonly status: number;
  readonly detail?: string;
}

/** A's requests of one shape during one window (one client, closed loop). */
export interface ShapeTiming {
  readonly shape: string;
  /** Helper requests (resetting a user for the next `add`) are shown but are no target. */
  readonly helper?: boolean;
  readonly count: number;
  /** Per HTTP status; `timeout` and `error` for requests that got no answer. */
  readonly statusCodes: Record<string, number>;
  readonly p50Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
  /** Size of the request body, bytes (the largest sent). */
  readonly bodyBytes?: number;
  /** The first non-2xx answer, to show what the server refused and why. */
  readonly refusal?: Answer;
  /** Bulk: the statuses of the operations inside the 200 BulkResponses. */
  readonly operationStatuses?: Record<string, number>;
}

/** One measured window: B's fixed-duration load, with A's load beside it or not. */
export interface NoisyWindow {
  readonly load: NoisyLoad;
  readonly b: LoadStats;
  /** A's requests (absent for B alone). */
  readonly a?: readonly ShapeTiming[];
  /** The target's largest event-loop delay over the window and A's last request. */
  readonly maxEventLoopDelayMs?: number;
  /**
   * The largest event-loop delay from the window's start to the target's first answer after B's
   * window (a stuck target answers only when unstuck). B always has requests waiting, so a stall
   * that began in its window delayed one of them as much — even one the window's end left uncounted.
   */
  readonly bWindowEventLoopDelayMs?: number;
  readonly otherCpuPct?: number;
  readonly stealPct?: number;
}

/** The users A's pathological requests work on, and what the server refused while building them. */
export interface NoisyFixture {
  /** E-mails the many-e-mails user was meant to hold, and holds. */
  readonly manyEmailsWanted: number;
  readonly manyEmailsBuilt: number;
  /** Each POST tried while building it, in order (a refused one shows the server's bound). */
  readonly manyEmailsAttempts: readonly (Answer & { readonly size: number; readonly ms: number })[];
  /** Users with one e-mail that take the `add` requests in turn. */
  readonly addPool: number;
}

export interface NoisyRun {
  readonly target: TargetKind;
  /** Users of organization A (seeded) and of B. */
  readonly aUsers: number;
  readonly bUsers: number;
  /** B's concurrency and each window's length. */
  readonly connections: number;
  readonly durationSec: number;
  readonly description: string;
  readonly seedingMs?: number;
  readonly fixture?: NoisyFixture;
  readonly windows: NoisyWindow[];
  readonly source?: SourceVersion;
  /** The machine's 1-minute load average when the run started. */
  readonly loadAverage?: number;
  /** Set when the run failed part-way. */
  readonly error?: string;
  readonly logFile?: string;
}
