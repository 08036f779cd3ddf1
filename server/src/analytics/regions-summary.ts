/**
 * The operator's figures across regions (issue 30, point 5: "a cross-region figure is computed
 * from per-region aggregates only"): each region's host counts its own organizations, users and
 * groups in its own database, the others are told the totals alone over the region channel, and
 * the host asked adds them up. No row of any organization or person crosses a region for it.
 */
import type { OrganizationTotals } from "./organization-store.js";

/** One region's totals, as its own host counted them in its own database. */
export interface RegionAggregates extends OrganizationTotals {
  /** The region counted. */
  readonly region: string;
  /** ISO 8601 time the region's host counted them. */
  readonly at: string;
}

/** A region of the summary: its totals, or why they could not be had. */
export type RegionSummaryEntry =
  | (RegionAggregates & {
      /** True for the region of the host answering, counted here; false: asked over the region channel. */
      readonly self: boolean;
    })
  | {
      readonly region: string;
      /** Only another region's totals can be missing: this one's are counted here. */
      readonly self: false;
      /** Why its host did not give them (unreachable, refused, an answer that is not its totals). */
      readonly error: string;
    };

/** The regions' totals, and their sum. */
export interface RegionsSummary {
  /** Every region of the service, by name. */
  readonly regions: readonly RegionSummaryEntry[];
  /** The sums over the regions that answered. */
  readonly total: OrganizationTotals;
  /** Whether every region answered, so `total` is the whole service's. */
  readonly complete: boolean;
}
