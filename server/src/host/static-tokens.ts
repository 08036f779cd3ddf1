/**
 * The static SCIM tokens of an organization (`SCIMKIT_ORGS`) as the token API and `scimkit tokens
 * list` describe them: one entry per token, in the verifier's order, never the token itself.
 */
import type { StaticTokenDescription } from "@scimkit/server";
import type { HostSettings } from "./host-settings.js";

export function staticTokens(organizations: HostSettings["organizations"], orgId: string): readonly StaticTokenDescription[] {
  const configured = organizations !== undefined && Object.hasOwn(organizations, orgId) ? (organizations[orgId] ?? []) : [];
  return configured.map(() => ({ label: "SCIMKIT_ORGS" }));
}
