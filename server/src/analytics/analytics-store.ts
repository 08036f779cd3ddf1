/**
 * The storage contract of the analytics interface (spec §4.6): organizations, admin users and
 * their API keys, the learners provisioned through SCIM, training campaigns, attack simulations
 * and asynchronous report operations. scimkit ships `memoryAnalyticsStore` and
 * `sqlAnalyticsStore`; both pass `describeAnalyticsStoreConformance`.
 *
 * As with `ResourceStore`, the core normalizes and the store translates: ids (UUID v7) and times
 * (ISO 8601, UTC, millisecond precision) are chosen by the caller, inputs are already validated,
 * and every read is scoped by the organizations the caller may see (`OrgScope`), so a store never
 * decides who may see what — it only never returns anything outside the scope it is given.
 */
import type { ExistingUserPolicy } from "scimkit";
import type { CompatibilityProfileName } from "scimkit/core";
import type { AnalyticsDirectory } from "./analytics-directory.js";

/** An organization's lifecycle state. A suspended organization's SCIM tokens stop working. */
export type OrganizationStatus = "active" | "suspended";

/** An organization (tenant) as the operator manages it. */
export interface Organization {
  /** The organization id used in SCIM paths (`/scim/Organizations/{id}/v2`). */
  readonly id: string;
  /** Display name, 1–200 characters. */
  readonly name: string;
  /** `active` or `suspended`. */
  readonly status: OrganizationStatus;
  /** ISO 8601 creation time. */
  readonly createdAt: string;
  /** ISO 8601 time of the last change. */
  readonly updatedAt: string;
  /**
   * The compatibility profile its SCIM requests are served under (`ScimRouterOptions.compatibility`):
   * which identity-provider tolerances apply. Absent: the host's default (`generic`).
   */
  readonly compatibility?: CompatibilityProfileName;
  /**
   * What `POST /Users` does when the `userName` or `externalId` exists
   * (`ScimRouterOptions.existingUsers`): `conflict` (409) or `link`. Absent: `conflict`.
   */
  readonly existingUsers?: ExistingUserPolicy;
  /**
   * The organization it belongs under (issue 17: a division of a company); absent for a root.
   * The tree never has a cycle nor a chain of more than `MAX_ORGANIZATION_DEPTH` organizations.
   * Provisioning ignores it: each organization keeps its own SCIM data, tokens and settings.
   */
  readonly parentId?: string;
}

/** A change of an organization's settings: a value sets it, `null` returns it to the default. */
export interface OrganizationChange {
  readonly name?: string;
  readonly status?: OrganizationStatus;
  readonly compatibility?: CompatibilityProfileName | null;
  readonly existingUsers?: ExistingUserPolicy | null;
  /** A new parent, or `null` to make it a root. */
  readonly parentId?: string | null;
  /**
   * With `status`: give every descendant the same status, in the same transaction (a suspended
   * company's divisions stop too). Without, only this organization changes.
   */
  readonly cascade?: boolean;
  /** ISO 8601 time of the change. */
  readonly updatedAt: string;
}

/**
 * Which organizations a read may return: every one (the operator), or an explicit list (an admin
 * user's organizations; possibly empty). Stores filter by it in the query, never afterwards.
 */
export type OrgScope = { readonly all: true } | { readonly orgIds: readonly string[] };

/** An admin user's role within its organizations: `admin` manages, `viewer` only reads. */
export type AdminRole = "admin" | "viewer";

/** `invited` until the invitation is accepted, then `active`; `disabled` keys stop working. */
export type AdminUserStatus = "invited" | "active" | "disabled";

/** A person who looks after some organizations through the analytics interface. */
export interface AdminUser {
  /** Service-assigned id (UUID v7). */
  readonly id: string;
  /**
   * E-mail address, stored lower-cased; unique among admin users. A pending invitation offer
   * (`inviteAdminUser`) shows as an `invited` admin user with the e-mail of the one it is for.
   */
  readonly email: string;
  /** `admin` or `viewer`. */
  readonly role: AdminRole;
  /** The organizations it may see, sorted; ids of existing organizations only. */
  readonly organizationIds: readonly string[];
  /**
   * Those of `organizationIds` granted with their whole subtree (issue 17), sorted: it also sees
   * and manages every descendant of each, present and future. Absent or empty: none.
   */
  readonly subtreeOrganizationIds?: readonly string[];
  /** `invited`, `active` or `disabled`. */
  readonly status: AdminUserStatus;
  /** ISO 8601 time of the (latest) invitation. */
  readonly invitedAt: string;
  /** ISO 8601 time the pending invitation expires; absent once accepted. */
  readonly invitationExpiresAt?: string;
  /** ISO 8601 time the invitation was accepted; absent while invited. */
  readonly activatedAt?: string;
  /** ISO 8601 time of the last change. */
  readonly updatedAt: string;
}

/** Who gives an admin user its grants, when that is bounded (issue 27, item 4). */
export interface GrantOptions {
  /**
   * The admin user whose own grants bound those given: no organization outside its scope, no
   * subtree outside its own subtree grants. Absent: unbounded (the operator).
   */
  readonly grantedBy?: string;
}

/**
 * What `AnalyticsStore.inviteAdminUser` did: stored the invitation — as a new admin user, or as an
 * offer to the admin user the e-mail belongs to — or found the e-mail taken by an admin user or a
 * pending offer the caller may see, and stored nothing.
 */
export type InvitationOutcome = { readonly stored: "admin-user" | "offer" } | { readonly taken: AdminUser };

/** An accepted invitation offer (`AnalyticsStore.acceptInvitationOffer`). */
export interface AcceptedOffer {
  /** The admin user the offer's grants are now part of. */
  readonly adminUser: AdminUser;
  /** Whether the key was stored: only when accepting made the admin user (its e-mail was no one's any more). */
  readonly keyStored: boolean;
}

/** Who an analytics API key speaks for. */
export type KeySubject = { readonly kind: "operator" } | { readonly kind: "admin"; readonly adminUserId: string };

/** An analytics API key as stored: never the key, only its SHA-256 digest. */
export interface StoredApiKey {
  /** Service-assigned id of the key, for audit and revocation. */
  readonly id: string;
  /** Whom it authenticates. */
  readonly subject: KeySubject;
  /** `hashToken(key)`: 64 lower-case hex characters, unique. */
  readonly hash: string;
  /** ISO 8601 creation time. */
  readonly createdAt: string;
}

/** A learner: a User provisioned through SCIM, as the analytics interface shows it. */
export interface Learner {
  /** The SCIM resource id. */
  readonly id: string;
  /** The organization it was provisioned into. */
  readonly orgId: string;
  /** SCIM `userName`. */
  readonly userName: string;
  /** SCIM `displayName`, else `name.formatted`, else given + family name; absent when none. */
  readonly displayName?: string;
  /** The primary e-mail, else the first work e-mail, else the first e-mail; absent when none. */
  readonly email?: string;
  /** SCIM `active`; absent counts as true (as in the SCIM router's events). */
  readonly active: boolean;
  /** Enterprise extension `department`, when set. */
  readonly department?: string;
  /** ISO 8601 `meta.created`. */
  readonly createdAt: string;
  /** ISO 8601 `meta.lastModified`. */
  readonly updatedAt: string;
}

/** Filters of a learner list; all optional and combined with AND. */
export interface LearnerFilter {
  /** Only this organization (still within the scope). */
  readonly orgId?: string;
  /** Only active (true) or inactive (false) learners. */
  readonly active?: boolean;
  /** Exact department, compared case-insensitively. */
  readonly department?: string;
}

/**
 * A keyset page request: at most `limit` items after the position `after` (exclusive) in the
 * list's order. The HTTP layer seals positions into opaque cursors; stores only see them here.
 */
export interface PageRequest {
  /** 1–1000. */
  readonly limit: number;
  /** The sort key of the last item of the previous page (its id where the order is by id). */
  readonly after?: string;
}

/** A page of a keyset list. */
export interface Page<T> {
  /** The items, in the list's order. */
  readonly items: readonly T[];
  /** Position to pass as `after` for the next page; absent on the last page. */
  readonly next?: string;
}

/** A training campaign of one organization. */
export interface Campaign {
  /** Service-assigned id (UUID v7). */
  readonly id: string;
  /** Its organization. */
  readonly orgId: string;
  /** Name, 1–200 characters. */
  readonly name: string;
  /** Optional description. */
  readonly description?: string;
  /** ISO 8601 start. */
  readonly startsAt: string;
  /** ISO 8601 due time; an unfinished enrolment past it is overdue. Absent: never overdue. */
  readonly dueAt?: string;
  /** ISO 8601 creation time. */
  readonly createdAt: string;
}

/** How far a learner is in a campaign. */
export type EnrolmentStatus = "not_started" | "in_progress" | "completed";

/** One learner's enrolment in one campaign. */
export interface Enrolment {
  /** The campaign. */
  readonly campaignId: string;
  /** The learner's SCIM id. */
  readonly userId: string;
  /** `not_started`, `in_progress` or `completed`. */
  readonly status: EnrolmentStatus;
  /** 0–100. */
  readonly progressPercent: number;
  /** 0–100, when scored. */
  readonly score?: number;
  /** ISO 8601 enrolment time. */
  readonly enrolledAt: string;
  /** ISO 8601 time of the first progress; absent while not started. */
  readonly startedAt?: string;
  /** ISO 8601 completion time; absent until completed. */
  readonly completedAt?: string;
  /** ISO 8601 time of the last recorded progress. */
  readonly updatedAt: string;
}

/** An enrolment as a campaign's user list shows it: with the learner and whether it is overdue. */
export interface EnrolmentView extends Enrolment {
  /** The learner, when it still exists in SCIM (absent after the user was deleted). */
  readonly learner?: Learner;
  /** Not completed and the campaign's `dueAt` is before `asOf`. */
  readonly overdue: boolean;
}

/** Filters of a campaign's user list. */
export interface EnrolmentFilter {
  /** Only this status. */
  readonly status?: EnrolmentStatus;
  /** Only overdue (true) or not overdue (false) enrolments. */
  readonly overdue?: boolean;
}

/** A campaign's aggregate figures, computed by the store (SQL aggregates, not JavaScript). */
export interface CampaignSummary {
  readonly campaignId: string;
  readonly enrolled: number;
  readonly notStarted: number;
  readonly inProgress: number;
  readonly completed: number;
  /** Not completed, past `dueAt` at `asOf`. */
  readonly overdue: number;
  /** completed / enrolled, 0–1, rounded to 4 decimals; 0 when nobody is enrolled. */
  readonly completionRate: number;
  /** Mean score of scored enrolments, rounded to 2 decimals; null when none is scored. */
  readonly averageScore: number | null;
  /** The time the figures were computed for. */
  readonly asOf: string;
}

/** A campaign's completions over time (issue 18: the console's training chart). */
export interface CompletionTimeline {
  /** The days on which at least one enrolment was completed, ascending; days without are absent. */
  readonly days: readonly { readonly date: string; readonly completed: number }[];
  /** Enrolments in all. */
  readonly enrolled: number;
}

/** A phishing attack simulation of one organization. */
export interface AttackSimulation {
  /** Service-assigned id (UUID v7). */
  readonly id: string;
  /** Its organization. */
  readonly orgId: string;
  /** Name, 1–200 characters. */
  readonly name: string;
  /** The lure or template used, free text. */
  readonly template?: string;
  /** ISO 8601 launch time. */
  readonly launchedAt: string;
  /** ISO 8601 creation time. */
  readonly createdAt: string;
}

/** What a simulation recipient did, in funnel order. */
export type SimulationEventType = "sent" | "delivered" | "opened" | "clicked" | "submitted_data" | "reported";

/** One recipient of a simulation: the first time of each thing it did. */
export interface SimulationRecipient {
  readonly simulationId: string;
  readonly userId: string;
  readonly sentAt?: string;
  readonly deliveredAt?: string;
  readonly openedAt?: string;
  readonly clickedAt?: string;
  readonly submittedDataAt?: string;
  readonly reportedAt?: string;
}

/** A recipient as a simulation's user list shows it, with the learner. */
export interface SimulationRecipientView extends SimulationRecipient {
  /** The learner, when it still exists in SCIM. */
  readonly learner?: Learner;
}

/** Filters of a simulation's user list: recipients that did (true) or did not (false) each thing. */
export interface RecipientFilter {
  readonly opened?: boolean;
  readonly clicked?: boolean;
  readonly submittedData?: boolean;
  readonly reported?: boolean;
}

/** A simulation's aggregate figures: counts of distinct recipients, and rates over `sent`. */
export interface SimulationSummary {
  readonly simulationId: string;
  readonly sent: number;
  readonly delivered: number;
  readonly opened: number;
  readonly clicked: number;
  readonly submittedData: number;
  readonly reported: number;
  /** Each count divided by `sent`, 0–1, rounded to 4 decimals; 0 when nothing was sent. */
  readonly rates: {
    readonly delivered: number;
    readonly opened: number;
    readonly clicked: number;
    readonly submittedData: number;
    readonly reported: number;
  };
}

/** One organization's figures in a tree summary: its learners, enrolments and simulation recipients. */
export interface OrganizationFigures {
  /** SCIM users. */
  readonly learners: number;
  /** Of them, active. */
  readonly activeLearners: number;
  /** Enrolments in its campaigns. */
  readonly enrolled: number;
  readonly completed: number;
  /** Not completed, past the campaign's `dueAt` at `asOf`. */
  readonly overdue: number;
  /** Recipients of its simulations that were sent, clicked, reported. */
  readonly sent: number;
  readonly clicked: number;
  readonly reported: number;
}

/**
 * The figures of an organization and its descendants (issue 17, item 4), aggregated by the store
 * over the subtree in one pass per kind of record, never an organization at a time.
 */
export interface TreeSummary {
  /** The organization at the top. */
  readonly orgId: string;
  /** Each organization of the subtree within the scope, by id, saying which it is. */
  readonly organizations: readonly (OrganizationFigures & { readonly orgId: string })[];
  /** The sums over `organizations`. */
  readonly totals: OrganizationFigures;
  /**
   * Present when asked for: the people behind the learners, a person provisioned at several
   * levels counted once — matched by work e-mail (the first `emails` entry of type `work`,
   * compared case-insensitively); a learner without one counts alone.
   */
  readonly people?: { readonly learners: number; readonly activeLearners: number };
  /** The time the figures were computed for. */
  readonly asOf: string;
}

/** A learner's free-text feedback on a campaign or a simulation. */
export interface FeedbackComment {
  /** Service-assigned id (UUID v7); list order. */
  readonly id: string;
  /** The campaign or simulation it is about. */
  readonly subject: { readonly kind: "campaign" | "simulation"; readonly id: string };
  /** The learner's SCIM id. */
  readonly userId: string;
  /** 1–5, when given. */
  readonly rating?: number;
  /** 1–4000 characters. */
  readonly comment: string;
  /** ISO 8601 time. */
  readonly createdAt: string;
}

/** The state of an asynchronous operation. */
export type OperationStatus = "queued" | "running" | "succeeded" | "failed";

/** A long-running request, e.g. a bulk report, polled at `GET /operations/{id}`. */
export interface Operation {
  /** Service-assigned id (UUID v7). */
  readonly id: string;
  /** What it does, e.g. `"campaign-users-report"` or `"simulation-users-report"`. */
  readonly kind: string;
  /** The organization whose data it reads; visibility follows it. */
  readonly orgId: string;
  /** The campaign or simulation it reports on. */
  readonly subjectId: string;
  /** `queued`, `running`, `succeeded` or `failed`. */
  readonly status: OperationStatus;
  /** Rows done and, once known, the total. */
  readonly progress: { readonly done: number; readonly total?: number };
  /** ISO 8601 times. */
  readonly createdAt: string;
  readonly startedAt?: string;
  readonly finishedAt?: string;
  /** Why it failed, for a person. */
  readonly error?: string;
  /**
   * What identifies identical requests (caller scope, kind, subject, filters), as a digest: a
   * request with the same key while this one is queued, running or freshly succeeded is given
   * this operation instead of a new one (`startOperation`). Absent: never reused.
   */
  readonly requestKey?: string;
  /** ISO 8601 time from which the operation and its report rows are gone (404, then purged). Absent: kept. */
  readonly expiresAt?: string;
  /** The worker (host) whose claim the job runs under (`claimOperation`); absent while unclaimed. */
  readonly ownerId?: string;
  /** ISO 8601 time of the owner's last heartbeat; a claim older than the lease may be taken over. */
  readonly heartbeatAt?: string;
  /** How many times the job was claimed and not given back (`releaseOperation`): more than one means earlier runs died with their host. */
  readonly attempts?: number;
}

/** The bounds and the freshness `startOperation` admits a report request under. */
export interface ReportAdmission {
  /** ISO 8601 time of the request: operations that expire at or before it count for nothing. */
  readonly now: string;
  /** A succeeded operation with the same `requestKey` finished at or after this time is reused. */
  readonly freshSince: string;
  /** Most queued + running operations of the organization; at it, the request is refused. */
  readonly maxActive: number;
  /** Most report rows the organization may keep (unexpired operations' `progress.done`); at it, refused. */
  readonly maxStoredRows: number;
}

/** What `startOperation` did. */
export type ReportStart =
  /** The new operation was stored, queued. */
  | { readonly outcome: "created"; readonly operation: Operation }
  /** An identical request's operation, queued, running or fresh, answers this one; nothing was stored. */
  | { readonly outcome: "reused"; readonly operation: Operation }
  /**
   * Nothing was stored: the organization is at a bound. `active`: `maxActive` jobs are queued or
   * running. `rows`: it keeps `maxStoredRows` rows; `retryAt` is when the first of them expires.
   */
  | { readonly outcome: "refused"; readonly bound: "active" | "rows"; readonly retryAt?: string };

/** A request to claim a report job (`claimOperation`). */
export interface OperationClaim {
  /** Who claims: one id per worker (host process), stable for its life. */
  readonly ownerId: string;
  /** ISO 8601 time of the claim; it becomes the first heartbeat. */
  readonly now: string;
  /** A claim whose heartbeat is older than this (the lease ran out) may be taken over. */
  readonly staleBefore: string;
  /** Only this operation; absent: the oldest claimable one. */
  readonly id?: string;
}

/** A change to an operation's state; unset fields stay as they are. */
export interface OperationUpdate {
  readonly status?: OperationStatus;
  readonly progress?: { readonly done: number; readonly total?: number };
  readonly startedAt?: string;
  readonly finishedAt?: string;
  readonly error?: string;
}

/** One row of a bulk report: flat, so it renders as JSON or as a CSV line. */
export type ReportRow = Readonly<Record<string, string | number | boolean | null>>;

/**
 * The analytics persistence contract. Every method resolves once its change is visible to every
 * later call from any process sharing the storage. `undefined`/`false` mean "no such thing in
 * scope" — the HTTP layer renders both the same 404, so another organization's data and
 * nonexistent data are indistinguishable.
 */
export interface AnalyticsStore extends AnalyticsDirectory {
  // Organizations
  /**
   * Organizations in scope with `id > after`, ordered by id; `parentId` keeps the children of
   * that organization only.
   */
  listOrganizations(
    scope: OrgScope,
    page: PageRequest,
    filter?: { readonly status?: OrganizationStatus; readonly parentId?: string },
  ): Promise<Page<Organization>>;
  /** The organization, when in scope. */
  getOrganization(scope: OrgScope, id: string): Promise<Organization | undefined>;
  /**
   * The ids of the organizations `rootIds` that exist and of all their descendants, whatever the
   * scope, sorted and without repeats. One recursive query, not a walk a level at a time.
   */
  listSubtreeIds(rootIds: readonly string[]): Promise<readonly string[]>;
  /**
   * Stores a new organization; rejects when `id` exists, and with an `OrganizationTreeError` when
   * its `parentId` names no organization or would put it deeper than `MAX_ORGANIZATION_DEPTH`.
   * With `options.clearLeftovers`, first removes in the same write everything that still carries
   * the id — SCIM resources, SCIM tokens, analytics records — so a new organization inherits
   * nothing from a deleted one of the same id (a token issued or a user written just as that
   * delete committed can outlive it). Without it, SCIM data already there is adopted: a host
   * registering the organizations it served before it had this store.
   */
  createOrganization(organization: Organization, options?: { readonly clearLeftovers?: boolean }): Promise<void>;
  /**
   * Applies a change (with `cascade`, its status to every descendant too); `undefined` when not
   * in scope. A new `parentId` is checked against the tree
   * as it is when the change commits — so of two racing moves that together would close a cycle,
   * one is refused — and rejects with an `OrganizationTreeError` (cycle, depth, unknown parent).
   */
  updateOrganization(scope: OrgScope, id: string, change: OrganizationChange): Promise<Organization | undefined>;
  /**
   * Deletes the organization and everything of it — SCIM users, groups, memberships, SCIM tokens,
   * campaigns, simulations, feedback, operations and report rows — and removes it from every admin
   * user's and pending invitation offer's `organizationIds`, in one transaction. False when not in scope. An organization with
   * children is refused (`OrganizationTreeError`, `has-children`) unless `subtree` is true: then
   * it and every descendant go, each as above, in that one transaction.
   */
  deleteOrganization(scope: OrgScope, id: string, options?: { readonly subtree?: boolean }): Promise<boolean>;

  /**
   * The figures of `orgId` and its descendants within `scope` (recursive query on SQL);
   * `undefined` when `orgId` is not in scope. `people` counts each work e-mail once.
   */
  treeSummary(
    scope: OrgScope,
    orgId: string,
    options: { readonly asOf: string; readonly people?: boolean },
  ): Promise<TreeSummary | undefined>;

  // Admin users and keys
  /**
   * Admin users with `id > after`, by id; with a scope of ids, only those sharing an organization
   * with it. Pending invitation offers (`inviteAdminUser`) are among them, as `invited` admin users.
   */
  listAdminUsers(
    scope: OrgScope,
    page: PageRequest,
    filter?: { readonly status?: AdminUserStatus; readonly role?: AdminRole; readonly orgId?: string },
  ): Promise<Page<AdminUser>>;
  /** The admin user or pending invitation offer, when in scope (as for the list). */
  getAdminUser(scope: OrgScope, id: string): Promise<AdminUser | undefined>;
  /** The admin user with this (lower-cased) e-mail, regardless of scope; never an offer. For uniqueness checks. */
  findAdminUserByEmail(email: string): Promise<AdminUser | undefined>;
  /**
   * Stores a new admin user with its pending invitation (the digest of the single-use code).
   * Rejects with an error whose `code` is `"conflict"` when the e-mail is taken, and — with
   * `options.grantedBy` — with a `GrantBeyondScopeError` when the user's grants lie beyond that
   * admin user's (`grantsBeyond`), checked inside the write on the tree as it is there.
   */
  createAdminUser(
    user: AdminUser,
    invitation: { readonly codeHash: string; readonly expiresAt: string },
    options?: GrantOptions,
  ): Promise<void>;
  /**
   * Stores the invitation of `user` (`invited`, with the digest of its code) that a caller of
   * `scope` asks for, in one write that reads and writes alike whatever it finds, so that neither
   * the answer nor its time tells the caller whether the e-mail is an admin user's it may not see
   * (issue 27). With `options.grantedBy`, first rejects as `createAdminUser` does for grants beyond
   * that admin user's. Then:
   * - `{ taken }`, nothing stored, when an admin user or a pending offer with this e-mail shares an
   *   organization with `scope` (any, for `{ all: true }`): the caller may list it anyway;
   * - `{ stored: "offer" }` when the e-mail is an admin user's that `scope` may not see: a pending
   *   offer of `user`'s role and grants to that e-mail, under `user.id`, offered by
   *   `options.grantedBy`. Until it is accepted (`acceptInvitationOffer`) it is listed, read,
   *   changed and deleted as the `invited` admin user `user` would be;
   * - `{ stored: "admin-user" }` otherwise, as `createAdminUser`.
   * Rejects with a conflict error only when another write took the e-mail at the same moment.
   */
  inviteAdminUser(
    scope: OrgScope,
    user: AdminUser,
    invitation: { readonly codeHash: string; readonly expiresAt: string },
    options?: GrantOptions,
  ): Promise<InvitationOutcome>;
  /**
   * Applies a change; `undefined` when not in scope. With `options.grantedBy`, a change of grants
   * is refused with a `GrantBeyondScopeError` when the grants the user would end with lie beyond
   * that admin user's own (`grantsBeyond`) — itself included — checked inside the write. A pending
   * offer changes the same way, stays `invited` whatever `status` says, and is from then on offered
   * by whoever changed its grants (`options.grantedBy`; absent: the operator).
   */
  updateAdminUser(
    scope: OrgScope,
    id: string,
    change: {
      readonly role?: AdminRole;
      readonly organizationIds?: readonly string[];
      /** A subset of the (new) `organizationIds`; absent: those of the current ones still granted. */
      readonly subtreeOrganizationIds?: readonly string[];
      readonly status?: AdminUserStatus;
      readonly updatedAt: string;
    },
    options?: GrantOptions,
  ): Promise<AdminUser | undefined>;
  /** Deletes the admin user and its keys, or withdraws the pending offer; false when not in scope. */
  deleteAdminUser(scope: OrgScope, id: string): Promise<boolean>;
  /**
   * Accepts the pending invitation whose code digest is `codeHash`, if it has not expired at `now`:
   * marks the user active, consumes the code (a second call with it finds nothing) and stores
   * `key`, atomically. `undefined` when there is no such unexpired invitation (an offer's code included).
   */
  acceptInvitation(codeHash: string, now: string, key: StoredApiKey): Promise<AdminUser | undefined>;
  /**
   * Accepts the pending invitation offer whose code digest is `codeHash`, if it has not expired at
   * `now`, in one write that also removes the offer. Its grants join those of the admin user with
   * its e-mail — each organization it lacks, with its subtree where offered — whose role, status
   * and keys stay, `key` not stored; or, when no admin user has that e-mail any more, the offer
   * becomes one: active, under the offer's id (which `key` names), with `key`. Refused, nothing
   * changed, with a conflict error when that admin user's role is `admin` and the offer's `viewer`
   * (one role for all its organizations: accepting would give more than offered), and with a
   * `GrantBeyondScopeError` when the offered grants lie beyond those the admin user who offered
   * them holds now (a deleted one holds none), read inside the write. `undefined` when there is no
   * such unexpired offer.
   */
  acceptInvitationOffer(codeHash: string, now: string, key: StoredApiKey): Promise<AcceptedOffer | undefined>;
  /** Stores an API key (an operator key, or a further key of an active admin user). */
  insertApiKey(key: StoredApiKey): Promise<void>;
  /**
   * Rotation of a key: deletes key `id` and stores `key` in its place, atomically, so the old
   * key fails from the moment this resolves and no moment exists without either. False, and
   * nothing stored, when there is no key `id`. Rejects when `key.hash` exists (as `insertApiKey`).
   */
  replaceApiKey(id: string, key: StoredApiKey): Promise<boolean>;
  /**
   * Stores the operator key `key` and deletes every other operator key, atomically, so the old
   * ones fail from the moment this resolves and no moment exists without an operator key; admin
   * keys stay. Resolves with how many it deleted. For an operator who lost the key (`scimkit
   * operator-key rotate`): the store keeps only digests, so the keys to retire cannot be named.
   * Rejects, with nothing changed, when `key` is not an operator key or `key.hash` exists.
   */
  replaceOperatorKeys(key: StoredApiKey): Promise<number>;
  /** The key with this digest, or `undefined`; look it up by an index on the digest. */
  findApiKeyByHash(hash: string): Promise<StoredApiKey | undefined>;
  /** Whether any operator key exists (the host server creates one on first start otherwise). */
  hasOperatorKey(): Promise<boolean>;

  // Learners (read from the SCIM resources, never copied)
  /** Learners in scope matching `filter`, ordered by (orgId, id); `after` is `"<orgId>\n<id>"`. */
  listLearners(scope: OrgScope, filter: LearnerFilter, page: PageRequest): Promise<Page<Learner>>;

  // Campaigns
  /** Stores a campaign; rejects when `id` exists. */
  createCampaign(campaign: Campaign): Promise<void>;
  /** Campaigns in scope, by id. */
  listCampaigns(scope: OrgScope, page: PageRequest, filter?: { readonly orgId?: string }): Promise<Page<Campaign>>;
  /** The campaign, when in scope. */
  getCampaign(scope: OrgScope, id: string): Promise<Campaign | undefined>;
  /** Creates or replaces the enrolment of (`campaignId`, `userId`). */
  putEnrolment(orgId: string, enrolment: Enrolment): Promise<void>;
  /** The campaign's enrolments by user id, with learners; `overdue` as of `asOf`. */
  listEnrolments(campaignId: string, filter: EnrolmentFilter, asOf: string, page: PageRequest): Promise<Page<EnrolmentView>>;
  /** One enrolment, with its learner; `undefined` when the user is not enrolled. */
  getEnrolment(campaignId: string, userId: string, asOf: string): Promise<EnrolmentView | undefined>;
  /** Aggregates over the campaign's enrolments as of `asOf`. */
  campaignSummary(campaignId: string, asOf: string): Promise<CampaignSummary>;
  /** Completed enrolments per UTC day of `completedAt`, and the enrolments in all (one aggregate query on SQL). */
  campaignCompletionTimeline(campaignId: string): Promise<CompletionTimeline>;

  // Attack simulations
  /** Stores a simulation; rejects when `id` exists. */
  createSimulation(simulation: AttackSimulation): Promise<void>;
  /** The simulation, when in scope. */
  getSimulation(scope: OrgScope, id: string): Promise<AttackSimulation | undefined>;
  /** Records that `userId` did `type` at `at`; keeps the earliest time per type. */
  recordSimulationEvent(
    orgId: string,
    event: { readonly simulationId: string; readonly userId: string; readonly type: SimulationEventType; readonly at: string },
  ): Promise<void>;
  /** The simulation's recipients by user id, with learners. */
  listRecipients(simulationId: string, filter: RecipientFilter, page: PageRequest): Promise<Page<SimulationRecipientView>>;
  /** One recipient, with its learner. */
  getRecipient(simulationId: string, userId: string): Promise<SimulationRecipientView | undefined>;
  /** Aggregates over the simulation's recipients. */
  simulationSummary(simulationId: string): Promise<SimulationSummary>;

  // Feedback
  /** Stores a feedback comment. */
  addFeedback(orgId: string, comment: FeedbackComment): Promise<void>;
  /** The comments on a campaign or simulation, by id (oldest first). */
  listFeedback(subject: FeedbackComment["subject"], page: PageRequest): Promise<Page<FeedbackComment>>;

  // Operations
  /** Stores a new operation. */
  createOperation(operation: Operation): Promise<void>;
  /** The operation, when its organization is in scope. */
  getOperation(scope: OrgScope, id: string): Promise<Operation | undefined>;
  /**
   * Applies a state change. With `ownerId`, only while that owner's claim holds (a worker whose
   * job was taken over must not overwrite the new owner's progress). True when applied.
   */
  updateOperation(id: string, update: OperationUpdate, ownerId?: string): Promise<boolean>;
  /**
   * Appends report rows after those already stored, in order. With `ownerId`, only while that
   * owner's claim holds, checked in the same transaction as the append, so rows of a job taken
   * over are never added to the new owner's. True when appended.
   */
  appendReportRows(operationId: string, rows: readonly ReportRow[], ownerId?: string): Promise<boolean>;
  /** The stored report rows in order, a page at a time, without loading them all. */
  readReportRows(operationId: string): AsyncIterable<readonly ReportRow[]>;
  /**
   * Admits a report request atomically (identical concurrent requests get one operation): the
   * unexpired operation of `operation.orgId` with the same `requestKey` that is queued, running,
   * or succeeded at or after `freshSince` (`reused`); else a refusal when the organization is at
   * one of the bounds (`refused`); else stores `operation` (`created`).
   */
  startOperation(operation: Operation, admission: ReportAdmission): Promise<ReportStart>;
  /**
   * Claims a report job for `claim.ownerId` — on PostgreSQL with `FOR UPDATE SKIP LOCKED`, so
   * workers on several hosts never claim the same one and never wait on each other: an unexpired
   * operation that is queued and unclaimed, or whose owner's heartbeat is older than
   * `staleBefore` (its host died), or running without a heartbeat. In the same transaction its
   * report rows are deleted and its progress reset, so the new owner starts from zero and no row
   * is ever stored twice. `attempts` counts up; `heartbeatAt` is `now`. Undefined when none.
   */
  claimOperation(claim: OperationClaim): Promise<Operation | undefined>;
  /** Records that `ownerId` still runs the job; false when its claim was lost (taken over, or the operation is gone). */
  heartbeatOperation(id: string, ownerId: string, now: string): Promise<boolean>;
  /**
   * Gives up `ownerId`'s claim (a worker stopping, or its database unreachable), so another worker
   * may claim the job at once; the claim no longer counts in `attempts`.
   */
  releaseOperation(id: string, ownerId: string): Promise<void>;
  /**
   * Deletes operations that expired at or before `now` with their report rows, at most about
   * `maxRows` rows (and operations) in one call, so a purge never holds the storage for long;
   * resolves with how many it deleted (0: nothing expired is left).
   */
  purgeExpiredOperations(now: string, maxRows: number): Promise<number>;
}
