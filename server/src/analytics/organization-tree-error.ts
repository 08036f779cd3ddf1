/**
 * Why an `AnalyticsStore` refuses a change of the organization tree (issue 17): a parent that
 * would make a cycle, a chain deeper than `MAX_ORGANIZATION_DEPTH`, a parent that does not exist,
 * or the delete of an organization that still has children without `subtree`. The store decides
 * inside its write transaction — only there do two racing changes see each other — and the HTTP
 * layer and the CLI each word the refusal for their own caller.
 */

/**
 * The most organizations a chain from a root down to a leaf may hold (a root alone is depth 1).
 * Eight covers company, region, country, division, department and more, while keeping every
 * recursive walk of the tree short and a runaway script from building a chain of thousands.
 */
export const MAX_ORGANIZATION_DEPTH = 8;

/** What was refused, with the facts a person needs to fix the request. */
export type OrganizationTreeRefusal =
  /** The parent is the organization itself or one of its descendants; `cycle` runs from the organization back to it. */
  | { readonly kind: "cycle"; readonly cycle: readonly string[] }
  /** The chain from the root to the deepest organization moved or created would hold `depth` organizations. */
  | { readonly kind: "depth"; readonly depth: number }
  /** No organization has the id given as the parent. */
  | { readonly kind: "unknown-parent"; readonly parentId: string }
  /** A delete without `subtree` of an organization with `children` children. */
  | { readonly kind: "has-children"; readonly children: number };

/** The error a store rejects with: `code: "organization-tree"` and the refusal. */
export type OrganizationTreeError = Error & { readonly code: "organization-tree"; readonly refusal: OrganizationTreeRefusal };

/**
 * The error for `refusal`, with a message in the store's words; callers render `refusal` in theirs.
 *
 * @example throw organizationTreeError({ kind: "depth", depth: 9 })
 */
export function organizationTreeError(refusal: OrganizationTreeRefusal): OrganizationTreeError {
  return Object.assign(new Error(describeTreeRefusal(refusal, "the subtree option")), { code: "organization-tree" as const, refusal });
}

/** Whether `value` is an error of `organizationTreeError`. */
export function isOrganizationTreeError(value: unknown): value is OrganizationTreeError {
  return value instanceof Error && (value as { readonly code?: unknown }).code === "organization-tree";
}

/**
 * `refusal` as a sentence a person can act on; `subtreeOption` names how the caller asks for a
 * subtree delete (`?subtree=true`, `--subtree`).
 *
 * @example describeTreeRefusal({ kind: "has-children", children: 2 }, "`?subtree=true`")
 */
export function describeTreeRefusal(refusal: OrganizationTreeRefusal, subtreeOption: string): string {
  switch (refusal.kind) {
    case "cycle":
      return `This parent would make a cycle (${refusal.cycle.join(" → ")}): an organization cannot be placed under itself or one of its descendants.`;
    case "depth":
      return `This would make a chain of ${refusal.depth} organizations from the root down; at most ${MAX_ORGANIZATION_DEPTH} are allowed. Choose a parent higher up.`;
    case "unknown-parent":
      return `There is no organization ${JSON.stringify(refusal.parentId)} to be the parent; create it first or choose an existing one.`;
    case "has-children": {
      const children = refusal.children === 1 ? "1 child organization" : `${refusal.children} child organizations`;
      return `The organization has ${children}: delete or move them first, or delete the whole subtree with ${subtreeOption}.`;
    }
  }
}
