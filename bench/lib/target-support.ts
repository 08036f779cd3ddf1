/**
 * Helpers any target process may use (see `bench/target-protocol.md`): the metrics endpoint,
 * the ready line, bounded-concurrency seeding and clean shutdown.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { MetricsResponse, ReadyLine } from "./target-protocol.js";

/**
 * Starts the event-loop monitor; `read()` returns the metrics and resets the histogram.
 * `read(true)` first collects garbage when node runs with `--expose-gc` (the runner passes it),
 * so the RSS after seeding counts live data rather than seeding garbage.
 */
export function createMetricsProbe(): { read(collect?: boolean): MetricsResponse } {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  return {
    read(collect = false) {
      const gc = (globalThis as { gc?: () => void }).gc;
      if (collect && gc) {
        gc();
        gc();
      }
      const memory = process.memoryUsage();
      const maxEventLoopDelayMs = Number.isFinite(histogram.max) ? histogram.max / 1e6 : 0;
      histogram.reset();
      return { rssBytes: memory.rss, heapUsedBytes: memory.heapUsed, maxEventLoopDelayMs };
    },
  };
}

/** Whether a metrics request asks for a collection first (`GET /__bench/metrics?gc=1`). */
export function wantsCollection(query: unknown): boolean {
  return typeof query === "object" && query !== null && (query as Record<string, unknown>)["gc"] === "1";
}

/** Prints the one ready line on stdout. */
export function printReady(line: Omit<ReadyLine, "ready">): void {
  process.stdout.write(`${JSON.stringify({ ready: true, ...line })}\n`);
}

/** Runs `work(i)` for i in `from … from+count-1` with at most `concurrency` in flight; results in order. */
export async function mapBounded<T>(from: number, count: number, concurrency: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const offset = next;
      next += 1;
      results[offset] = await work(from + offset);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(count, 1)) }, worker));
  return results;
}

/** Calls `cleanup` once on SIGTERM/SIGINT, then exits. */
export function onShutdown(cleanup: () => Promise<void>): void {
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    cleanup()
      .catch((error: unknown) => process.stderr.write(`shutdown: ${String(error)}\n`))
      .finally(() => process.exit(0));
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
