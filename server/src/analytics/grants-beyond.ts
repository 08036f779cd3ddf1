/**
 * The rule that keeps an admin from granting more than it holds (issue 27, item 4), the same for
 * every store: decided inside the store's write, on the grantor's grants and the tree as they are
 * there, so an operator's move racing the grant is seen by one or the other.
 */
/** An admin user's grants: its organizations, and those of them granted with their subtree. */
export interface Grants {
  readonly organizationIds: readonly string[];
  readonly subtreeOrganizationIds: readonly string[];
}

/** One grant the grantor may not give: an organization, or an organization's subtree. */
export interface GrantBeyond {
  readonly kind: "organization" | "subtree";
  readonly orgId: string;
}

/**
 * The grants of `granted` that lie outside `grantor`'s own: an organization is within when it is
 * one of the grantor's organizations or lies below (or is) one of its subtree grants; a subtree is
 * within only when its root lies below (or is) one of the grantor's subtree grants — holding an
 * organization alone does not cover what an operator may later place under it. `chainOf(id)` is
 * `id` and its ancestors up to the root as the store reads them inside the write (empty: no such
 * organization, which is beyond any grantor).
 *
 * @example grantsBeyond({ organizationIds: ["globex"], subtreeOrganizationIds: [] }, chainOf, { organizationIds: ["globex"], subtreeOrganizationIds: ["globex"] }) // [{ kind: "subtree", orgId: "globex" }]
 */
export function grantsBeyond(grantor: Grants, chainOf: (id: string) => readonly string[], granted: Grants): GrantBeyond[] {
  const own = new Set(grantor.organizationIds);
  const roots = new Set(grantor.subtreeOrganizationIds);
  const belowRoot = (id: string): boolean => chainOf(id).some((member) => roots.has(member));
  const beyond: GrantBeyond[] = [];
  for (const orgId of granted.organizationIds) {
    if (!(own.has(orgId) && chainOf(orgId).length > 0) && !belowRoot(orgId)) beyond.push({ kind: "organization", orgId });
  }
  for (const orgId of granted.subtreeOrganizationIds) if (!belowRoot(orgId)) beyond.push({ kind: "subtree", orgId });
  return beyond;
}

/** The error a store rejects a grant beyond its grantor's scope with: `code: "grant-beyond-scope"`. */
export type GrantBeyondScopeError = Error & { readonly code: "grant-beyond-scope"; readonly beyond: readonly GrantBeyond[] };

/**
 * Throws a `GrantBeyondScopeError` when `beyond` is not empty.
 *
 * @example refuseGrantsBeyond(grantsBeyond(grantor, chainOf, granted))
 */
export function refuseGrantsBeyond(beyond: readonly GrantBeyond[]): void {
  if (beyond.length === 0) return;
  const named = beyond.map((grant) => (grant.kind === "subtree" ? `the subtree of ${grant.orgId}` : grant.orgId)).join(", ");
  throw Object.assign(new Error(`The grantor does not hold ${named}`), { code: "grant-beyond-scope" as const, beyond });
}

/** Whether `value` is a `GrantBeyondScopeError`. */
export function isGrantBeyondScopeError(value: unknown): value is GrantBeyondScopeError {
  return value instanceof Error && (value as { readonly code?: unknown }).code === "grant-beyond-scope";
}
