/**
 * The in-memory reference `AnalyticsStore` (spec §4.6): organizations, admin users, keys, training
 * and simulation data in plain maps, for tests, demos and single-process hosts. Learners are not
 * kept here: they are read through the `ResourceStore` API from the SCIM users themselves.
 */
import type { TokenStore } from "scimkit";
import { eventLoopSlice, pauseIfDue, type EventLoopSlice, type ResourceStore, type StoredResource } from "scimkit/store";
import type {
  AdminUser,
  AnalyticsStore,
  AttackSimulation,
  Campaign,
  Enrolment,
  EnrolmentView,
  FeedbackComment,
  Learner,
  LearnerFilter,
  Operation,
  OrgScope,
  Organization,
  ReportRow,
  SimulationEventType,
  SimulationRecipient,
  SimulationRecipientView,
  StoredApiKey,
} from "../analytics-store.js";
import { analyticsConflictError } from "../analytics-conflict-error.js";
import { checkParentChain } from "../check-parent-chain.js";
import { type Grants, grantsBeyond, refuseGrantsBeyond } from "../grants-beyond.js";
import { mergedGrants, refuseWiderRole } from "../offered-grants.js";
import { MAX_ORGANIZATION_DEPTH, organizationTreeError } from "../organization-tree-error.js";
import { rounded, simulationRates, summaryRate } from "../summary-rates.js";
import { walkResources } from "./walk-resources.js";
import { compareKeys, keysetPage } from "./keyset-page.js";
import { learnerOf, workEmailOf } from "./learner-of.js";
import { memoryReportJobs } from "./memory-report-jobs.js";
import { plainCopy } from "./plain-copy.js";
import { memoryDirectory } from "./memory-directory.js";

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

/** Users read per request while walking an organization's SCIM users for a learner list. */
const USER_CHUNK = 1000;
/** Rows per page of `readReportRows`, the size the report job appends in. */
const REPORT_PAGE = 1000;

const TIME_FIELD: Readonly<Record<SimulationEventType, keyof SimulationRecipient>> = {
  sent: "sentAt",
  delivered: "deliveredAt",
  opened: "openedAt",
  clicked: "clickedAt",
  submitted_data: "submittedDataAt",
  reported: "reportedAt",
};

/** A record with the organization it belongs to, so an organization delete finds it. */
interface Owned<T> {
  readonly orgId: string;
  readonly value: T;
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A scope's ids as a set, made once per scope object (a request's): a caller with a subtree of
 * thousands of organizations costs one lookup per check, not a scan of its list (issue 27).
 */
const scopeSets = new WeakMap<OrgScope, ReadonlySet<string>>();

function scopeSet(scope: { readonly orgIds: readonly string[] }): ReadonlySet<string> {
  let set = scopeSets.get(scope);
  if (set === undefined) {
    set = new Set(scope.orgIds);
    scopeSets.set(scope, set);
  }
  return set;
}

function sees(scope: OrgScope, orgId: string): boolean {
  return "all" in scope || scopeSet(scope).has(orgId);
}

function seesAdminUser(scope: OrgScope, user: AdminUser): boolean {
  if ("all" in scope) return true;
  const visible = scopeSet(scope);
  return user.organizationIds.some((orgId) => visible.has(orgId));
}

/** The grants of `user` (an admin user or the entry of an offer). */
function grantsOf(user: AdminUser): Grants {
  return { organizationIds: user.organizationIds, subtreeOrganizationIds: user.subtreeOrganizationIds ?? [] };
}

/**
 * A pending invitation offer (issue 27): an invitation whose e-mail is an admin user's the inviter
 * may not see, shown as the `invited` admin user `entry` until it is accepted or withdrawn.
 */
interface PendingOffer {
  readonly entry: AdminUser;
  /** The admin user whose grants bound the offer's; undefined: the operator. */
  readonly offeredBy: string | undefined;
  readonly codeHash: string;
}

/** `user` with `organizationIds` and `subtreeOrganizationIds` as given, sorted; no subtree member when none. */
function withGrants(user: AdminUser, organizationIds: readonly string[], subtreeOrganizationIds: readonly string[]): AdminUser {
  const { subtreeOrganizationIds: _previous, ...rest } = user;
  const subtree = subtreeOrganizationIds.filter((orgId) => organizationIds.includes(orgId));
  return {
    ...rest,
    organizationIds: [...organizationIds].sort(compareKeys),
    ...(subtree.length === 0 ? {} : { subtreeOrganizationIds: [...subtree].sort(compareKeys) }),
  };
}

function isOverdue(enrolment: Enrolment, campaign: Campaign | undefined, asOf: string): boolean {
  return enrolment.status !== "completed" && campaign?.dueAt !== undefined && Date.parse(campaign.dueAt) < Date.parse(asOf);
}

function matchesLearner(learner: Learner, filter: LearnerFilter): boolean {
  if (filter.active !== undefined && learner.active !== filter.active) return false;
  if (filter.department !== undefined && learner.department?.toLowerCase() !== filter.department.toLowerCase()) return false;
  return true;
}

/** `"<orgId>\n<id>"`, the position `listLearners` pages by. */
function learnerPosition(learner: Learner): string {
  return `${learner.orgId}\n${learner.id}`;
}

function sortedValues<T>(map: ReadonlyMap<string, T>): T[] {
  return [...map.keys()].sort(compareKeys).map((key) => map.get(key) as T);
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
  const { resources, tokens } = options;
  const now = options.now ?? (() => new Date());
  const newSlice = options.eventLoopSlice ?? (() => eventLoopSlice());

  const organizations = new Map<string, Organization>();
  const adminUsers = new Map<string, AdminUser>();
  const adminIdByEmail = new Map<string, string>();
  /** Pending invitations by code digest. */
  const invitations = new Map<string, { readonly adminUserId: string; readonly expiresAt: string }>();
  /** Pending invitation offers by id, and their ids by code digest. */
  const offers = new Map<string, PendingOffer>();
  const offerIdByCode = new Map<string, string>();
  const apiKeys = new Map<string, StoredApiKey>();
  const campaigns = new Map<string, Campaign>();
  /** campaign id → user id → enrolment. */
  const enrolments = new Map<string, Map<string, Owned<Enrolment>>>();
  const simulations = new Map<string, AttackSimulation>();
  /** simulation id → user id → recipient. */
  const recipients = new Map<string, Map<string, Owned<SimulationRecipient>>>();
  /** `"<kind>:<id>"` of the subject → comment id → comment. */
  const feedback = new Map<string, Map<string, Owned<FeedbackComment>>>();
  const operations = new Map<string, Operation>();
  const reportRows = new Map<string, ReportRow[]>();

  const subjectKey = (subject: FeedbackComment["subject"]): string => `${subject.kind}:${subject.id}`;

  const learner = async (orgId: string, userId: string): Promise<Learner | undefined> => {
    const user = await resources.get({ orgId, resourceType: "User", id: userId, members: false });
    return user === undefined ? undefined : learnerOf(orgId, user);
  };

  /** The organization's SCIM users in id order after `afterId`, a chunk per ResourceStore call. */
  const usersOf = (orgId: string, afterId: string | undefined): AsyncGenerator<StoredResource> =>
    walkResources(resources, orgId, "User", afterId, false);

  /** Empties the organization's SCIM data through the ResourceStore API when it has no bulk delete. */
  async function deleteScimResources(orgId: string): Promise<void> {
    if (resources.deleteOrganization) {
      await resources.deleteOrganization(orgId);
      return;
    }
    for (const resourceType of ["Group", "User"]) {
      for (;;) {
        const { resources: page } = await resources.list({
          orgId,
          resourceType,
          members: false,
          countTotal: false,
          page: { kind: "index", startIndex: 1, count: USER_CHUNK },
        });
        if (page.length === 0) break;
        const time = now().toISOString();
        for (const resource of page) await resources.delete({ orgId, resourceType, id: resource.id, now: time });
      }
    }
  }

  const enrolmentView = async (orgId: string, owned: Enrolment, asOf: string): Promise<EnrolmentView> => {
    const found = await learner(orgId, owned.userId);
    const view: EnrolmentView = { ...plainCopy(owned), overdue: isOverdue(owned, campaigns.get(owned.campaignId), asOf) };
    return found === undefined ? view : { ...view, learner: found };
  };

  const recipientView = async (owned: Owned<SimulationRecipient>): Promise<SimulationRecipientView> => {
    const found = await learner(owned.orgId, owned.value.userId);
    const view: SimulationRecipientView = plainCopy(owned.value);
    return found === undefined ? view : { ...view, learner: found };
  };

  /** `id` and its ancestors, from `id` up to the root; empty when there is no `id`. */
  const chainOf = (id: string): string[] => {
    const chain: string[] = [];
    for (let at = organizations.get(id); at !== undefined && chain.length <= MAX_ORGANIZATION_DEPTH; ) {
      chain.push(at.id);
      at = at.parentId === undefined ? undefined : organizations.get(at.parentId);
    }
    return chain;
  };

  /** Each parent's children, built on first use after a change of the tree (issue 27: no scan per level). */
  let children: Map<string, string[]> | undefined;
  const childrenOf = (id: string): readonly string[] => {
    if (children === undefined) {
      children = new Map();
      for (const organization of organizations.values()) {
        if (organization.parentId === undefined) continue;
        const siblings = children.get(organization.parentId);
        if (siblings === undefined) children.set(organization.parentId, [organization.id]);
        else siblings.push(organization.id);
      }
    }
    return children.get(id) ?? [];
  };
  /** Every write of `organizations` goes through here, so the index of children is never stale. */
  const putOrganization = (organization: Organization): void => {
    organizations.set(organization.id, organization);
    children = undefined;
  };

  /** `id` and its descendants with their level below `id` (1 for `id`), in id order. */
  const subtreeOf = (id: string): { readonly id: string; readonly level: number }[] => {
    if (!organizations.has(id)) return [];
    const found = [{ id, level: 1 }];
    for (let index = 0; index < found.length; index += 1) {
      const parent = found[index] as { readonly id: string; readonly level: number };
      for (const child of childrenOf(parent.id)) found.push({ id: child, level: parent.level + 1 });
    }
    return found.sort((a, b) => compareKeys(a.id, b.id));
  };

  /** Throws when `granted` lies beyond the grants of admin user `grantorId` (none: nothing granted). */
  const refuseBeyondGrantor = (grantorId: string | undefined, granted: Grants): void => {
    if (grantorId === undefined) return;
    const grantor = adminUsers.get(grantorId);
    const own = { organizationIds: grantor?.organizationIds ?? [], subtreeOrganizationIds: grantor?.subtreeOrganizationIds ?? [] };
    refuseGrantsBeyond(grantsBeyond(own, chainOf, granted));
  };

  /** Throws when `id` is an admin user's or an offer's, or `codeHash` an invitation's or an offer's: the caller's ids are fresh. */
  const refuseTakenIds = (id: string, codeHash: string): void => {
    if (adminUsers.has(id) || offers.has(id)) throw new Error(`memoryAnalyticsStore: admin user ${id} exists`);
    if (invitations.has(codeHash) || offerIdByCode.has(codeHash)) {
      throw new Error("memoryAnalyticsStore: an invitation with this code digest exists");
    }
  };

  /** Stores the invited admin user `user` with its pending invitation; a conflict error when its e-mail is taken. */
  const storeAdminUser = (user: AdminUser, invitation: { readonly codeHash: string; readonly expiresAt: string }): void => {
    const email = user.email.toLowerCase();
    if (adminIdByEmail.has(email)) throw analyticsConflictError("An admin user with this e-mail address exists");
    refuseTakenIds(user.id, invitation.codeHash);
    adminUsers.set(user.id, plainCopy(withGrants({ ...user, email }, user.organizationIds, user.subtreeOrganizationIds ?? [])));
    adminIdByEmail.set(email, user.id);
    invitations.set(invitation.codeHash, { adminUserId: user.id, expiresAt: invitation.expiresAt });
  };

  /** Withdraws the pending offer `id`. */
  const removeOffer = (id: string): void => {
    const offer = offers.get(id);
    if (offer === undefined) return;
    offers.delete(id);
    offerIdByCode.delete(offer.codeHash);
  };

  /** Removes every analytics record of `id` and strips it from admin users. */
  const deleteAnalyticsRecords = (id: string): void => {
    organizations.delete(id);
    children = undefined;
    for (const [userId, user] of adminUsers) {
      if (user.organizationIds.includes(id)) {
        const kept = user.organizationIds.filter((orgId) => orgId !== id);
        adminUsers.set(userId, withGrants(user, kept, user.subtreeOrganizationIds ?? []));
      }
    }
    for (const [offerId, offer] of offers) {
      if (offer.entry.organizationIds.includes(id)) {
        const kept = offer.entry.organizationIds.filter((orgId) => orgId !== id);
        offers.set(offerId, { ...offer, entry: withGrants(offer.entry, kept, offer.entry.subtreeOrganizationIds ?? []) });
      }
    }
    for (const [campaignId, campaign] of campaigns) if (campaign.orgId === id) campaigns.delete(campaignId);
    for (const [simulationId, simulation] of simulations) if (simulation.orgId === id) simulations.delete(simulationId);
    for (const [operationId, operation] of operations) {
      if (operation.orgId !== id) continue;
      operations.delete(operationId);
      reportRows.delete(operationId);
    }
    for (const table of [enrolments, recipients, feedback] as const) {
      for (const [key, rows] of table as Map<string, Map<string, Owned<unknown>>>) {
        for (const [rowKey, row] of rows) if (row.orgId === id) rows.delete(rowKey);
        if (rows.size === 0) table.delete(key);
      }
    }
  };

  return {
    ...memoryDirectory(resources),

    // Organizations

    async listOrganizations(scope, page, filter = {}) {
      const matching = sortedValues(organizations).filter(
        (organization) =>
          sees(scope, organization.id) &&
          (filter.status === undefined || organization.status === filter.status) &&
          (filter.parentId === undefined || organization.parentId === filter.parentId),
      );
      return keysetPage(matching, (organization) => organization.id, page, plainCopy);
    },

    async getOrganization(scope, id) {
      const organization = organizations.get(id);
      return organization !== undefined && sees(scope, id) ? plainCopy(organization) : undefined;
    },

    async listSubtreeIds(rootIds) {
      const found = new Set(rootIds.flatMap((id) => subtreeOf(id).map((member) => member.id)));
      return [...found].sort(compareKeys);
    },

    async createOrganization(organization, options = {}) {
      const { id } = organization;
      if (organizations.has(id)) throw new Error(`memoryAnalyticsStore: organization ${id} exists`);
      if (organization.parentId !== undefined) checkParentChain(chainOf(organization.parentId), organization.parentId, 1);
      // Each clearing call does its work when called (as in deleteOrganization), so nothing runs
      // between it and the new organization's appearance.
      const cleared = options.clearLeftovers === true ? [deleteAnalyticsRecords(id), deleteScimResources(id), tokens.revokeAll(id)] : [];
      putOrganization(plainCopy(organization));
      await Promise.all(cleared);
    },

    async updateOrganization(scope, id, change) {
      const current = organizations.get(id);
      if (current === undefined || !sees(scope, id)) return undefined;
      if (change.parentId !== undefined && change.parentId !== null && change.parentId !== current.parentId) {
        // Its subtree moves with it, so the deepest descendant must still fit under the bound.
        checkParentChain(chainOf(change.parentId), change.parentId, Math.max(...subtreeOf(id).map((member) => member.level)), id);
      }
      const { compatibility, existingUsers, parentId, ...kept } = current;
      // `null` in a change returns a setting to its default: the member is then absent.
      const nextCompatibility = change.compatibility === undefined ? compatibility : (change.compatibility ?? undefined);
      const nextExistingUsers = change.existingUsers === undefined ? existingUsers : (change.existingUsers ?? undefined);
      const nextParentId = change.parentId === undefined ? parentId : (change.parentId ?? undefined);
      const next: Organization = {
        ...kept,
        ...(change.name === undefined ? {} : { name: change.name }),
        ...(change.status === undefined ? {} : { status: change.status }),
        ...(nextCompatibility === undefined ? {} : { compatibility: nextCompatibility }),
        ...(nextExistingUsers === undefined ? {} : { existingUsers: nextExistingUsers }),
        ...(nextParentId === undefined ? {} : { parentId: nextParentId }),
        updatedAt: change.updatedAt,
      };
      putOrganization(next);
      const { status } = change;
      if (change.cascade === true && status !== undefined) {
        for (const member of subtreeOf(id)) {
          const descendant = organizations.get(member.id);
          if (descendant !== undefined && member.id !== id) putOrganization({ ...descendant, status, updatedAt: change.updatedAt });
        }
      }
      return plainCopy(next);
    },

    async deleteOrganization(scope, id, options = {}) {
      if (!organizations.has(id) || !sees(scope, id)) return false;
      const members = subtreeOf(id).map((member) => member.id);
      if (members.length > 1 && options.subtree !== true) {
        const children = [...organizations.values()].filter((organization) => organization.parentId === id).length;
        throw organizationTreeError({ kind: "has-children", children });
      }
      for (const member of members) deleteAnalyticsRecords(member);
      // Every call starts before any is awaited: on the memory stores each does its whole work
      // synchronously when called, so the subtree disappears everywhere at once.
      await Promise.all(members.flatMap((member) => [deleteScimResources(member), tokens.revokeAll(member)]));
      return true;
    },

    async treeSummary(scope, orgId, options) {
      if (!organizations.has(orgId) || !sees(scope, orgId)) return undefined;
      const slice = newSlice();
      const members = subtreeOf(orgId)
        .map((member) => member.id)
        .filter((id) => sees(scope, id));
      const figuresOf = new Map(
        members.map((id) => [
          id,
          { orgId: id, learners: 0, activeLearners: 0, enrolled: 0, completed: 0, overdue: 0, sent: 0, clicked: 0, reported: 0 },
        ]),
      );
      const people = new Set<string>();
      const activePeople = new Set<string>();
      for (const figures of figuresOf.values()) {
        const id = figures.orgId;
        for await (const user of usersOf(id, undefined)) {
          const person = workEmailOf(user) ?? `id:${id}/${user.id}`;
          const active = learnerOf(id, user).active;
          figures.learners += 1;
          people.add(person);
          if (active) {
            figures.activeLearners += 1;
            activePeople.add(person);
          }
          await pauseIfDue(slice);
        }
      }
      // One pass over each table, each row counted for its organization when that is a member:
      // not a pass per member, which a subtree of thousands made thousands of passes.
      for (const byUser of enrolments.values()) {
        for (const { orgId: owner, value } of byUser.values()) {
          const figures = figuresOf.get(owner);
          if (figures === undefined) continue;
          figures.enrolled += 1;
          if (value.status === "completed") figures.completed += 1;
          if (isOverdue(value, campaigns.get(value.campaignId), options.asOf)) figures.overdue += 1;
        }
        await pauseIfDue(slice);
      }
      for (const byUser of recipients.values()) {
        for (const { orgId: owner, value } of byUser.values()) {
          const figures = figuresOf.get(owner);
          if (figures === undefined) continue;
          if (value.sentAt !== undefined) figures.sent += 1;
          if (value.clickedAt !== undefined) figures.clicked += 1;
          if (value.reportedAt !== undefined) figures.reported += 1;
        }
        await pauseIfDue(slice);
      }
      const rows = [...figuresOf.values()];
      const totals = { learners: 0, activeLearners: 0, enrolled: 0, completed: 0, overdue: 0, sent: 0, clicked: 0, reported: 0 };
      for (const { orgId: _orgId, ...figures } of rows) {
        for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += figures[key];
      }
      const summary = { orgId, organizations: rows, totals, asOf: options.asOf };
      return options.people === true ? { ...summary, people: { learners: people.size, activeLearners: activePeople.size } } : summary;
    },

    // Admin users and keys

    async listAdminUsers(scope, page, filter = {}) {
      const entries = [...adminUsers.values(), ...[...offers.values()].map((offer) => offer.entry)];
      const matching = entries
        .sort((a, b) => compareKeys(a.id, b.id))
        .filter(
          (user) =>
            seesAdminUser(scope, user) &&
            (filter.status === undefined || user.status === filter.status) &&
            (filter.role === undefined || user.role === filter.role) &&
            (filter.orgId === undefined || user.organizationIds.includes(filter.orgId)),
        );
      return keysetPage(matching, (user) => user.id, page, plainCopy);
    },

    async getAdminUser(scope, id) {
      const user = adminUsers.get(id) ?? offers.get(id)?.entry;
      return user !== undefined && seesAdminUser(scope, user) ? plainCopy(user) : undefined;
    },

    async findAdminUserByEmail(email) {
      const id = adminIdByEmail.get(email.toLowerCase());
      const user = id === undefined ? undefined : adminUsers.get(id);
      return user === undefined ? undefined : plainCopy(user);
    },

    async createAdminUser(user, invitation, options = {}) {
      refuseBeyondGrantor(options.grantedBy, grantsOf(user));
      storeAdminUser(user, invitation);
    },

    async inviteAdminUser(scope, user, invitation, options = {}) {
      refuseBeyondGrantor(options.grantedBy, grantsOf(user));
      const email = user.email.toLowerCase();
      const holderId = adminIdByEmail.get(email);
      const holder = holderId === undefined ? undefined : adminUsers.get(holderId);
      if (holder !== undefined && seesAdminUser(scope, holder)) return { taken: plainCopy(holder) };
      for (const offer of offers.values()) {
        if (offer.entry.email === email && seesAdminUser(scope, offer.entry)) return { taken: plainCopy(offer.entry) };
      }
      if (holder === undefined) {
        storeAdminUser(user, invitation);
        return { stored: "admin-user" };
      }
      refuseTakenIds(user.id, invitation.codeHash);
      const entry = plainCopy(withGrants({ ...user, email }, user.organizationIds, user.subtreeOrganizationIds ?? []));
      offers.set(user.id, { entry, offeredBy: options.grantedBy, codeHash: invitation.codeHash });
      offerIdByCode.set(invitation.codeHash, user.id);
      return { stored: "offer" };
    },

    async updateAdminUser(scope, id, change, options = {}) {
      const offer = offers.get(id);
      const current = adminUsers.get(id) ?? offer?.entry;
      if (current === undefined || !seesAdminUser(scope, current)) return undefined;
      const regrants = change.organizationIds !== undefined || change.subtreeOrganizationIds !== undefined;
      if (regrants) {
        const organizationIds = change.organizationIds ?? current.organizationIds;
        const subtreeOrganizationIds = change.subtreeOrganizationIds ?? current.subtreeOrganizationIds ?? [];
        refuseBeyondGrantor(options.grantedBy, {
          organizationIds,
          subtreeOrganizationIds: subtreeOrganizationIds.filter((orgId) => organizationIds.includes(orgId)),
        });
      }
      const next: AdminUser = {
        ...current,
        ...(change.role === undefined ? {} : { role: change.role }),
        // An offer is `invited` until accepted.
        ...(change.status === undefined || offer !== undefined ? {} : { status: change.status }),
        updatedAt: change.updatedAt,
      };
      // A grant that stays keeps its subtree unless the change says otherwise.
      const granted = withGrants(
        next,
        change.organizationIds ?? current.organizationIds,
        change.subtreeOrganizationIds ?? current.subtreeOrganizationIds ?? [],
      );
      if (offer === undefined) adminUsers.set(id, granted);
      else offers.set(id, { ...offer, entry: granted, offeredBy: regrants ? options.grantedBy : offer.offeredBy });
      return plainCopy(granted);
    },

    async deleteAdminUser(scope, id) {
      const offer = offers.get(id);
      if (offer !== undefined) {
        if (!seesAdminUser(scope, offer.entry)) return false;
        removeOffer(id);
        return true;
      }
      const user = adminUsers.get(id);
      if (user === undefined || !seesAdminUser(scope, user)) return false;
      adminUsers.delete(id);
      adminIdByEmail.delete(user.email);
      for (const [codeHash, invitation] of invitations) if (invitation.adminUserId === id) invitations.delete(codeHash);
      for (const [hash, key] of apiKeys) if (key.subject.kind === "admin" && key.subject.adminUserId === id) apiKeys.delete(hash);
      return true;
    },

    async acceptInvitation(codeHash, at, key) {
      const invitation = invitations.get(codeHash);
      const user = invitation === undefined ? undefined : adminUsers.get(invitation.adminUserId);
      if (invitation === undefined || user === undefined || user.status !== "invited") return undefined;
      if (!(Date.parse(at) < Date.parse(invitation.expiresAt))) return undefined;
      // Checked before anything changes, so a refused key leaves the invitation usable.
      if (apiKeys.has(key.hash)) throw new Error("memoryAnalyticsStore: an API key with this digest exists");
      const { invitationExpiresAt: _pending, ...rest } = user;
      const next: AdminUser = { ...rest, status: "active", activatedAt: at, updatedAt: at };
      invitations.delete(codeHash);
      adminUsers.set(user.id, next);
      apiKeys.set(key.hash, plainCopy(key));
      return plainCopy(next);
    },

    async acceptInvitationOffer(codeHash, at, key) {
      const offerId = offerIdByCode.get(codeHash);
      const offer = offerId === undefined ? undefined : offers.get(offerId);
      if (offer === undefined || !(Date.parse(at) < Date.parse(offer.entry.invitationExpiresAt ?? ""))) return undefined;
      // Every check before anything changes, so a refused offer stays pending.
      refuseBeyondGrantor(offer.offeredBy, grantsOf(offer.entry));
      const holderId = adminIdByEmail.get(offer.entry.email);
      const holder = holderId === undefined ? undefined : adminUsers.get(holderId);
      if (holder !== undefined) {
        refuseWiderRole(holder.role, offer.entry.role);
        const grants = mergedGrants(grantsOf(holder), grantsOf(offer.entry));
        const merged = withGrants({ ...holder, updatedAt: at }, grants.organizationIds, grants.subtreeOrganizationIds);
        removeOffer(offer.entry.id);
        adminUsers.set(holder.id, merged);
        return { adminUser: plainCopy(merged), keyStored: false };
      }
      if (apiKeys.has(key.hash)) throw new Error("memoryAnalyticsStore: an API key with this digest exists");
      const { invitationExpiresAt: _pending, ...rest } = offer.entry;
      const created: AdminUser = { ...rest, status: "active", activatedAt: at, updatedAt: at };
      removeOffer(created.id);
      adminUsers.set(created.id, created);
      adminIdByEmail.set(created.email, created.id);
      apiKeys.set(key.hash, plainCopy(key));
      return { adminUser: plainCopy(created), keyStored: true };
    },

    async insertApiKey(key) {
      if (apiKeys.has(key.hash)) throw new Error("memoryAnalyticsStore: an API key with this digest exists");
      apiKeys.set(key.hash, plainCopy(key));
    },

    async replaceApiKey(id, key) {
      const old = [...apiKeys.values()].find((candidate) => candidate.id === id);
      if (old === undefined) return false;
      if (apiKeys.has(key.hash)) throw new Error("memoryAnalyticsStore: an API key with this digest exists");
      apiKeys.delete(old.hash);
      apiKeys.set(key.hash, plainCopy(key));
      return true;
    },

    async replaceOperatorKeys(key) {
      if (key.subject.kind !== "operator") throw new TypeError("replaceOperatorKeys: the key is not an operator key");
      if (apiKeys.has(key.hash)) throw new Error("memoryAnalyticsStore: an API key with this digest exists");
      const retired = [...apiKeys.values()].filter((candidate) => candidate.subject.kind === "operator");
      for (const old of retired) apiKeys.delete(old.hash);
      apiKeys.set(key.hash, plainCopy(key));
      return retired.length;
    },

    async findApiKeyByHash(hash) {
      const key = apiKeys.get(hash);
      return key === undefined ? undefined : plainCopy(key);
    },

    async hasOperatorKey() {
      for (const key of apiKeys.values()) if (key.subject.kind === "operator") return true;
      return false;
    },

    // Learners

    async listLearners(scope, filter, page) {
      const orgIds = [...organizations.keys()]
        .filter((orgId) => sees(scope, orgId) && (filter.orgId === undefined || orgId === filter.orgId))
        .sort(compareKeys);
      const separator = page.after?.indexOf("\n") ?? -1;
      const afterOrg = page.after === undefined ? undefined : separator < 0 ? page.after : page.after.slice(0, separator);
      const afterId = page.after === undefined || separator < 0 ? undefined : page.after.slice(separator + 1);
      // One learner past the limit tells whether a next page exists.
      const found: Learner[] = [];
      walk: for (const orgId of orgIds) {
        if (afterOrg !== undefined && compareKeys(orgId, afterOrg) < 0) continue;
        for await (const user of usersOf(orgId, orgId === afterOrg ? afterId : undefined)) {
          const candidate = learnerOf(orgId, user);
          if (!matchesLearner(candidate, filter)) continue;
          found.push(candidate);
          if (found.length > page.limit) break walk;
        }
      }
      const items = found.slice(0, page.limit);
      const last = items[items.length - 1];
      return found.length > page.limit && last !== undefined ? { items, next: learnerPosition(last) } : { items };
    },

    // Campaigns

    async createCampaign(campaign) {
      if (campaigns.has(campaign.id)) throw new Error(`memoryAnalyticsStore: campaign ${campaign.id} exists`);
      campaigns.set(campaign.id, plainCopy(campaign));
    },

    async listCampaigns(scope, page, filter = {}) {
      const matching = sortedValues(campaigns).filter(
        (campaign) => sees(scope, campaign.orgId) && (filter.orgId === undefined || campaign.orgId === filter.orgId),
      );
      return keysetPage(matching, (campaign) => campaign.id, page, plainCopy);
    },

    async getCampaign(scope, id) {
      const campaign = campaigns.get(id);
      return campaign !== undefined && sees(scope, campaign.orgId) ? plainCopy(campaign) : undefined;
    },

    async putEnrolment(orgId, enrolment) {
      let byUser = enrolments.get(enrolment.campaignId);
      if (byUser === undefined) {
        byUser = new Map();
        enrolments.set(enrolment.campaignId, byUser);
      }
      byUser.set(enrolment.userId, { orgId, value: plainCopy(enrolment) });
    },

    async listEnrolments(campaignId, filter, asOf, page) {
      const campaign = campaigns.get(campaignId);
      const matching = sortedValues(enrolments.get(campaignId) ?? new Map<string, Owned<Enrolment>>()).filter(
        ({ value }) =>
          (filter.status === undefined || value.status === filter.status) &&
          (filter.overdue === undefined || isOverdue(value, campaign, asOf) === filter.overdue),
      );
      const selected = keysetPage(
        matching,
        (owned) => owned.value.userId,
        page,
        (owned) => owned,
      );
      const items = await Promise.all(selected.items.map((owned) => enrolmentView(owned.orgId, owned.value, asOf)));
      return selected.next === undefined ? { items } : { items, next: selected.next };
    },

    async getEnrolment(campaignId, userId, asOf) {
      const owned = enrolments.get(campaignId)?.get(userId);
      return owned === undefined ? undefined : enrolmentView(owned.orgId, owned.value, asOf);
    },

    async campaignSummary(campaignId, asOf) {
      const campaign = campaigns.get(campaignId);
      let enrolled = 0;
      let notStarted = 0;
      let inProgress = 0;
      let completed = 0;
      let overdue = 0;
      let scored = 0;
      let scoreSum = 0;
      for (const { value } of enrolments.get(campaignId)?.values() ?? []) {
        enrolled += 1;
        if (value.status === "not_started") notStarted += 1;
        else if (value.status === "in_progress") inProgress += 1;
        else completed += 1;
        if (isOverdue(value, campaign, asOf)) overdue += 1;
        if (value.score !== undefined) {
          scored += 1;
          scoreSum += value.score;
        }
      }
      return {
        campaignId,
        enrolled,
        notStarted,
        inProgress,
        completed,
        overdue,
        completionRate: summaryRate(completed, enrolled),
        averageScore: scored === 0 ? null : rounded(scoreSum / scored, 2),
        asOf,
      };
    },

    async campaignCompletionTimeline(campaignId) {
      const perDay = new Map<string, number>();
      let enrolled = 0;
      for (const { value } of enrolments.get(campaignId)?.values() ?? []) {
        enrolled += 1;
        // ISO 8601 in UTC: the first ten characters are the UTC day, as the SQL store reads it.
        if (value.status !== "completed" || value.completedAt === undefined) continue;
        const date = value.completedAt.slice(0, 10);
        perDay.set(date, (perDay.get(date) ?? 0) + 1);
      }
      const days = [...perDay.keys()].sort(compareKeys).map((date) => ({ date, completed: perDay.get(date) ?? 0 }));
      return { days, enrolled };
    },

    // Attack simulations

    async createSimulation(simulation) {
      if (simulations.has(simulation.id)) throw new Error(`memoryAnalyticsStore: simulation ${simulation.id} exists`);
      simulations.set(simulation.id, plainCopy(simulation));
    },

    async getSimulation(scope, id) {
      const simulation = simulations.get(id);
      return simulation !== undefined && sees(scope, simulation.orgId) ? plainCopy(simulation) : undefined;
    },

    async recordSimulationEvent(orgId, event) {
      let byUser = recipients.get(event.simulationId);
      if (byUser === undefined) {
        byUser = new Map();
        recipients.set(event.simulationId, byUser);
      }
      const current = byUser.get(event.userId)?.value ?? { simulationId: event.simulationId, userId: event.userId };
      const field = TIME_FIELD[event.type];
      const earlier = current[field];
      if (earlier !== undefined && Date.parse(earlier) <= Date.parse(event.at)) return;
      const next: Writable<SimulationRecipient> = { ...current };
      next[field] = event.at;
      byUser.set(event.userId, { orgId, value: next });
    },

    async listRecipients(simulationId, filter, page) {
      const did = (wanted: boolean | undefined, at: string | undefined): boolean => wanted === undefined || (at !== undefined) === wanted;
      const matching = sortedValues(recipients.get(simulationId) ?? new Map<string, Owned<SimulationRecipient>>()).filter(
        ({ value }) =>
          did(filter.opened, value.openedAt) &&
          did(filter.clicked, value.clickedAt) &&
          did(filter.submittedData, value.submittedDataAt) &&
          did(filter.reported, value.reportedAt),
      );
      const selected = keysetPage(
        matching,
        (owned) => owned.value.userId,
        page,
        (owned) => owned,
      );
      const items = await Promise.all(selected.items.map(recipientView));
      return selected.next === undefined ? { items } : { items, next: selected.next };
    },

    async getRecipient(simulationId, userId) {
      const owned = recipients.get(simulationId)?.get(userId);
      return owned === undefined ? undefined : recipientView(owned);
    },

    async simulationSummary(simulationId) {
      const counts = { sent: 0, delivered: 0, opened: 0, clicked: 0, submittedData: 0, reported: 0 };
      for (const { value } of recipients.get(simulationId)?.values() ?? []) {
        if (value.sentAt !== undefined) counts.sent += 1;
        if (value.deliveredAt !== undefined) counts.delivered += 1;
        if (value.openedAt !== undefined) counts.opened += 1;
        if (value.clickedAt !== undefined) counts.clicked += 1;
        if (value.submittedDataAt !== undefined) counts.submittedData += 1;
        if (value.reportedAt !== undefined) counts.reported += 1;
      }
      return { simulationId, ...counts, rates: simulationRates(counts) };
    },

    // Feedback

    async addFeedback(orgId, comment) {
      const key = subjectKey(comment.subject);
      let byId = feedback.get(key);
      if (byId === undefined) {
        byId = new Map();
        feedback.set(key, byId);
      }
      if (byId.has(comment.id)) throw new Error(`memoryAnalyticsStore: feedback ${comment.id} exists`);
      byId.set(comment.id, { orgId, value: plainCopy(comment) });
    },

    async listFeedback(subject, page) {
      const comments = sortedValues(feedback.get(subjectKey(subject)) ?? new Map<string, Owned<FeedbackComment>>());
      return keysetPage(
        comments,
        (owned) => owned.value.id,
        page,
        (owned) => plainCopy(owned.value),
      );
    },

    // Operations

    async createOperation(operation) {
      if (operations.has(operation.id)) throw new Error(`memoryAnalyticsStore: operation ${operation.id} exists`);
      operations.set(operation.id, plainCopy(operation));
    },

    async getOperation(scope, id) {
      const operation = operations.get(id);
      return operation !== undefined && sees(scope, operation.orgId) ? plainCopy(operation) : undefined;
    },

    ...memoryReportJobs(operations, reportRows),

    async *readReportRows(operationId) {
      for (let start = 0; ; start += REPORT_PAGE) {
        // Looked up on every page, so rows appended while reading are read too.
        const page = (reportRows.get(operationId) ?? []).slice(start, start + REPORT_PAGE);
        if (page.length === 0) return;
        yield page.map(plainCopy);
      }
    },
  };
}
