/**
 * Which organizations a read may return: every one (the operator), or an explicit list (an admin
 * user's organizations; possibly empty). Stores filter by it in the query, never afterwards.
 */
export type OrgScope = { readonly all: true } | { readonly orgIds: readonly string[] };
