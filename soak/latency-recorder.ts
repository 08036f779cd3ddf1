/** Response times of the soak run, per operation and per 10-second window, as nearest-rank percentiles. */

export interface LatencySummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** Nearest-rank percentiles of `samples` (ms); NaN when there are none. */
export function summarize(samples: readonly number[] | Float64Array): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  const count = sorted.length;
  const at = (q: number): number => (count === 0 ? Number.NaN : (sorted[Math.min(count - 1, Math.max(0, Math.ceil(q * count) - 1))] as number));
  return { count, p50Ms: at(0.5), p90Ms: at(0.9), p99Ms: at(0.99), maxMs: count === 0 ? Number.NaN : (sorted[count - 1] as number) };
}

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

/** A growable Float64Array: 100,000s of samples without an array of boxed numbers. */
function samples(): { push(value: number): void; values(): Float64Array } {
  let buffer = new Float64Array(8_192);
  let length = 0;
  return {
    push(value) {
      if (length === buffer.length) {
        const bigger = new Float64Array(buffer.length * 2);
        bigger.set(buffer);
        buffer = bigger;
      }
      buffer[length] = value;
      length += 1;
    },
    values: () => buffer.subarray(0, length),
  };
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
      const closed = { requests: window.values().length, errors: windowErrors, latency: summarize(window.values()) };
      window = samples();
      windowErrors = 0;
      return closed;
    },
    totals() {
      return Object.fromEntries(
        [...byOperation.entries()].map(([operation, entry]) => [operation, { requests: entry.times.values().length, errors: entry.errors, latency: summarize(entry.times.values()) }]),
      );
    },
    overall: () => ({ requests: all.values().length, errors: allErrors, latency: summarize(all.values()) }),
  };
}
