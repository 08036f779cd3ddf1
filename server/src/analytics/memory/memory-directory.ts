/**
 * The directory reads of the memory analytics store (issue 18), through the `ResourceStore` API
 * as its learners are: users and groups are walked in id order a chunk at a time until a page is
 * full. The API has no member paging and no index of a member's groups, so a members page reads
 * the group with its member list, and a user's groups walk the organization's groups with theirs:
 * cheap in process memory, not over a database — there, use `sqlAnalyticsStore`.
 */
import { uniqueValue, type ResourceStore, type StoredResource } from "scimkit/store";
import type { AnalyticsDirectory, DirectoryGroup, DirectoryMember } from "../analytics-directory.js";
import type { Page, PageRequest } from "../analytics-store.js";
import { directoryUserOf, withoutSecrets } from "./directory-user-of.js";
import { compareKeys } from "./keyset-page.js";
import { walkResources } from "./walk-resources.js";

type Json = Readonly<Record<string, unknown>>;

function text(attributes: Json, name: string): string | undefined {
  const value = attributes[name];
  return typeof value === "string" ? value : undefined;
}

/** Whether `value` starts with `needle` (lower-cased) once lower-cased; false when absent. */
function startsWith(value: string | undefined, needle: string): boolean {
  return value?.toLowerCase().startsWith(needle) === true;
}

function userMatches(user: StoredResource, search: string): boolean {
  const attributes = user.attributes as Json;
  const userName = text(attributes, "userName");
  // As the SQL store compares the uniqueness key: NFC and lower-cased.
  if (userName !== undefined && uniqueValue(userName, false).startsWith(uniqueValue(search, false))) return true;
  const needle = search.toLowerCase();
  return startsWith(text(attributes, "externalId"), needle) || startsWith(text(attributes, "displayName"), needle);
}

function groupMatches(group: StoredResource, search: string): boolean {
  const attributes = group.attributes as Json;
  const needle = search.toLowerCase();
  return startsWith(text(attributes, "externalId"), needle) || startsWith(text(attributes, "displayName"), needle);
}

/** The directory members of the memory analytics store over `resources`. */
export function memoryDirectory(resources: ResourceStore): AnalyticsDirectory {
  const walk = (orgId: string, resourceType: string, afterId: string | undefined, members: boolean): AsyncGenerator<StoredResource> =>
    walkResources(resources, orgId, resourceType, afterId, members);

  /** The first `page.limit` of a walk that match, and whether one more does. */
  async function pageOfWalk<T>(
    resourcesInOrder: AsyncIterable<StoredResource>,
    matches: (resource: StoredResource) => boolean,
    page: PageRequest,
    render: (resource: StoredResource) => Promise<T> | T,
    keyOf: (item: T) => string,
  ): Promise<Page<T>> {
    const found: StoredResource[] = [];
    for await (const resource of resourcesInOrder) {
      if (!matches(resource)) continue;
      found.push(resource);
      if (found.length > page.limit) break;
    }
    const items = await Promise.all(found.slice(0, page.limit).map(render));
    const last = items[items.length - 1];
    return found.length > page.limit && last !== undefined ? { items, next: keyOf(last) } : { items };
  }

  return {
    async listDirectoryUsers(orgId, search, page) {
      return pageOfWalk(
        walk(orgId, "User", page.after, false),
        (user) => search === undefined || userMatches(user, search),
        page,
        directoryUserOf,
        (user) => user.id,
      );
    },

    async getDirectoryUser(orgId, userId) {
      const user = await resources.get({ orgId, resourceType: "User", id: userId, members: false });
      if (user === undefined) return undefined;
      const groups: { id: string; displayName?: string }[] = [];
      for await (const group of walk(orgId, "Group", undefined, true)) {
        if (!group.members?.some((member) => member.value === userId)) continue;
        const displayName = text(group.attributes as Json, "displayName");
        groups.push({ id: group.id, ...(displayName === undefined ? {} : { displayName }) });
      }
      return {
        id: user.id,
        attributes: withoutSecrets(user.attributes as Json),
        created: user.created,
        lastModified: user.lastModified,
        version: user.version,
        groups,
      };
    },

    async listDirectoryGroups(orgId, search, page) {
      return pageOfWalk(
        walk(orgId, "Group", page.after, false),
        (group) => search === undefined || groupMatches(group, search),
        page,
        async (group): Promise<DirectoryGroup> => {
          const withMembers = await resources.get({ orgId, resourceType: "Group", id: group.id, members: true });
          const attributes = group.attributes as Json;
          const displayName = text(attributes, "displayName");
          const externalId = text(attributes, "externalId");
          return {
            id: group.id,
            ...(displayName === undefined ? {} : { displayName }),
            ...(externalId === undefined ? {} : { externalId }),
            memberCount: withMembers?.members?.length ?? 0,
          };
        },
        (group) => group.id,
      );
    },

    async listGroupMembers(orgId, groupId, page) {
      const group = await resources.get({ orgId, resourceType: "Group", id: groupId, members: true });
      if (group === undefined) return undefined;
      const after = page.after;
      // Only the members past the position are sorted, and only a page of them kept.
      const ordered = (group.members ?? [])
        .filter((member) => after === undefined || compareKeys(member.value, after) > 0)
        .sort((a, b) => compareKeys(a.value, b.value));
      const slice = ordered.slice(0, page.limit + 1);
      const members = await Promise.all(
        slice.slice(0, page.limit).map(async (member): Promise<DirectoryMember> => {
          const resource = await resources.get({ orgId, resourceType: member.type, id: member.value, members: false });
          const attributes = (resource?.attributes ?? {}) as Json;
          const display = text(attributes, "displayName");
          const userName = member.type === "User" ? text(attributes, "userName") : undefined;
          return {
            id: member.value,
            type: member.type,
            ...(display === undefined ? {} : { display }),
            ...(userName === undefined ? {} : { userName }),
          };
        }),
      );
      const last = members[members.length - 1];
      return slice.length > page.limit && last !== undefined ? { items: members, next: last.id } : { items: members };
    },
  };
}
