/**
 * The error an `AnalyticsStore` rejects with when a write clashes with a unique value (an admin
 * user's e-mail): `code: "conflict"`, which the HTTP layer renders as 409.
 */

/** An `Error` whose `code` is `"conflict"`, as `AnalyticsStore.createAdminUser` promises. */
export function analyticsConflictError(message: string): Error & { readonly code: "conflict" } {
  return Object.assign(new Error(message), { code: "conflict" as const });
}
