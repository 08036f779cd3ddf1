/**
 * What the noisy-neighbour scenario (issue 12) records per store: organization B's cheap reads
 * alone and under each of organization A's loads, and A's own requests.
 */
import type { TargetKind } from "./bench-config.js";
import type { LoadStats } from "./run-load.js";
import type { SourceVersion } from "./source-version.js";

/** What organization A runs during a window; `alone` and `alone-after` are B on its own. */
export type NoisyLoad = "alone" | "lists" | "patch" | "add" | "bulk" | "alone-after";

/** The loads in the order they run; B's baseline is `alone`, `alone-after` shows drift. */
export const NOISY_LOADS: readonly NoisyLoad[] = ["alone", "lists", "patch", "add", "bulk", "alone-after"];

/** A's loads, the ones a target applies to. */
export const A_LOADS = ["lists", "patch", "add", "bulk"] as const;
export type ALoad = (typeof A_LOADS)[number];

export const NOISY_LOAD_LABELS: Record<NoisyLoad, string> = {
  alone: "B alone",
  lists: "A: three list requests",
  patch: "A: PATCH of 12,000 replace ops",
  add: "A: add 9,999 e-mails",
  bulk: "A: Bulk of 1,000 reverse-chained POSTs",
  "alone-after": "B alone again (after)",
};

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
