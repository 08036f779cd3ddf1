/**
 * The replica of other regions' directories in the analytics store (issue 30: data residency).
 * Each region is authoritative for the directory of its own organizations; every other region
 * keeps a copy of it, pulled from that region's feed, so a host answers a SCIM request for an
 * organization homed elsewhere with 421 and that region's base URL without reading any SCIM data,
 * and still can after a restart while the other region is unreachable. Part of `AnalyticsStore`.
 *
 * The replica never holds personal data (spec §2.1: what crosses regions is a small directory
 * without it): an organization's id, name, parent, home region, status and time of change — no
 * user, group, token, admin user or training record.
 */
import type { OrganizationStatus } from "./organization-store.js";

/** One organization homed in another region, as that region's directory feed last said. */
export interface RegionDirectoryEntry {
  /** The organization id, as its home region serves it in SCIM paths. Unique across the replica. */
  readonly id: string;
  /** Its display name in its home region. */
  readonly name: string;
  /**
   * The organization it belongs under in its home region; absent for a root. Taken as the feed
   * gives it: the replica does not check that the parent is in it.
   */
  readonly parentId?: string;
  /** The region that holds its data (`us`, `eu`, …): the one whose feed listed it. */
  readonly homeRegion: string;
  /** Its lifecycle state in its home region. */
  readonly status: OrganizationStatus;
  /** ISO 8601 time of its last change, as the home region reported it (not when it was pulled). */
  readonly updatedAt: string;
}

/**
 * The replicated directories of the other regions, one region's feed at a time. A store keeps
 * them as durably as its other data (the SQL store: a table of its database), and apart from the
 * organizations it holds itself: deleting or creating a local organization never touches the
 * replica, and the replica never counts as a local organization.
 */
export interface RegionDirectoryStore {
  /**
   * Replaces every replica entry whose `homeRegion` is `region` by `entries`: the peer's whole
   * feed as last read, so an organization the feed no longer lists is gone, and `[]` empties the
   * region. Entries of other regions are untouched.
   *
   * All or nothing: the store either holds exactly `entries` for `region` afterwards or, when the
   * call rejects (or the process dies during it), the region's previous entries, never a part of
   * each — a sync interrupted halfway leaves the replica as the last complete one left it.
   *
   * Rejects with an `Error` before writing anything when an entry's `homeRegion` is not `region`,
   * or two entries share an id. An id another region's entry holds rejects it too (an
   * organization has one home: a move shows once the old home's feed no longer lists it and that
   * region has been replaced), at the latest when the store writes — leaving every entry as it was.
   *
   * @example await store.replaceRegionEntries("eu", await readPeerFeed("https://eu.example.com"))
   */
  replaceRegionEntries(region: string, entries: readonly RegionDirectoryEntry[]): Promise<void>;

  /**
   * Every replica entry of every region, ordered by id (UTF-16 code units, as every list of the
   * store), each a fresh object the caller may keep. `[]` when no region has been replaced yet.
   */
  listRegionEntries(): Promise<readonly RegionDirectoryEntry[]>;
}
