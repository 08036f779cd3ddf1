/**
 * The directory reads of the analytics store (issue 18): an organization's SCIM users and groups
 * as the operator console browses them — searched, paged, a user's groups and a group's members —
 * read where the SCIM router keeps them, never copied. Part of `AnalyticsStore`; the HTTP layer
 * has checked that the organization is in the caller's scope before it calls any of these, as it
 * does for a campaign's enrolments.
 */
import type { Page, PageRequest } from "./page-request.js";

/** A user as the directory list shows it: the attributes a person recognises it by. */
export interface DirectoryUser {
  /** The SCIM resource id. */
  readonly id: string;
  /** SCIM `userName`. */
  readonly userName: string;
  /** SCIM `displayName`, when set. */
  readonly displayName?: string;
  /** SCIM `externalId`, when set. */
  readonly externalId?: string;
  /** SCIM `active`; absent counts as true (as `Learner.active`). */
  readonly active: boolean;
  /** SCIM `name`, as stored, when set. */
  readonly name?: Readonly<Record<string, unknown>>;
  /** SCIM `emails`, as stored, when set. */
  readonly emails?: readonly unknown[];
}

/** One user with everything stored of it and the groups it is a direct member of. */
export interface DirectoryUserDetail {
  /** The SCIM resource id. */
  readonly id: string;
  /** The stored attributes, as the SCIM router wrote them, without `password` (RFC 7643 §4.1.1: returned never). */
  readonly attributes: Readonly<Record<string, unknown>>;
  /** ISO 8601 `meta.created`. */
  readonly created: string;
  /** ISO 8601 `meta.lastModified`. */
  readonly lastModified: string;
  /** The store's version token (`meta.version` without the `W/"…"`). */
  readonly version: string;
  /** The groups that list it among their members (direct membership, not through nested groups), by id. */
  readonly groups: readonly { readonly id: string; readonly displayName?: string }[];
}

/** A group as the directory list shows it, with how many direct members it has. */
export interface DirectoryGroup {
  /** The SCIM resource id. */
  readonly id: string;
  /** SCIM `displayName`, when set. */
  readonly displayName?: string;
  /** SCIM `externalId`, when set. */
  readonly externalId?: string;
  /** Its direct members, users and nested groups alike. */
  readonly memberCount: number;
}

/** A member of a group, with what tells a person who it is. */
export interface DirectoryMember {
  /** The member's SCIM id (`members.value`). */
  readonly id: string;
  /** Its resource type: `User` or `Group`. */
  readonly type: string;
  /** The member's `displayName`, when it has one (RFC 7643 §4.2: `members.display`). */
  readonly display?: string;
  /** For a user, its `userName`. */
  readonly userName?: string;
}

/**
 * Directory reads of one organization. Every list is keyset-paged by SCIM id (code-unit order);
 * `search` is a case-insensitive prefix: a user matches when its `userName`, `displayName` or
 * `externalId` starts with it, a group when its `displayName` or `externalId` does. `userName` is
 * compared as its uniqueness key is (NFC, lower-cased), the others lower-cased as JavaScript's
 * `toLowerCase` does. Pattern characters (`%`, `_`, `*`) in `search` are literal.
 */
export interface AnalyticsDirectory {
  /** The organization's users matching `search` (all when absent), by id. */
  listDirectoryUsers(orgId: string, search: string | undefined, page: PageRequest): Promise<Page<DirectoryUser>>;
  /** The user with its groups; `undefined` when the organization has no user `userId`. */
  getDirectoryUser(orgId: string, userId: string): Promise<DirectoryUserDetail | undefined>;
  /** The organization's groups matching `search` (all when absent), by id, each with its member count. */
  listDirectoryGroups(orgId: string, search: string | undefined, page: PageRequest): Promise<Page<DirectoryGroup>>;
  /**
   * A page of the group's direct members by member id; `undefined` when the organization has no
   * group `groupId`. The SQL store reads one index range of the membership rows per page, so a
   * page of a group of 100,000 members reads about `limit` of them.
   */
  listGroupMembers(orgId: string, groupId: string, page: PageRequest): Promise<Page<DirectoryMember> | undefined>;
}
