/**
 * The organizations of the memory analytics store: list, read, create, change (a move checked
 * against the tree, a status cascading down it) and delete with everything of the organization.
 */
import type { Organization, OrganizationStore } from "../analytics-store.js";
import { checkParentChain } from "../check-parent-chain.js";
import { organizationTreeError } from "../organization-tree-error.js";
import { deleteAnalyticsRecords, deleteScimResources } from "./delete-organization-records.js";
import { compareKeys, keysetPage } from "./keyset-page.js";
import type { MemoryAnalyticsState } from "./memory-analytics-state.js";
import { chainOf, putOrganization, subtreeOf } from "./memory-organization-tree.js";
import { sees } from "./memory-scope.js";
import { memoryOrganizationTotals } from "./memory-organization-totals.js";
import { memoryTreeSummary } from "./memory-tree-summary.js";
import { plainCopy } from "./plain-copy.js";
import { sortedValues } from "./sorted-values.js";

/** The `OrganizationStore` of the memory analytics store over `state`. */
export function memoryOrganizations(state: MemoryAnalyticsState): OrganizationStore {
  const { organizations, tokens } = state;
  return {
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
      const found = new Set(rootIds.flatMap((id) => subtreeOf(state, id).map((member) => member.id)));
      return [...found].sort(compareKeys);
    },

    async createOrganization(organization, options = {}) {
      const { id } = organization;
      if (organizations.has(id)) throw new Error(`memoryAnalyticsStore: organization ${id} exists`);
      if (organization.parentId !== undefined) checkParentChain(chainOf(state, organization.parentId), organization.parentId, 1);
      // Each clearing call does its work when called (as in deleteOrganization), so nothing runs
      // between it and the new organization's appearance.
      const cleared =
        options.clearLeftovers === true ? [deleteAnalyticsRecords(state, id), deleteScimResources(state, id), tokens.revokeAll(id)] : [];
      putOrganization(state, plainCopy(organization));
      await Promise.all(cleared);
    },

    async updateOrganization(scope, id, change) {
      const current = organizations.get(id);
      if (current === undefined || !sees(scope, id)) return undefined;
      if (change.parentId !== undefined && change.parentId !== null && change.parentId !== current.parentId) {
        // Its subtree moves with it, so the deepest descendant must still fit under the bound.
        const depth = Math.max(...subtreeOf(state, id).map((member) => member.level));
        checkParentChain(chainOf(state, change.parentId), change.parentId, depth, id);
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
      putOrganization(state, next);
      const { status } = change;
      if (change.cascade === true && status !== undefined) {
        for (const member of subtreeOf(state, id)) {
          const descendant = organizations.get(member.id);
          if (descendant !== undefined && member.id !== id) putOrganization(state, { ...descendant, status, updatedAt: change.updatedAt });
        }
      }
      return plainCopy(next);
    },

    async deleteOrganization(scope, id, options = {}) {
      if (!organizations.has(id) || !sees(scope, id)) return false;
      const members = subtreeOf(state, id).map((member) => member.id);
      if (members.length > 1 && options.subtree !== true) {
        const children = [...organizations.values()].filter((organization) => organization.parentId === id).length;
        throw organizationTreeError({ kind: "has-children", children });
      }
      for (const member of members) deleteAnalyticsRecords(state, member);
      // Every call starts before any is awaited: on the memory stores each does its whole work
      // synchronously when called, so the subtree disappears everywhere at once.
      await Promise.all(members.flatMap((member) => [deleteScimResources(state, member), tokens.revokeAll(member)]));
      return true;
    },

    treeSummary: (scope, orgId, options) => memoryTreeSummary(state, scope, orgId, options),

    organizationTotals: (options = {}) => memoryOrganizationTotals(state, options.except),
  };
}
