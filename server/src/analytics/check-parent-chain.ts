/**
 * The tree rules of a parent (issue 17), the same for every store: decided on the new parent's
 * chain of ancestors as the store read it inside its write.
 */
import { MAX_ORGANIZATION_DEPTH, organizationTreeError } from "./organization-tree-error.js";

/**
 * Throws an `OrganizationTreeError` when `parentId`, whose chain from itself up to its root is
 * `chain`, cannot take an organization whose subtree is `height` levels deep (1: no children):
 * it does not exist (empty chain), the result would exceed `MAX_ORGANIZATION_DEPTH`, or — for the
 * move of `movingId` — the parent is `movingId` itself or one of its descendants (a cycle).
 *
 * @example checkParentChain(["acme-emea", "acme"], "acme-emea", 1) // a new child at depth 3: fine
 */
export function checkParentChain(chain: readonly string[], parentId: string, height: number, movingId?: string): void {
  if (chain.length === 0) throw organizationTreeError({ kind: "unknown-parent", parentId });
  const at = movingId === undefined ? -1 : chain.indexOf(movingId);
  if (movingId !== undefined && at >= 0) throw organizationTreeError({ kind: "cycle", cycle: [movingId, ...chain.slice(0, at + 1)] });
  if (chain.length + height > MAX_ORGANIZATION_DEPTH) throw organizationTreeError({ kind: "depth", depth: chain.length + height });
}
