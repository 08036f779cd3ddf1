/** The SCIM base URL of an organization at a public address (spec §2.1). */

/** `{publicUrl}/scim/Organizations/{orgId}/v2`, the organization %-encoded into its path segment. */
export function scimBaseUrl(publicUrl: string, orgId: string): string {
  return `${publicUrl}/scim/Organizations/${encodeURIComponent(orgId)}/v2`;
}
