/**
 * Everything the memory store holds for one organization (tenant). Nothing in it refers to another
 * organization, which is how ids, filters, uniqueness and membership never cross tenants (architecture §3).
 */
import type { StoredMember } from "../resource-store.js";
import type { MemoryEntry } from "./memory-entry.js";
import { createResourceTable, type ResourceTable } from "./resource-table.js";

/** One organization's resources and the organization-wide indexes that membership needs. */
export interface Organization {
  /** One table per resource type id. */
  readonly tables: Map<string, ResourceTable>;
  /**
   * The resource type of every id in the organization. The core never reuses an id within an
   * organization, so this finds a member's type ("User" or "Group") in one lookup.
   */
  readonly typeOfId: Map<string, string>;
  /** The reverse membership index: member id → ids of the groups that list it, so a delete needs no scan. */
  readonly groupsOfMember: Map<string, Set<string>>;
}

export function createOrganization(): Organization {
  return { tables: new Map(), typeOfId: new Map(), groupsOfMember: new Map() };
}

/** The table of `resourceType`, created empty on first use. */
export function tableOf(organization: Organization, resourceType: string): ResourceTable {
  let table = organization.tables.get(resourceType);
  if (!table) {
    table = createResourceTable();
    organization.tables.set(resourceType, table);
  }
  return table;
}

/** The record with `id` in any table of the organization, with its table and type. */
export function findAnyEntry(
  organization: Organization,
  id: string,
): { readonly resourceType: string; readonly table: ResourceTable; readonly entry: MemoryEntry } | undefined {
  const resourceType = organization.typeOfId.get(id);
  const table = resourceType === undefined ? undefined : organization.tables.get(resourceType);
  const entry = table?.entries.get(id);
  return resourceType !== undefined && table && entry ? { resourceType, table, entry } : undefined;
}

/** Records that group `groupId` lists `memberId`. */
export function linkMember(organization: Organization, memberId: string, groupId: string): void {
  let groups = organization.groupsOfMember.get(memberId);
  if (!groups) {
    groups = new Set();
    organization.groupsOfMember.set(memberId, groups);
  }
  groups.add(groupId);
}

/** Records that group `groupId` no longer lists `memberId`. */
export function unlinkMember(organization: Organization, memberId: string, groupId: string): void {
  const groups = organization.groupsOfMember.get(memberId);
  groups?.delete(groupId);
  if (groups?.size === 0) organization.groupsOfMember.delete(memberId);
}

/** Reads member ids as `StoredMember`s, typed by what each id is in this organization. */
export function readMembersIn(organization: Organization): (ids: ReadonlySet<string> | undefined) => StoredMember[] {
  return (ids) => {
    const members: StoredMember[] = [];
    for (const value of ids ?? []) {
      const type = organization.typeOfId.get(value);
      // Deletes unlink members, so every id has a type; the guard only keeps the types honest.
      if (type !== undefined) members.push({ value, type });
    }
    return members;
  };
}
