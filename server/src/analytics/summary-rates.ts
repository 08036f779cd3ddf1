/**
 * The ratios of a summary (`CampaignSummary.completionRate` and `averageScore`,
 * `SimulationSummary.rates`), computed from its counts the same way by every store, so the memory
 * and SQL stores cannot drift apart in rounding.
 */
import type { SimulationSummary } from "./analytics-store.js";

/**
 * `value` rounded half away from zero to `digits` decimals (the contract's "rounded to 4
 * decimals"). Ratios here are never negative, where `Math.round` rounds half up as well.
 *
 * @example rounded(2 / 3, 4) // 0.6667
 */
export function rounded(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** `part / whole` rounded to 4 decimals; 0 when `whole` is 0, as every rate of a summary. */
export function summaryRate(part: number, whole: number): number {
  return whole === 0 ? 0 : rounded(part / whole, 4);
}

/** A simulation's `rates`: each count as a `summaryRate` of those `sent`. */
export function simulationRates(counts: Omit<SimulationSummary, "simulationId" | "rates">): SimulationSummary["rates"] {
  return {
    delivered: summaryRate(counts.delivered, counts.sent),
    opened: summaryRate(counts.opened, counts.sent),
    clicked: summaryRate(counts.clicked, counts.sent),
    submittedData: summaryRate(counts.submittedData, counts.sent),
    reported: summaryRate(counts.reported, counts.sent),
  };
}
