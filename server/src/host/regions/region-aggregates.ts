/**
 * This region's totals (issue 30, point 5): organizations, SCIM users and groups, counted in this
 * region's database only — what the other regions' hosts are told over the region channel and
 * what the operator's summary adds up. An organization whose rows are here but that is not homed
 * here (arriving from a move, or left in one) is not counted: the region that serves it counts it,
 * so a move never counts an organization twice.
 */
import type { AnalyticsStore, RegionAggregates } from "@scimkit/server";

/**
 * Counts this region's totals whenever called; calls arriving while a count runs share it, so
 * however many the channel and the operator send, at most one count runs at a time.
 */
export function regionAggregates(options: {
  readonly self: string;
  readonly store: Pick<AnalyticsStore, "organizationTotals">;
  /** The organizations of this database not homed here, now. */
  readonly notHomed?: () => readonly string[];
  readonly now?: () => Date;
}): () => Promise<RegionAggregates> {
  const now = options.now ?? (() => new Date());
  let running: Promise<RegionAggregates> | undefined;
  const count = async (): Promise<RegionAggregates> => {
    const at = now().toISOString();
    const totals = await options.store.organizationTotals({ except: options.notHomed?.() ?? [] });
    return { region: options.self, at, ...totals };
  };
  return () => {
    running ??= count().finally(() => {
      running = undefined;
    });
    return running;
  };
}
