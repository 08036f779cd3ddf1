/**
 * The soak run's memory verdict: resident set size must level off. Sampled every 10 s, the run is
 * split into thirds; the first holds the warm-up (JIT, caches, the data set filling up to its
 * steady population), and a leak shows as the last third sitting above the middle one.
 */

/** One RSS reading of the host process. */
export interface RssSample {
  /** Seconds since the workload started. */
  readonly atSeconds: number;
  readonly rssMiB: number;
}

/**
 * How far the last third's median RSS may sit above the middle third's before the run fails. The
 * two medians are a third of the run apart, so over 10 minutes at ~100 MiB this catches a leak of
 * about 1.5 MiB a minute (90 MiB an hour) and up, while the medians of 20 samples each ride out
 * the garbage collector's sawtooth.
 */
export const RSS_GROWTH_LIMIT_PERCENT = 5;

export interface RssGrowthVerdict {
  readonly samples: number;
  readonly firstMiB: number;
  readonly maxMiB: number;
  readonly middleThirdMedianMiB: number;
  readonly lastThirdMedianMiB: number;
  /** (last − middle) / middle, in percent. */
  readonly growthPercent: number;
  readonly limitPercent: number;
  /** Least-squares slope over the middle and last thirds, MiB per minute: what growth there is, as a rate. */
  readonly slopeMiBPerMinute: number;
  /** True when the last third's median is within `limitPercent` of the middle third's. */
  readonly bounded: boolean;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function slope(samples: readonly RssSample[]): number {
  const n = samples.length;
  if (n < 2) return 0;
  const meanX = samples.reduce((sum, sample) => sum + sample.atSeconds, 0) / n;
  const meanY = samples.reduce((sum, sample) => sum + sample.rssMiB, 0) / n;
  let numerator = 0;
  let denominator = 0;
  for (const sample of samples) {
    numerator += (sample.atSeconds - meanX) * (sample.rssMiB - meanY);
    denominator += (sample.atSeconds - meanX) ** 2;
  }
  return denominator === 0 ? 0 : (numerator / denominator) * 60;
}

/**
 * The verdict on `samples` (at least three; fewer cannot tell growth from warm-up and count as bounded).
 *
 * @example rssGrowth(samples).bounded // false: the run fails
 */
export function rssGrowth(samples: readonly RssSample[], limitPercent = RSS_GROWTH_LIMIT_PERCENT): RssGrowthVerdict {
  const values = samples.map((sample) => sample.rssMiB);
  const third = Math.floor(samples.length / 3);
  const middle = samples.slice(third, samples.length - third);
  const last = samples.slice(samples.length - third);
  if (third === 0) {
    const only = values.length === 0 ? 0 : median(values);
    return {
      samples: samples.length,
      firstMiB: values[0] ?? 0,
      maxMiB: Math.max(0, ...values),
      middleThirdMedianMiB: only,
      lastThirdMedianMiB: only,
      growthPercent: 0,
      limitPercent,
      slopeMiBPerMinute: 0,
      bounded: true,
    };
  }
  // With a sample count not divisible by three the middle part takes the remainder.
  const middleMedian = median(middle.map((sample) => sample.rssMiB));
  const lastMedian = median(last.map((sample) => sample.rssMiB));
  const growthPercent = ((lastMedian - middleMedian) / middleMedian) * 100;
  return {
    samples: samples.length,
    firstMiB: values[0] as number,
    maxMiB: Math.max(...values),
    middleThirdMedianMiB: middleMedian,
    lastThirdMedianMiB: lastMedian,
    growthPercent,
    limitPercent,
    slopeMiBPerMinute: slope(samples.slice(third)),
    bounded: growthPercent <= limitPercent,
  };
}
