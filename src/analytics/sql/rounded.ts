/**
 * Rounding the ratios of a summary (`CampaignSummary.completionRate`, `SimulationSummary.rates`)
 * after the database computed the figures they are made of.
 */

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
