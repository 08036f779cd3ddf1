/**
 * Issuing a SCIM token to an organization that a concurrent delete may remove (issue 27, item
 * 12): the token store is not the organization's, so its write cannot wait for the delete —
 * instead the organization is read again once the token exists, and a token whose organization
 * went (or was replaced by a new one of the same id) is revoked before anyone sees it.
 */
import type { IssuedToken, IssueTokenOptions } from "scimkit";
import type { AnalyticsDependencies } from "./analytics-dependencies.js";
import type { Organization, OrganizationStore } from "./analytics-store.js";

/**
 * Issues a token to `organization` and returns it, or revokes it and returns `undefined` when
 * the organization no longer exists as read (same id, same `createdAt`) after the write. A delete
 * that commits after that read removes the token itself; one that committed before it is seen
 * here; a token written into the instant between (PostgreSQL: the delete's token statement ran
 * before the insert, its commit after the re-read) is refused by `activeOnly` while the id has no
 * organization and cleared by `createOrganization`'s `clearLeftovers` when the id comes back.
 *
 * @example const issued = await issueWhileExists(dependencies, organization, { label: "Entra" }); if (!issued) throw notFound(…)
 */
export async function issueWhileExists(
  { store, scimTokens }: Pick<AnalyticsDependencies<Pick<OrganizationStore, "getOrganization">>, "store" | "scimTokens">,
  organization: Organization,
  options: IssueTokenOptions,
): Promise<IssuedToken | undefined> {
  const issued = await scimTokens.issue(organization.id, options);
  const now = await store.getOrganization({ all: true }, organization.id);
  if (now !== undefined && now.createdAt === organization.createdAt) return issued;
  await scimTokens.revoke(organization.id, issued.record.id);
  return undefined;
}
