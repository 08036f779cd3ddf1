/** Percentiles from the exact response times (autocannon's own histogram keeps whole milliseconds). */

export interface LatencySummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
}

/** Nearest-rank percentiles of `samples` (ms). */
export function summarizeLatencies(samples: Float64Array): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  const count = sorted.length;
  if (count === 0) return { count: 0, p50Ms: Number.NaN, p90Ms: Number.NaN, p99Ms: Number.NaN, maxMs: Number.NaN, meanMs: Number.NaN };
  const at = (q: number): number => sorted[Math.min(count - 1, Math.max(0, Math.ceil(q * count) - 1))] as number;
  let sum = 0;
  for (const value of sorted) sum += value;
  return { count, p50Ms: at(0.5), p90Ms: at(0.9), p99Ms: at(0.99), maxMs: sorted[count - 1] as number, meanMs: sum / count };
}

/** A growable buffer of samples. */
export function sampleBuffer(): { push(value: number): void; values(): Float64Array } {
  let buffer = new Float64Array(16_384);
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
