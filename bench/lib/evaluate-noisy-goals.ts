/**
 * The noisy-neighbour targets of issue 12, per store, at 50,000 users in organization A:
 * B keeps ≥ 50% of its throughput alone, its p99 stays ≤ 3× its p99 alone and its max under
 * 250 ms, whatever A runs; every request of A is answered (or refused) within 1 s. "Alone" is the
 * B-alone window measured right before each of A's loads.
 */
import type { GoalResult, GoalStatus } from "./evaluate-goals.js";
import type { BenchResults } from "./bench-results.js";
import { aloneBefore, NOISY_LOAD_LABELS, type NoisyRun, type NoisyWindow } from "./noisy-neighbour-results.js";

export const NOISY_TARGETS = {
  /** B's throughput under A, at least this share of its throughput alone. */
  minThroughputShare: 0.5,
  /** B's p99 under A, at most this multiple of its p99 alone. */
  maxP99Factor: 3,
  /** B's slowest request under A, below this, ms. */
  maxLatencyMs: 250,
  /** Every request of A answered or refused within this, ms. */
  maxAnswerMs: 1_000,
  /** The number of users of A the targets are stated at. */
  users: 50_000,
} as const;

const STORE_NAMES: Record<string, string> = { memory: "memory", sqlite: "SQLite", postgres: "PostgreSQL" };
const ms = (value: number): string =>
  Number.isFinite(value) ? `${value < 10 ? value.toFixed(2) : Math.round(value).toLocaleString("en-US")} ms` : "–";
const fmtN = (n: number): string => n.toLocaleString("en-US");

const statusOf = (ok: boolean | undefined): GoalStatus => (ok === undefined ? "not measured" : ok ? "met" : "not met");

/** A window with A running, and the `alone` window before it that it is compared with. */
interface Pair {
  readonly window: NoisyWindow;
  readonly alone: NoisyWindow;
}

/** The worst item by `score` (higher is worse; NaN — B completed nothing — is the worst there is). */
function worst<T>(items: readonly T[], score: (item: T) => number): { readonly item: T; readonly value: number } | undefined {
  const rank = (value: number): number => (Number.isNaN(value) ? Number.POSITIVE_INFINITY : value);
  let found: { item: T; value: number } | undefined;
  for (const item of items) {
    const value = score(item);
    if (!found || rank(value) > rank(found.value)) found = { item, value };
  }
  return found;
}

const loadName = (window: NoisyWindow): string => NOISY_LOAD_LABELS[window.load].replace(/^A: /, "");

/** The four targets for one store's run. */
export function evaluateNoisyRun(run: NoisyRun): GoalResult[] {
  const store = STORE_NAMES[run.target] ?? run.target;
  const suffix = `${store} @ ${fmtN(NOISY_TARGETS.users)}`;
  const caveat = run.aUsers === NOISY_TARGETS.users ? undefined : `A had ${fmtN(run.aUsers)} users, not ${fmtN(NOISY_TARGETS.users)}`;
  // A window with A running whose baseline is missing or empty cannot be judged against it.
  const pairs: Pair[] = run.windows.flatMap((window, index) => {
    const alone = aloneBefore(run.windows, index);
    return window.a !== undefined && alone !== undefined && alone.b.ok > 0 ? [{ window, alone }] : [];
  });
  const loaded = run.windows.filter((window) => window.a !== undefined);
  const measured = pairs.length > 0 && pairs.length === loaded.length;
  const noted = caveat ? { caveat } : {};
  const goals: GoalResult[] = [];

  const lowest = measured ? worst(pairs, ({ window, alone }) => -(window.b.rps / alone.b.rps)) : undefined;
  goals.push({
    id: `noisy-throughput-${run.target}`,
    goal: `noisy neighbour: B's GET /Users/{id} throughput under A vs alone — ${suffix}`,
    target: `≥ ${NOISY_TARGETS.minThroughputShare * 100}% of alone`,
    measured: lowest
      ? `${(-lowest.value * 100).toFixed(0)}% (${Math.round(lowest.item.window.b.rps)} vs ${Math.round(lowest.item.alone.b.rps)} req/s; under ${loadName(lowest.item.window)})`
      : "–",
    status: statusOf(lowest === undefined ? undefined : -lowest.value >= NOISY_TARGETS.minThroughputShare),
    ...noted,
  });

  const p99 = measured ? worst(pairs, ({ window, alone }) => (window.b.ok > 0 ? window.b.p99Ms / alone.b.p99Ms : Number.NaN)) : undefined;
  goals.push({
    id: `noisy-p99-${run.target}`,
    goal: `noisy neighbour: B's p99 under A vs alone — ${suffix}`,
    target: `≤ ${NOISY_TARGETS.maxP99Factor}× alone`,
    measured: p99
      ? Number.isNaN(p99.value)
        ? `no B request completed under ${loadName(p99.item.window)}`
        : `${p99.value.toFixed(1)}× (${ms(p99.item.window.b.p99Ms)} vs ${ms(p99.item.alone.b.p99Ms)}; under ${loadName(p99.item.window)})`
      : "–",
    status: statusOf(p99 === undefined ? undefined : !Number.isNaN(p99.value) && p99.value <= NOISY_TARGETS.maxP99Factor),
    ...noted,
  });

  // A B request that timed out or failed has no latency sample: its max is unknown, and too long.
  // A B request still waiting when the window ended has none either, but an event-loop stall
  // during the window delayed one that long: the max is at least the stall.
  const bMax = (window: NoisyWindow): number => Math.max(window.b.maxMs, window.bWindowEventLoopDelayMs ?? 0);
  const slowest =
    loaded.length > 0 ? worst(loaded, (window) => (window.b.ok === 0 || window.b.errors > 0 ? Number.NaN : bMax(window))) : undefined;
  const stalled = slowest && !Number.isNaN(slowest.value) && slowest.value > slowest.item.b.maxMs;
  // The same figure with B alone: on a shared machine it shows how much of the max is noise.
  const aloneMax = slowest ? aloneBefore(run.windows, run.windows.indexOf(slowest.item))?.b.maxMs : undefined;
  const reference = aloneMax === undefined ? "" : `; alone before it: ${ms(aloneMax)}`;
  goals.push({
    id: `noisy-max-${run.target}`,
    goal: `noisy neighbour: B's slowest request under A — ${suffix}`,
    target: `< ${NOISY_TARGETS.maxLatencyMs} ms`,
    measured: slowest
      ? Number.isNaN(slowest.value)
        ? `${slowest.item.b.ok === 0 ? "no B request completed" : `${slowest.item.b.errors} B requests failed`} under ${loadName(slowest.item)}${reference}`
        : `${ms(slowest.value)}${stalled ? ` (an event-loop stall; the slowest counted request took ${ms(slowest.item.b.maxMs)})` : ""} (under ${loadName(slowest.item)}${reference})`
      : "–",
    status: statusOf(slowest === undefined ? undefined : !Number.isNaN(slowest.value) && slowest.value < NOISY_TARGETS.maxLatencyMs),
    ...noted,
  });

  const shapes = loaded.flatMap((window) => (window.a ?? []).filter((shape) => !shape.helper).map((shape) => ({ window, shape })));
  const unanswered = (statusCodes: Record<string, number>): number => (statusCodes["timeout"] ?? 0) + (statusCodes["error"] ?? 0);
  const slowestA = [...shapes].sort((x, y) => y.shape.maxMs - x.shape.maxMs)[0];
  const lost = shapes.reduce((sum, { shape }) => sum + unanswered(shape.statusCodes), 0);
  const late = shapes.filter(({ shape }) => shape.maxMs > NOISY_TARGETS.maxAnswerMs);
  goals.push({
    id: `noisy-answer-${run.target}`,
    goal: `noisy neighbour: every request of A (lists, PATCH, add, Bulk) answered or refused — ${suffix}`,
    target: `within ${NOISY_TARGETS.maxAnswerMs / 1000} s`,
    measured: slowestA
      ? `slowest ${ms(slowestA.shape.maxMs)} (${slowestA.shape.shape}; ${Object.entries(slowestA.shape.statusCodes)
          .map(([status, count]) => `${count}×${status}`)
          .join(
            ", ",
          )})${late.length > 1 ? `; ${late.length} kinds over ${NOISY_TARGETS.maxAnswerMs / 1000} s` : ""}${lost > 0 ? `; ${lost} without an answer` : ""}`
      : "–",
    status: statusOf(slowestA === undefined ? undefined : late.length === 0 && lost === 0),
    ...noted,
  });
  return goals;
}

/** The targets for every store the scenario ran on. */
export function evaluateNoisyGoals(results: BenchResults): GoalResult[] {
  return (results.noisy ?? []).flatMap((run) =>
    run.error && run.windows.length === 0
      ? [
          {
            id: `noisy-${run.target}`,
            goal: `noisy neighbour — ${STORE_NAMES[run.target] ?? run.target}`,
            target: "all four targets",
            measured: `failed: ${run.error}`,
            status: "not measured" as const,
          },
        ]
      : evaluateNoisyRun(run),
  );
}
