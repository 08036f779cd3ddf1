/**
 * The writes of the memory store: each checks everything first and then does its whole work
 * synchronously inside its promise, so it is atomic within the process and concurrent membership
 * deltas all take effect.
 */
import { deepEqual } from "../../scim/deep-equal.js";
import { changesMembers } from "../membership-plan.js";
import type { CreateRequest, DeleteRequest, UniqueKey, UpdateRequest, WriteResult } from "../resource-store.js";
import { uniquenessError } from "../store-errors.js";
import { assertMembersAllowed, assertVersion } from "../write-checks.js";
import { applyMembershipPlan } from "./apply-membership-plan.js";
import { storedResourceOf, type MemoryEntry } from "./memory-entry.js";
import { findEntry, type MemoryStoreState, membersOf, nextVersion, organizationFor, planIn, recorded } from "./memory-store-state.js";
import { findAnyEntry, tableOf, unlinkMember, type Organization } from "./organization.js";
import { findUniqueClash, indexEntry, unindexEntry } from "./resource-table.js";

const NO_MEMBERS: ReadonlySet<string> = new Set();

function copyKeys(keys: readonly UniqueKey[]): readonly UniqueKey[] {
  return keys.map(({ attribute, value }) => ({ attribute, value }));
}

/** Deleting a resource takes it out of every group that lists it (architecture §3), via the reverse index. */
function removeFromGroups(state: MemoryStoreState, organization: Organization, memberId: string, time: string): void {
  const groupIds = organization.groupsOfMember.get(memberId);
  if (!groupIds) return;
  organization.groupsOfMember.delete(memberId);
  for (const groupId of groupIds) {
    const group = findAnyEntry(organization, groupId);
    if (!group?.entry.members) continue;
    group.entry.members.delete(memberId);
    // A lost member is a write to the group: its ETag must change (RFC 7644 §3.14).
    group.table.entries.set(groupId, { ...group.entry, version: nextVersion(state), lastModified: time });
  }
}

/** `ResourceStore.create` over the state. */
export async function createInMemory(state: MemoryStoreState, request: CreateRequest): Promise<WriteResult> {
  const organization = organizationFor(state, request.orgId);
  // The core picks fresh UUIDs, so a taken id is a bug in the caller, not a client error.
  if (organization.typeOfId.has(request.id)) throw new Error(`memoryStore: id ${request.id} is already in use`);
  const table = tableOf(organization, request.resourceType);
  const clash = findUniqueClash(table, request.id, request.uniqueKeys);
  if (clash) throw uniquenessError(clash.attribute);
  const membership =
    request.members === undefined ? undefined : planIn(organization, NO_MEMBERS, { kind: "delta", add: request.members, remove: [] });
  if (membership) assertMembersAllowed(membership, request.unknownMembers);

  const entry: MemoryEntry = {
    id: request.id,
    version: nextVersion(state),
    created: request.now,
    lastModified: request.now,
    attributes: structuredClone(request.attributes),
    uniqueKeys: copyKeys(request.uniqueKeys),
    members: membership ? new Set() : undefined,
  };
  indexEntry(table, entry);
  organization.typeOfId.set(entry.id, request.resourceType);
  if (!membership || !entry.members)
    return recorded(state, request.orgId, request.events, { resource: storedResourceOf(entry, undefined) });
  // CreateRequest has no `members` flag: a create that gives members gets them back.
  applyMembershipPlan(organization, entry.id, entry.members, membership);
  return recorded(state, request.orgId, request.events, {
    resource: storedResourceOf(entry, membersOf(organization, entry, true)),
    membership,
  });
}

/** `ResourceStore.update` over the state. */
export async function updateInMemory(state: MemoryStoreState, request: UpdateRequest): Promise<WriteResult | undefined> {
  const found = findEntry(state, request.orgId, request.resourceType, request.id);
  if (!found) return undefined;
  const { organization, table, entry } = found;
  assertVersion(entry.version, request.expectedVersion);
  // Attributes deep-equal to the stored ones are no write: version and lastModified stay.
  const attributes = request.attributes !== undefined && !deepEqual(request.attributes, entry.attributes) ? request.attributes : undefined;
  const uniqueKeys = request.attributes === undefined ? entry.uniqueKeys : (request.uniqueKeys ?? []);
  const clash = findUniqueClash(table, entry.id, uniqueKeys);
  if (clash) throw uniquenessError(clash.attribute);
  const membership = request.membership === undefined ? undefined : planIn(organization, entry.members ?? NO_MEMBERS, request.membership);
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
    ...(changed ? { version: nextVersion(state), lastModified: request.now } : {}),
  };
  if (stored) {
    unindexEntry(table, entry);
    indexEntry(table, next);
  } else {
    table.entries.set(next.id, next);
  }
  const resource = storedResourceOf(next, membersOf(organization, next, request.members));
  return recorded(state, request.orgId, request.events, membership ? { resource, membership } : { resource });
}

/** `ResourceStore.delete` over the state. */
export async function deleteFromMemory(state: MemoryStoreState, request: DeleteRequest): Promise<boolean> {
  const found = findEntry(state, request.orgId, request.resourceType, request.id);
  if (!found) return false;
  const { organization, table, entry } = found;
  assertVersion(entry.version, request.expectedVersion);
  unindexEntry(table, entry);
  organization.typeOfId.delete(entry.id);
  if (entry.members) for (const memberId of entry.members) unlinkMember(organization, memberId, entry.id);
  removeFromGroups(state, organization, entry.id, request.now ?? state.now());
  return recorded(state, request.orgId, request.events, true);
}
