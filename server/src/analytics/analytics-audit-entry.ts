/**
 * What the analytics router hands the host's `AuditSink` (`createAnalyticsRouter`'s `onAudit`):
 * the same sink and trail as the SCIM router's, with operations of its own.
 */
import type { AuditEntry } from "scimkit/audit";

/**
 * A write of the analytics router: its OpenAPI `operationId` after `analytics.`, so one trail can
 * hold both interfaces without a clash.
 */
export type AnalyticsAuditOperation =
  | "analytics.createOrganization"
  | "analytics.updateOrganization"
  | "analytics.deleteOrganization"
  | "analytics.inviteAdminUser"
  | "analytics.updateAdminUser"
  | "analytics.deleteAdminUser"
  | "analytics.acceptInvitation"
  | "analytics.createOrganizationReport"
  | "analytics.createCampaignReport"
  | "analytics.createSimulationReport"
  | "analytics.issueOrganizationToken"
  | "analytics.rotateOrganizationToken"
  | "analytics.revokeOrganizationToken"
  | "analytics.confirmOrganizationTokenRotation"
  | "analytics.rotateOperatorKey"
  | "analytics.addOrganizationEventReceiver"
  | "analytics.removeOrganizationEventReceiver"
  | "analytics.rotateOrganizationEventSigningKey"
  | "analytics.moveOrganization"
  | "analytics.cancelRegionMove"
  | "analytics.createSetupLink"
  | "analytics.revokeSetupLink"
  | "analytics.openSetup"
  | "analytics.chooseSetupIdentityProvider"
  | "analytics.revealSetupToken"
  | "analytics.rotateSetupToken"
  | "analytics.confirmSetupTokenRotation";

/**
 * One analytics write and its outcome, `via: "analytics"`. `orgId` is the organization it
 * concerns, or `""` when it concerns none in particular (admin users and invitations span
 * organizations; a create or report that failed names none); `tokenId` is the API key's id,
 * absent on the public route (accepting an invitation); `resourceType` is `Organization`,
 * `AdminUser`, `Campaign`, `AttackSimulation`, `ScimToken` (with the token's id as `resourceId`,
 * never its secret), `ApiKey` (the operator key rotated, by the id of the key that asked) or
 * `EventReceiver` (an RFC 9967 receiver, by its id; never its `Authorization` value) or
 * `EventSigningKey` (an organization's SET signing key rotated, by the new key's `kid`; never key material).
 */
export type AnalyticsAuditEntry = AuditEntry<AnalyticsAuditOperation>;
