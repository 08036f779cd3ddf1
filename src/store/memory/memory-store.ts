/**
 * The in-memory reference store: every `ResourceStore` rule (architecture §3) in plain maps, for tests,
 * demos and single-process services. Data lives as long as the process.
 */
import { preconditionFailedError, uniquenessError, unknownMembersError } from "../store-errors.js";
import { eventLoopSlice, mapInSlices } from "../../event-loop-slice.js";
import { deepEqual } from "../../scim/deep-equal.js";
import { matchesFilter } from "../../scim/filter/matches-filter.js";
import { compareListEntries, sortKeyOf, type ListEntry } from "../../scim/list/sort-key.js";
import type { MembershipDelta } from "../../scim/patch/membership-delta.js";
import { filterMentions, isMembersPath, isServerPath, mentionsMembers } from "../filter-mentions.js";
import { candidateIds } from "../index-candidates.js";
import type { StoreOptions } from "../store-options.js";
import type { ResourceStore, StoredResource, UniqueKey, UnknownMemberPolicy, WriteResult } from "../resource-store.js";
import { entryView, storedResourceOf, type MemberReader, type MemoryEntry } from "./memory-entry.js";
import { changesMembers, planMembership, type MembershipPlan } from "../membership-plan.js";
import { applyMembershipPlan } from "./apply-membership-plan.js";
import { createOrganization, findAnyEntry, readMembersIn, tableOf, unlinkMember, type Organization } from "./organization.js";
import { findUniqueClash, firstIdAfter, indexEntry, indexedIds, sortedIds, unindexEntry } from "./resource-table.js";
import { selectPage } from "./select-page.js";
import { sortedPrefix } from "../sorted-prefix.js";
import type { EventRecording } from "../event-outbox.js";
import { memoryEventOutbox } from "./memory-event-outbox.js";

/** Options of `memoryStore`: those every built-in store shares. */
export type MemoryStoreOptions = StoreOptions;

const NO_MEMBERS: ReadonlySet<string> = new Set();

/**
 * A scan looks at the clock every 32 entries (a few microseconds of filtering), and yields after
 * 2,048 entries at the latest: about a millisecond with the cheapest filters.
 */
const SLICE_CHECK_MASK = 31;
const SLICE_ENTRIES_MASK = 2047;

function assertVersion(version: number, expected: string | undefined): void {
  // RFC 7644 §3.14: a failed precondition is 412, and nothing is written.
  if (expected !== undefined && expected !== String(version)) throw preconditionFailedError();
}

function assertMembersAllowed(plan: MembershipPlan, policy: UnknownMemberPolicy): void {
  if (policy === "reject" && plan.ignored.length > 0) throw unknownMembersError(plan.ignored);
}

function copyKeys(keys: readonly UniqueKey[]): readonly UniqueKey[] {
  return keys.map(({ attribute, value }) => ({ attribute, value }));
}

interface Match extends ListEntry {
  readonly entry: MemoryEntry;
}

/**
 * A `ResourceStore` that keeps everything in memory, organization by organization. Equality
 * filters on `id`, `externalId` and unique attributes are index lookups; membership deltas touch
 * only the ids they name; every write does its whole work synchronously inside its promise, so
 * each write is atomic within the process and concurrent deltas all take effect. A filtered or
 * sorted list that must scan yields to the event loop every few milliseconds, so it sees each
 * resource whole, as it was at some moment of the call. It declares `sort` and `cursor`.
 *
 * @example
 * import { memoryStore } from "scimkit/memory";
 * const store = memoryStore();
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth }));
 */
export function memoryStore(options: MemoryStoreOptions = {}): ResourceStore {
  const now = options.now ?? (() => new Date().toISOString());
  const organizations = new Map<string, Organization>();
  // One counter for the whole store: a version never repeats, not even across organizations.
  let lastVersion = 0;
  const nextVersion = (): number => ++lastVersion;
  const events = memoryEventOutbox(now);

  /**
   * Records a write's events as its last step, in the same synchronous run as the write itself, and
   * reports them once the write is done: nothing can come between the change and its events.
   */
  const recorded = <R>(orgId: string, recording: EventRecording<R> | undefined, result: R): R => {
    if (!recording) return result;
    const kept = events.record(orgId, recording.build(result), recording);
    recording.committed(kept);
    return result;
  };

  // Writes create an organization's maps on first use; reads never do, so probing ids allocates nothing.
  const organizationFor = (orgId: string): Organization => {
    let organization = organizations.get(orgId);
    if (!organization) {
      organization = createOrganization();
      organizations.set(orgId, organization);
    }
    return organization;
  };

  const find = (orgId: string, resourceType: string, id: string) => {
    const organization = organizations.get(orgId);
    const table = organization?.tables.get(resourceType);
    const entry = table?.entries.get(id);
    return organization && table && entry ? { organization, table, entry } : undefined;
  };

  /**
   * How to read the members of `entry` for a request that does (or does not) want them. Only a
   * resource created with `members` (its type has members, `CreateRequest.members`) or given
   * some since has a member list; any other carries no `members`.
   */
  const membersOf = (organization: Organization, entry: MemoryEntry, wanted: boolean): MemberReader | undefined =>
    wanted && entry.members !== undefined ? readMembersIn(organization) : undefined;

  const plan = (organization: Organization, current: ReadonlySet<string>, delta: MembershipDelta): MembershipPlan =>
    planMembership(current, delta, (id) => organization.typeOfId.has(id));

  /** Deleting a resource takes it out of every group that lists it (architecture §3), via the reverse index. */
  const removeFromGroups = (organization: Organization, memberId: string, time: string): void => {
    const groupIds = organization.groupsOfMember.get(memberId);
    if (!groupIds) return;
    organization.groupsOfMember.delete(memberId);
    for (const groupId of groupIds) {
      const group = findAnyEntry(organization, groupId);
      if (!group?.entry.members) continue;
      group.entry.members.delete(memberId);
      // A lost member is a write to the group: its ETag must change (RFC 7644 §3.14).
      group.table.entries.set(groupId, { ...group.entry, version: nextVersion(), lastModified: time });
    }
  };

  return {
    capabilities: { sort: true, cursor: true },
    events,

    async create(request): Promise<WriteResult> {
      const organization = organizationFor(request.orgId);
      // The core picks fresh UUIDs, so a taken id is a bug in the caller, not a client error.
      if (organization.typeOfId.has(request.id)) throw new Error(`memoryStore: id ${request.id} is already in use`);
      const table = tableOf(organization, request.resourceType);
      const clash = findUniqueClash(table, request.id, request.uniqueKeys);
      if (clash) throw uniquenessError(clash.attribute);
      const membership =
        request.members === undefined ? undefined : plan(organization, NO_MEMBERS, { kind: "delta", add: request.members, remove: [] });
      if (membership) assertMembersAllowed(membership, request.unknownMembers);

      const entry: MemoryEntry = {
        id: request.id,
        version: nextVersion(),
        created: request.now,
        lastModified: request.now,
        attributes: structuredClone(request.attributes),
        uniqueKeys: copyKeys(request.uniqueKeys),
        members: membership ? new Set() : undefined,
      };
      indexEntry(table, entry);
      organization.typeOfId.set(entry.id, request.resourceType);
      if (!membership || !entry.members) return recorded(request.orgId, request.events, { resource: storedResourceOf(entry, undefined) });
      // CreateRequest has no `members` flag: a create that gives members gets them back.
      applyMembershipPlan(organization, entry.id, entry.members, membership);
      return recorded(request.orgId, request.events, {
        resource: storedResourceOf(entry, membersOf(organization, entry, true)),
        membership,
      });
    },

    async get(request) {
      const found = find(request.orgId, request.resourceType, request.id);
      if (!found) return undefined;
      return storedResourceOf(found.entry, membersOf(found.organization, found.entry, request.members));
    },

    async list(request) {
      const organization = organizations.get(request.orgId);
      const table = organization?.tables.get(request.resourceType);
      if (!organization || !table) return { totalResults: 0, resources: [] };
      const { filter, sort } = request;
      const order = sort?.order ?? "ascending";
      // Member lists are built for the view only when the answer depends on them.
      const needsMembers = (filter !== undefined && mentionsMembers(filter)) || (sort !== undefined && isMembersPath(sort.path));
      if (filter === undefined && sort === undefined) {
        // The list order is id order: page straight from the kept id order, no sort, no scan.
        const ordered = sortedIds(table);
        const count = Math.max(0, request.page.count);
        const start =
          request.page.kind === "index"
            ? Math.max(1, request.page.startIndex) - 1
            : request.page.after === undefined
              ? 0
              : firstIdAfter(ordered, request.page.after.id);
        // Page and total are taken before the first turn: the kept id order changes in place on writes.
        const pageIds = ordered.slice(start, start + count);
        const totalResults = ordered.length;
        const copies = await mapInSlices(pageIds, (id) => {
          const entry = table.entries.get(id);
          return entry ? storedResourceOf(entry, membersOf(organization, entry, request.members)) : undefined;
        });
        return { totalResults, resources: copies.filter((resource): resource is StoredResource => resource !== undefined) };
      }
      const ids = filter === undefined ? undefined : candidateIds(filter, (key) => indexedIds(table, key));
      const candidates = ids === undefined ? table.entries.values() : ids.flatMap((id) => table.entries.get(id) ?? []);

      // Most filters read attributes only; then the stored attributes serve as the view and no
      // object is built per resource, which is what a scan of 100,000 users costs otherwise.
      const needsView = (filter !== undefined && filterMentions(filter, isServerPath)) || (sort !== undefined && isServerPath(sort.path));
      const page = request.page;
      const after = page.kind === "cursor" ? page.after : undefined;
      // Only the entries up to the end of the page need an order: the rest are counted, not sorted.
      const count = Math.max(0, page.count);
      const limit = count === 0 ? 0 : page.kind === "index" ? Math.max(1, page.startIndex) - 1 + count : count;
      // A scan, sort and copy of 100,000 users takes tens of milliseconds in all: each gives the
      // event loop a turn whenever its slice is spent, so other requests are not stalled behind
      // it (architecture §4b: no request holds the loop for 50 ms). Records are replaced, never changed,
      // on write, so each one read is whole; the list reflects each resource as it was at some
      // moment of the call.
      const slice = eventLoopSlice();
      const matches: Match[] = [];
      let totalResults = 0;
      const scanned = ids === undefined ? [...candidates] : (candidates as MemoryEntry[]);
      for (let index = 0; index < scanned.length; index++) {
        if ((index & SLICE_CHECK_MASK) === SLICE_CHECK_MASK && ((index & SLICE_ENTRIES_MASK) === SLICE_ENTRIES_MASK || slice.due()))
          await slice.next();
        const entry = scanned[index] as MemoryEntry;
        const view = needsView ? entryView(request.resourceType, entry, membersOf(organization, entry, needsMembers)) : entry.attributes;
        if (filter !== undefined && !matchesFilter(view, filter)) continue;
        totalResults += 1;
        const match = { entry, id: entry.id, key: sort === undefined ? null : sortKeyOf(view, sort.path) };
        // A cursor page starts after its position: what lies before it is counted and dropped here.
        if (after === undefined || compareListEntries(match, after, order) > 0) matches.push(match);
      }
      const ordered = await sortedPrefix(matches, limit, (a, b) => compareListEntries(a, b, order), slice);
      const selected = selectPage(ordered, page, order);
      return {
        totalResults,
        resources: await mapInSlices(
          selected,
          (match) => storedResourceOf(match.entry, membersOf(organization, match.entry, request.members)),
          slice,
        ),
      };
    },

    async update(request) {
      const found = find(request.orgId, request.resourceType, request.id);
      if (!found) return undefined;
      const { organization, table, entry } = found;
      assertVersion(entry.version, request.expectedVersion);
      // Attributes deep-equal to the stored ones are no write: version and lastModified stay.
      const attributes =
        request.attributes !== undefined && !deepEqual(request.attributes, entry.attributes) ? request.attributes : undefined;
      const uniqueKeys = request.attributes === undefined ? entry.uniqueKeys : (request.uniqueKeys ?? []);
      const clash = findUniqueClash(table, entry.id, uniqueKeys);
      if (clash) throw uniquenessError(clash.attribute);
      const membership = request.membership === undefined ? undefined : plan(organization, entry.members ?? NO_MEMBERS, request.membership);
      if (membership) assertMembersAllowed(membership, request.unknownMembers);

      // Copied before anything changes, since a value structuredClone refuses throws here.
      const stored = attributes === undefined ? undefined : structuredClone(attributes);

      // Every check has passed: from here on the write cannot fail halfway.
      const members = entry.members ?? (membership ? new Set<string>() : undefined);
      if (membership && members) applyMembershipPlan(organization, entry.id, members, membership);
      const changed = stored !== undefined || (membership !== undefined && changesMembers(membership));
      const next: MemoryEntry = {
        ...entry,
        members,
        ...(stored ? { attributes: stored, uniqueKeys: copyKeys(uniqueKeys) } : {}),
        ...(changed ? { version: nextVersion(), lastModified: request.now } : {}),
      };
      if (stored) {
        unindexEntry(table, entry);
        indexEntry(table, next);
      } else {
        table.entries.set(next.id, next);
      }
      const resource = storedResourceOf(next, membersOf(organization, next, request.members));
      return recorded(request.orgId, request.events, membership ? { resource, membership } : { resource });
    },

    async delete(request) {
      const found = find(request.orgId, request.resourceType, request.id);
      if (!found) return false;
      const { organization, table, entry } = found;
      assertVersion(entry.version, request.expectedVersion);
      unindexEntry(table, entry);
      organization.typeOfId.delete(entry.id);
      if (entry.members) for (const memberId of entry.members) unlinkMember(organization, memberId, entry.id);
      removeFromGroups(organization, entry.id, request.now ?? now());
      return recorded(request.orgId, request.events, true);
    },

    async deleteOrganization(orgId) {
      // Every table, index and membership of a tenant hangs off its one Organization record.
      const organization = organizations.get(orgId);
      organizations.delete(orgId);
      events.forget(orgId);
      return organization?.typeOfId.size ?? 0;
    },
  };
}
