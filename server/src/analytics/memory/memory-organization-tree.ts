/**
 * The organization tree of the memory analytics store (issue 17): a chain up to the root, the
 * children of a parent and a subtree, over `MemoryAnalyticsState.organizations` and its index of
 * children.
 */
import type { Organization } from "../analytics-store.js";
import { MAX_ORGANIZATION_DEPTH } from "../organization-tree-error.js";
import { compareKeys } from "./keyset-page.js";
import type { MemoryAnalyticsState } from "./memory-analytics-state.js";

/** An organization of a subtree with its level below the subtree's top (1 for the top). */
export interface SubtreeMember {
  /** The organization id. */
  readonly id: string;
  /** 1 for the top of the subtree, 2 for its children, … */
  readonly level: number;
}

/** `id` and its ancestors, from `id` up to the root; empty when there is no `id`. */
export function chainOf(state: MemoryAnalyticsState, id: string): string[] {
  const chain: string[] = [];
  for (let at = state.organizations.get(id); at !== undefined && chain.length <= MAX_ORGANIZATION_DEPTH; ) {
    chain.push(at.id);
    at = at.parentId === undefined ? undefined : state.organizations.get(at.parentId);
  }
  return chain;
}

/** The children of `id`, from the index built on first use after a change of the tree (issue 27: no scan per level). */
export function childrenOf(state: MemoryAnalyticsState, id: string): readonly string[] {
  if (state.children === undefined) {
    const children = new Map<string, string[]>();
    for (const organization of state.organizations.values()) {
      if (organization.parentId === undefined) continue;
      const siblings = children.get(organization.parentId);
      if (siblings === undefined) children.set(organization.parentId, [organization.id]);
      else siblings.push(organization.id);
    }
    state.children = children;
  }
  return state.children.get(id) ?? [];
}

/** Stores `organization`: every write of the organizations goes through here, so the index of children is never stale. */
export function putOrganization(state: MemoryAnalyticsState, organization: Organization): void {
  state.organizations.set(organization.id, organization);
  state.children = undefined;
}

/** `id` and its descendants with their level below `id` (1 for `id`), in id order. */
export function subtreeOf(state: MemoryAnalyticsState, id: string): SubtreeMember[] {
  if (!state.organizations.has(id)) return [];
  const found: SubtreeMember[] = [{ id, level: 1 }];
  for (let index = 0; index < found.length; index += 1) {
    const parent = found[index] as SubtreeMember;
    for (const child of childrenOf(state, parent.id)) found.push({ id: child, level: parent.level + 1 });
  }
  return found.sort((a, b) => compareKeys(a.id, b.id));
}
