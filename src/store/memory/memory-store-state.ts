/**
 * What a memory store holds: its organizations (each with its tables, indexes and memberships),
 * the one version counter of the whole store, and its event outbox. `memoryStore` builds it once;
 * every operation is a function of it.
 */
import type { MembershipDelta } from "../../scim/patch/membership-delta.js";
import type { EventRecording } from "../event-outbox.js";
import { planMembership, type MembershipPlan } from "../membership-plan.js";
import type { MemberReader, MemoryEntry } from "./memory-entry.js";
import { type MemoryEventOutbox, memoryEventOutbox } from "./memory-event-outbox.js";
import { createOrganization, readMembersIn, type Organization } from "./organization.js";
import type { ResourceTable } from "./resource-table.js";

/** The state of one memory store. */
export interface MemoryStoreState {
  /** The clock of a delete without a time of its own. */
  readonly now: () => string;
  /** The organizations by id, created by their first write. */
  readonly organizations: Map<string, Organization>;
  /** The last version given: one counter for the whole store, so a version never repeats, not even across organizations. */
  lastVersion: number;
  /** The store's outbox. */
  readonly events: MemoryEventOutbox;
}

/** An empty store's state. */
export function memoryStoreState(now: () => string): MemoryStoreState {
  return { now, organizations: new Map(), lastVersion: 0, events: memoryEventOutbox(now) };
}

/** The next version of the store. */
export function nextVersion(state: MemoryStoreState): number {
  state.lastVersion += 1;
  return state.lastVersion;
}

/**
 * Records a write's events as its last step, in the same synchronous run as the write itself, and
 * reports them once the write is done: nothing can come between the change and its events.
 */
export function recorded<R>(state: MemoryStoreState, orgId: string, recording: EventRecording<R> | undefined, result: R): R {
  if (!recording) return result;
  const kept = state.events.record(orgId, recording.build(result), recording);
  recording.committed(kept);
  return result;
}

/** The organization `orgId`, created on first use: writes create its maps, reads never do, so probing ids allocates nothing. */
export function organizationFor(state: MemoryStoreState, orgId: string): Organization {
  let organization = state.organizations.get(orgId);
  if (!organization) {
    organization = createOrganization();
    state.organizations.set(orgId, organization);
  }
  return organization;
}

/** The entry of resource `id` with its organization and table; undefined when there is none. */
export function findEntry(
  state: MemoryStoreState,
  orgId: string,
  resourceType: string,
  id: string,
): { readonly organization: Organization; readonly table: ResourceTable; readonly entry: MemoryEntry } | undefined {
  const organization = state.organizations.get(orgId);
  const table = organization?.tables.get(resourceType);
  const entry = table?.entries.get(id);
  return organization && table && entry ? { organization, table, entry } : undefined;
}

/**
 * How to read the members of `entry` for a request that does (or does not) want them. Only a
 * resource created with `members` (its type has members, `CreateRequest.members`) or given
 * some since has a member list; any other carries no `members`.
 */
export function membersOf(organization: Organization, entry: MemoryEntry, wanted: boolean): MemberReader | undefined {
  return wanted && entry.members !== undefined ? readMembersIn(organization) : undefined;
}

/** What `delta` does to the members `current` of a group of `organization`. */
export function planIn(organization: Organization, current: ReadonlySet<string>, delta: MembershipDelta): MembershipPlan {
  return planMembership(current, delta, (id) => organization.typeOfId.has(id));
}
