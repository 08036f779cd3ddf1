/** Response times of the soak run, per operation and per 10-second window, as nearest-rank percentiles. */

// One percentile rule for the benchmark and the soak: nearest rank over exact samples.
import { sampleBuffer as samples, summarizeLatencies, type LatencySummary } from "../bench/lib/latency-summary.js";

export type { LatencySummary };

/** Samples kept per operation for the whole run, and for the window in progress. */
export interface LatencyRecorder {
  record(operation: string, ms: number, ok: boolean): void;
  /** Ends the current window: its requests, errors and percentiles, and starts the next. */
  closeWindow(): { readonly requests: number; readonly errors: number; readonly latency: LatencySummary };
  /** Per operation: requests, errors and percentiles over the run. */
  totals(): Record<string, { readonly requests: number; readonly errors: number; readonly latency: LatencySummary }>;
  /** Every operation together. */
  overall(): { readonly requests: number; readonly errors: number; readonly latency: LatencySummary };
}

export function latencyRecorder(): LatencyRecorder {
  const byOperation = new Map<string, { readonly times: ReturnType<typeof samples>; errors: number }>();
  const all = samples();
  let allErrors = 0;
  let window = samples();
  let windowErrors = 0;
  return {
    record(operation, ms, ok) {
      let entry = byOperation.get(operation);
      if (entry === undefined) {
        entry = { times: samples(), errors: 0 };
        byOperation.set(operation, entry);
      }
      entry.times.push(ms);
      all.push(ms);
      window.push(ms);
      if (!ok) {
        entry.errors += 1;
        allErrors += 1;
        windowErrors += 1;
      }
    },
    closeWindow() {
      const closed = { requests: window.values().length, errors: windowErrors, latency: summarizeLatencies(window.values()) };
      window = samples();
      windowErrors = 0;
      return closed;
    },
    totals() {
      return Object.fromEntries(
        [...byOperation.entries()].map(([operation, entry]) => [
          operation,
          { requests: entry.times.values().length, errors: entry.errors, latency: summarizeLatencies(entry.times.values()) },
        ]),
      );
    },
    overall: () => ({ requests: all.values().length, errors: allErrors, latency: summarizeLatencies(all.values()) }),
  };
}
