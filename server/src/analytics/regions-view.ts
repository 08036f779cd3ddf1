/**
 * What the operator API shows of data residency (issue 30): the region the service answers from,
 * every region with its public base URL and the state of this host's copy of its directory, and
 * the requests that reached this region for organizations homed in another. The host provides
 * it (`createAnalyticsRouter`'s `regions`); none of it is personal data.
 */

import type { RegionDirectoryEntry } from "./region-directory-store.js";
import type { RegionMoves } from "./region-moves-view.js";
import type { RegionsSummary } from "./regions-summary.js";

/** A region's name (`SCIMKIT_REGION`): a lower-case letter, then up to 31 lower-case letters, digits or hyphens. */
export const REGION_NAME_PATTERN = "^[a-z][a-z0-9-]{0,31}$";

/** One region of the service. */
export interface RegionState {
  /** Its name (`SCIMKIT_REGION` of its hosts). */
  readonly region: string;
  /** Its public base URL: organizations homed there are at `{baseUrl}/scim/Organizations/{id}/v2`. */
  readonly baseUrl: string;
  /** True for the region of the host answering. */
  readonly self: boolean;
  /** Another region: the organizations homed there this host knows of. */
  readonly organizations?: number;
  /** Another region: when its directory was last read whole by this host process. */
  readonly syncedAt?: string;
  /** Another region: why the last read of its directory failed (its copy is then kept as it was). */
  readonly lastError?: string;
}

/** Requests for one organization that reached this region although it is homed in another. */
export interface MisdirectedRequests {
  /** The organization. */
  readonly orgId: string;
  /** The region that holds it. */
  readonly homeRegion: string;
  /** Requests answered 421 by this host process since it started. */
  readonly count: number;
  /** ISO 8601 time of the last one. */
  readonly lastAt: string;
}

/** The regions as the operator sees them from this host. */
export interface RegionsReport {
  /** The region of the host answering. */
  readonly region: string;
  /** Every region, by name. */
  readonly regions: readonly RegionState[];
  /** Requests that arrived at the wrong region, per organization, the most recent first. */
  readonly misdirected: readonly MisdirectedRequests[];
}

/** An organization homed in another region, as this host's copy of that region's directory has it. */
export type RegionOrganization = RegionDirectoryEntry;

/**
 * The host's regions as the operator API needs them: `GET /regions`, and the checks of an
 * organization's creation (its id is one path in every region; it is created in this one).
 */
export interface RegionsView {
  /** The region of the host answering. */
  readonly self: string;
  /** Every region's public base URL, this one's included. */
  readonly baseUrls: Readonly<Record<string, string>>;
  /** The SCIM base URL of `orgId` in `region`: what its identity provider uses there. */
  scimBaseUrl(region: string, orgId: string): string;
  /** The entry of `orgId` when it is homed in another region; undefined: here, or nowhere. Reads nothing. */
  homeElsewhere(orgId: string): { readonly id: string; readonly homeRegion: string } | undefined;
  /** Moving organizations to another region; absent where this host cannot (one region, the memory store, several workers). */
  readonly moves?: RegionMoves;
  /**
   * Why writes to `orgId` are refused now (it is moving to another region, or arriving from one):
   * the `detail` of a 503; undefined when they are not. Reads nothing. Optional: default none.
   */
  writesRefused?(orgId: string): string | undefined;
  /** The report, as of now; reads nothing from a database. */
  report(): RegionsReport;
  /**
   * Every region's totals — this one's counted in its own database, each other's asked of its host
   * over the region channel, all at once — and their sum (`GET /regions/summary`). A region that
   * does not answer is listed with why, and the sum says it is incomplete; it rejects only when
   * this region's own count fails. Optional: absent, the operation answers 404.
   */
  summary?(): Promise<RegionsSummary>;
  /**
   * The organizations homed in other regions (in `region` only, when given) with `id > after`, by
   * id, at most `limit`; `next` when more follow. Reads nothing from a database.
   */
  listElsewhere(
    page: { readonly limit: number; readonly after?: string },
    region?: string,
  ): {
    readonly items: readonly RegionOrganization[];
    readonly next?: string;
  };
}
