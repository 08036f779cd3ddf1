/**
 * `analyticsWriteAuditor`: hands every write of the analytics router to the host's `AuditSink`
 * (`onAudit`) with its outcome — the same sink, and the same contract, as the SCIM router's.
 */
import type { RequestHandler, Response } from "express";
import { auditedId, auditedTarget, handToSink, type AuditSink } from "scimkit/audit";
import type { AnalyticsAuditEntry, AnalyticsAuditOperation } from "./analytics-audit-entry.js";
import type { ApiKeyCaller } from "./api-keys.js";

/** What the trail says about the resource of one audited operation. */
interface AuditedWrite {
  readonly resourceType:
    | "Organization"
    | "AdminUser"
    | "Campaign"
    | "AttackSimulation"
    | "ScimToken"
    | "ApiKey"
    | "EventReceiver"
    | "EventSigningKey"
    | "SetupLink";
  /** Whether the path's `{id}` is an organization's, which is then the entry's `orgId`. */
  readonly pathIdIsOrganization?: true;
  /** The path parameter holding the resource's id, when it is not `{id}` (a token of the organization `{id}`). */
  readonly resourceIdParam?: string;
  /** The resource id a success answers with, when the path names none (a create). */
  readonly idInBody?: (body: Readonly<Record<string, unknown>>) => unknown;
  /** The organization a success answers with, when the path does not name it. */
  readonly orgInBody?: (body: Readonly<Record<string, unknown>>) => unknown;
  /** Whether the organization is the setup session's (a setup operation whose answer names none). */
  readonly orgOfCaller?: true;
  /** The outside address a success registered (`AuditEntry.target`). */
  readonly targetInBody?: (body: Readonly<Record<string, unknown>>) => unknown;
}

const field = (value: unknown, name: string): unknown =>
  typeof value === "object" && value !== null ? (value as Readonly<Record<string, unknown>>)[name] : undefined;

const reportOrganization = (body: Readonly<Record<string, unknown>>): unknown => field(body["operation"], "organizationId");

/** The audited operations: the writes of the interface, and the report starts (they run work on the data). */
const AUDITED: Readonly<Record<string, AuditedWrite>> = {
  createOrganization: {
    resourceType: "Organization",
    idInBody: (body) => field(body["organization"], "id"),
    orgInBody: (body) => field(body["organization"], "id"),
  },
  updateOrganization: { resourceType: "Organization", pathIdIsOrganization: true },
  deleteOrganization: { resourceType: "Organization", pathIdIsOrganization: true },
  inviteAdminUser: { resourceType: "AdminUser", idInBody: (body) => body["id"] },
  updateAdminUser: { resourceType: "AdminUser" },
  deleteAdminUser: { resourceType: "AdminUser" },
  acceptInvitation: { resourceType: "AdminUser", idInBody: (body) => field(body["adminUser"], "id") },
  createOrganizationReport: { resourceType: "Organization", pathIdIsOrganization: true },
  createCampaignReport: { resourceType: "Campaign", orgInBody: reportOrganization },
  createSimulationReport: { resourceType: "AttackSimulation", orgInBody: reportOrganization },
  // Only the token's id is read from the body: the secret beside it never reaches the trail.
  issueOrganizationToken: {
    resourceType: "ScimToken",
    pathIdIsOrganization: true,
    resourceIdParam: "tokenId",
    idInBody: (body) => field(body["token"], "id"),
  },
  rotateOrganizationToken: { resourceType: "ScimToken", pathIdIsOrganization: true, resourceIdParam: "tokenId" },
  revokeOrganizationToken: { resourceType: "ScimToken", pathIdIsOrganization: true, resourceIdParam: "tokenId" },
  confirmOrganizationTokenRotation: { resourceType: "ScimToken", pathIdIsOrganization: true, resourceIdParam: "tokenId" },
  rotateOperatorKey: { resourceType: "ApiKey" },
  // The receiver's id and URL are read from the body, which never carries its `Authorization` value anyway.
  addOrganizationEventReceiver: {
    resourceType: "EventReceiver",
    pathIdIsOrganization: true,
    resourceIdParam: "receiverId",
    idInBody: (body) => body["id"],
    targetInBody: (body) => body["url"],
  },
  removeOrganizationEventReceiver: { resourceType: "EventReceiver", pathIdIsOrganization: true, resourceIdParam: "receiverId" },
  // Issue 31: a link's creation, revocation and use, and what its page did.
  createSetupLink: { resourceType: "SetupLink", pathIdIsOrganization: true, idInBody: (body) => field(body["link"], "id") },
  revokeSetupLink: { resourceType: "SetupLink", pathIdIsOrganization: true, resourceIdParam: "linkId" },
  openSetup: { resourceType: "SetupLink", orgInBody: (body) => field(body["organization"], "id") },
  chooseSetupIdentityProvider: { resourceType: "SetupLink", orgInBody: (body) => field(body["organization"], "id") },
  revealSetupToken: { resourceType: "ScimToken", idInBody: (body) => body["id"], orgOfCaller: true },
  rotateSetupToken: { resourceType: "ScimToken", idInBody: (body) => body["id"], orgOfCaller: true },
  confirmSetupTokenRotation: { resourceType: "ScimToken", idInBody: (body) => field(body["token"], "id"), orgOfCaller: true },
  // Issue 30: the organization is in the body (a start) or the path (a rollback).
  moveOrganization: { resourceType: "Organization", idInBody: (body) => body["orgId"], orgInBody: (body) => body["orgId"] },
  cancelRegionMove: { resourceType: "Organization", pathIdIsOrganization: true },
  // The new key's id, from the body, which carries no key material anyway (a failure names no key).
  rotateOrganizationEventSigningKey: {
    resourceType: "EventSigningKey",
    pathIdIsOrganization: true,
    resourceIdParam: "kid",
    idInBody: (body) => body["kid"],
  },
};

/** The JSON body of a success, if `end` was given one. */
function bodyOf(chunk: unknown): Readonly<Record<string, unknown>> {
  if (typeof chunk !== "string" && !Buffer.isBuffer(chunk)) return {};
  try {
    const parsed: unknown = JSON.parse(chunk.toString());
    return typeof parsed === "object" && parsed !== null ? (parsed as Readonly<Record<string, unknown>>) : {};
  } catch {
    return {};
  }
}

/**
 * Marks `response` as answering a request that started nothing new — a report start given the
 * identical request's operation — so `analyticsWriteAuditor` records nothing for it: the trail
 * holds the start that created the operation, and a viewer polling a report must not write a row
 * per poll (issue 27).
 */
export function markRepeatedRequest(response: Response): void {
  (response.locals as { analyticsRepeated?: boolean }).analyticsRepeated = true;
}

/** Whether `operationId` is one `analyticsWriteAuditor` records. */
export function isAuditedOperation(operationId: string): boolean {
  return Object.hasOwn(AUDITED, operationId);
}

/**
 * The step, placed right after authentication, that records the outcome of `operationId` once
 * its response is complete but before it is sent: `response.end` is held until `sink.record`
 * has settled, so an acknowledged write has been handed to the sink. Every outcome after
 * authentication is recorded — success, 403, a refused body, 404, 409, 500, 503 — except a
 * failed `acceptInvitation`: that route is public, and a flood of wrong codes must not write to
 * the audit store (the `AuditSink` contract: nothing before authentication). A 401 or a 429 never
 * reaches this step. A sink that throws or rejects goes to `onError`; the response is sent anyway.
 */
export function analyticsWriteAuditor(
  operationId: string,
  sink: AuditSink,
  now: () => Date,
  onError: (error: unknown) => void,
): RequestHandler {
  const audited = AUDITED[operationId];
  if (audited === undefined) throw new Error(`scimkit analytics: ${operationId} is not an audited operation.`);
  const operation = `analytics.${operationId}` as AnalyticsAuditOperation;
  return (request, response, next) => {
    const caller = (response.locals as { analyticsCaller?: ApiKeyCaller }).analyticsCaller;
    // Read now: once an error leaves the route for the router's error handler, Express has
    // restored the router's own (empty) params.
    const params = request.params as Readonly<Record<string, unknown>>;
    const pathId = auditedId(params["id"]);
    const pathResourceId = audited.resourceIdParam === undefined ? pathId : auditedId(params[audited.resourceIdParam]);
    const end = response.end.bind(response) as (...args: unknown[]) => Response;
    let ended = false;
    response.end = ((...args: unknown[]) => {
      if (ended) return response;
      ended = true;
      const status = response.statusCode;
      const success = status >= 200 && status < 300;
      if (!success && caller === undefined) return end(...args);
      if (success && (response.locals as { analyticsRepeated?: boolean }).analyticsRepeated === true) return end(...args);
      const body = success ? bodyOf(args[0]) : {};
      // The operator key's rotation names the key that asked (the new one's id is not for the trail to hand out).
      const resourceId =
        pathResourceId ?? auditedId(audited.idInBody?.(body)) ?? (audited.resourceType === "ApiKey" ? caller?.keyId : undefined);
      const ofCaller = audited.orgOfCaller && caller?.kind === "setup" ? caller.link.orgId : undefined;
      const orgId = (audited.pathIdIsOrganization ? pathId : undefined) ?? auditedId(audited.orgInBody?.(body)) ?? ofCaller ?? "";
      const target = auditedTarget(audited.targetInBody?.(body));
      const entry: AnalyticsAuditEntry = {
        orgId,
        ...(caller === undefined ? {} : { tokenId: caller.keyId }),
        operation,
        resourceType: audited.resourceType,
        ...(resourceId === undefined ? {} : { resourceId }),
        ...(target === undefined ? {} : { target }),
        at: now().toISOString(),
        outcome: success ? "success" : "failure",
        status,
        via: "analytics",
      };
      void handToSink(sink, entry, onError)
        .then(() => end(...args))
        .catch(onError);
      return response;
    }) as Response["end"];
    next();
  };
}
