/**
 * The organizations of the analytics store (spec §4.6; the tree of issue 17): list, read, create,
 * change and delete, the subtree of a grant, and the figures of a subtree. Part of `AnalyticsStore`.
 */
import type { ExistingUserPolicy } from "scimkit";
import type { CompatibilityProfileName } from "scimkit/core";
import type { OrgScope } from "./org-scope.js";
import type { Page, PageRequest } from "./page-request.js";

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
  /** A new display name, 1–200 characters. */
  readonly name?: string;
  /** A new lifecycle state. */
  readonly status?: OrganizationStatus;
  /** A compatibility profile, or `null` for the host's default. */
  readonly compatibility?: CompatibilityProfileName | null;
  /** An existing-user policy, or `null` for the default (`conflict`). */
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

/** One organization's figures in a tree summary: its learners, enrolments and simulation recipients. */
export interface OrganizationFigures {
  /** SCIM users. */
  readonly learners: number;
  /** Of them, active. */
  readonly activeLearners: number;
  /** Enrolments in its campaigns. */
  readonly enrolled: number;
  /** Of them, completed. */
  readonly completed: number;
  /** Not completed, past the campaign's `dueAt` at `asOf`. */
  readonly overdue: number;
  /** Recipients of its simulations that were sent. */
  readonly sent: number;
  /** Recipients that clicked. */
  readonly clicked: number;
  /** Recipients that reported the lure. */
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

/**
 * The totals of the organizations a store holds (issue 30, point 5: a cross-region figure is
 * computed from per-region aggregates only): counts, nothing of any organization or person.
 */
export interface OrganizationTotals {
  /** Organizations. */
  readonly organizations: number;
  /** Their SCIM users (learners). */
  readonly users: number;
  /** Of them, active (`active` absent counts as true, as `Learner.active`). */
  readonly activeUsers: number;
  /** Their SCIM groups. */
  readonly groups: number;
}

/** The most organizations `organizationTotals` leaves out: each is a bound parameter of the SQL store's one query. */
export const MAX_TOTALS_EXCEPTIONS = 10_000;

/**
 * Organizations in the analytics store. Every method resolves once its change is visible to every later call from any process sharing
 * the storage. `undefined`/`false` mean "no such thing in scope" — the HTTP layer renders both the
 * same 404, so another organization's data and nonexistent data are indistinguishable.
 */
export interface OrganizationStore {
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

  /**
   * The totals of every organization the store holds but those of `except` — counted, never read
   * row by row: on SQL one statement of aggregates, so the figures are of one snapshot. Only the
   * SCIM users and groups of organizations the store holds count (an id's SCIM data without its
   * organization does not), and an id of `except` the store does not hold changes nothing.
   * Rejects with an `Error` when `except` holds more than `MAX_TOTALS_EXCEPTIONS` ids.
   *
   * @example const { organizations, users } = await store.organizationTotals({ except: ["arriving-org"] });
   */
  organizationTotals(options?: { readonly except?: readonly string[] }): Promise<OrganizationTotals>;
}
