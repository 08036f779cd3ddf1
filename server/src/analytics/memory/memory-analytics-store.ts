/**
 * The in-memory reference `AnalyticsStore` (spec §4.6): organizations, admin users, keys, training
 * and simulation data, and the replica of other regions' directories, in plain maps, for tests,
 * demos and single-process hosts. Learners are not kept here: they are read through the
 * `ResourceStore` API from the SCIM users themselves. Each area of the contract is its own file
 * over one `MemoryAnalyticsState`; this composes them.
 */
import type { TokenStore } from "scimkit";
import type { EventLoopSlice, ResourceStore } from "scimkit/store";
import type { AnalyticsStore } from "../analytics-store.js";
import { memoryAdminUsers } from "./memory-admin-users.js";
import { memoryAnalyticsState } from "./memory-analytics-state.js";
import { memoryCampaigns } from "./memory-campaigns.js";
import { memoryDirectory } from "./memory-directory.js";
import { memoryFeedback } from "./memory-feedback.js";
import { memoryLearners } from "./memory-learners.js";
import { memoryOperations } from "./memory-operations.js";
import { memoryOrganizations } from "./memory-organizations.js";
import { memoryRegionDirectory } from "./memory-region-directory.js";
import { memorySetupLinks } from "./memory-setup-links.js";
import { memorySimulations } from "./memory-simulations.js";

/** Options of `memoryAnalyticsStore`. */
export interface MemoryAnalyticsStoreOptions {
  /** The SCIM resources: learners are read from its users, and an organization's are deleted with it. */
  readonly resources: ResourceStore;
  /** The SCIM tokens: an organization's are revoked when it is deleted. */
  readonly tokens: Pick<TokenStore, "revokeAll">;
  /**
   * The clock for the one write without a time of its own: groups losing members when an
   * organization is emptied through a `ResourceStore` that has no `deleteOrganization`. Default:
   * the system clock.
   */
  readonly now?: () => Date;
  /**
   * The slice clock of long reads (a subtree's summary): they give the event loop a turn whenever
   * a slice is spent, so other requests are not held behind them. Default `eventLoopSlice()` (4 ms
   * slices); a test passes `() => eventLoopSlice(0)` to make every check a turn.
   */
  readonly eventLoopSlice?: () => EventLoopSlice;
}

/**
 * An `AnalyticsStore` in process memory. Every method does its work synchronously inside its
 * promise — reads of SCIM users aside — so each write is atomic within the process; deleting an
 * organization is too when the `ResourceStore` has `deleteOrganization` and, like the token
 * store's memory repository, does its work when called (otherwise its SCIM resources are deleted
 * one by one after its analytics data). Records are
 * copied on the way in and on the way out: a caller never holds the store's own objects. Lists
 * are in key order (UTF-16 code units, as SQL's `COLLATE "C"`).
 *
 * @example
 * const resources = memoryStore();
 * const tokens = createTokenStore();
 * const analytics = memoryAnalyticsStore({ resources, tokens });
 * app.use("/analytics/v1", createAnalyticsRouter({ store: analytics, scimTokens: tokens, scimBaseUrl: () => undefined }));
 */
export function memoryAnalyticsStore(options: MemoryAnalyticsStoreOptions): AnalyticsStore {
  const state = memoryAnalyticsState(options);
  return {
    ...memoryDirectory(options.resources),
    ...memoryOrganizations(state),
    ...memoryAdminUsers(state),
    ...memoryLearners(state),
    ...memoryCampaigns(state),
    ...memorySimulations(state),
    ...memoryFeedback(state),
    ...memoryOperations(state),
    ...memoryRegionDirectory(state),
    ...memorySetupLinks(state),
  };
}
