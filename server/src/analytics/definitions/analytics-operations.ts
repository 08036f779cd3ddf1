/**
 * Every operation of the analytics interface (spec §4.6, plus the few additions marked so) as
 * data. The router registers exactly these, in this order (a literal segment such as
 * `bulk-report` before the `{userId}` it would otherwise match), validates with their schemas,
 * and `openApiDocument` documents them.
 */
import { REGION_NAME_PATTERN } from "../regions-view.js";
import { IDENTITY_PROVIDERS } from "scimkit/request-log";
import { ref, WITHOUT_NUL_PATTERN } from "./analytics-schemas.js";
import type { JsonSchema, OperationDefinition, ParameterDefinition, ResponseDefinition } from "./operation-definition.js";

const JSON_TYPE = "application/json";
const CSV_TYPE = "text/csv";

const uuid: JsonSchema = { type: "string", format: "uuid" };

function idParameter(what: string): ParameterDefinition {
  return {
    description: `The ${what}'s id (UUID). An id that is unknown or outside the caller's organizations is 404 alike.`,
    schema: uuid,
  };
}

/** A SCIM id: chosen by the SCIM store, so any non-empty text up to 256 characters. */
const userIdParameter: ParameterDefinition = {
  description: "The learner's SCIM id.",
  schema: { type: "string", minLength: 1, maxLength: 256 },
};

/** A SCIM token's id: a UUID for issued tokens, `static-<n>` for static ones. */
const tokenIdParameter: ParameterDefinition = {
  description: "The token's id, as listed. An unknown id is 404.",
  schema: { type: "string", minLength: 1, maxLength: 256 },
};

const STATIC_TOKEN_CONFLICT =
  "The token is static: it comes from the host's environment (`SCIMKIT_ORGS`), so it is changed there and takes effect when the service restarts; issue a token here and remove the static one instead.";

/** An event receiver's id (a UUID v7, chosen by the receiver store). */
const receiverIdParameter: ParameterDefinition = {
  description: "The receiver's id, as listed. An unknown id is 404.",
  schema: { type: "string", format: "uuid" },
};

const EVENT_RECEIVERS_NOT_FOUND =
  "No such organization (or receiver) among those the caller may see, or the host delivers no security events (the `detail` says which).";

const EVENT_SIGNING_KEY_NOT_FOUND =
  "No such organization among those the caller may see, or the host delivers no security events (the `detail` says which).";

/** A SCIM id in the directory: chosen by the SCIM store, so any non-empty text up to 256 characters. */
function scimIdParameter(what: string): ParameterDefinition {
  return {
    description: `The ${what}'s SCIM id. An id the organization does not have is 404.`,
    schema: { type: "string", minLength: 1, maxLength: 256, pattern: WITHOUT_NUL_PATTERN },
  };
}

/** The directory's search: a case-insensitive prefix. */
const directorySearch: ParameterDefinition = {
  description:
    "Only those with an attribute that starts with this text, compared case-insensitively; `%`, `_` and `*` are literal. No NUL character.",
  schema: { type: "string", minLength: 1, maxLength: 256, pattern: WITHOUT_NUL_PATTERN },
};

/** `limit` and `cursor`, shared by every list. */
const paging: Readonly<Record<string, ParameterDefinition>> = {
  limit: { description: "Items per page, 1–1000. Default 50.", schema: { type: "integer", minimum: 1, maximum: 1000, default: 50 } },
  cursor: {
    description:
      "The `nextCursor` of the previous page. It is valid only with the same filters; leave it out (or empty) for the first page.",
    schema: { type: "string", maxLength: 4096 },
  },
};

const organizationFilter: ParameterDefinition = { description: "Only this organization.", schema: ref("OrganizationId") };
const subtreeFilter: ParameterDefinition = {
  description:
    "With `organizationId`: that organization and all its descendants that the caller may see (`true`); each item's `organizationId` says where it comes from. Default `false`.",
  schema: { type: "boolean" },
};

const organizationIdParameter: ParameterDefinition = {
  description: "The organization's id. An id that is unknown or outside the caller's organizations is 404 alike.",
  schema: ref("OrganizationId"),
};

function json(description: string, schema: JsonSchema, headers?: ResponseDefinition["headers"]): ResponseDefinition {
  return { description, content: { [JSON_TYPE]: schema }, ...(headers ? { headers } : {}) };
}

const locationHeader = (what: string): NonNullable<ResponseDefinition["headers"]> => ({
  Location: { description: `The absolute URL of ${what}.`, schema: { type: "string", format: "uri" } },
});

const noContent: ResponseDefinition = { description: "Done; no body." };

const reportAccepted: ResponseDefinition = json(
  "The report is being built: poll the operation at `Location` until it has `succeeded`, then download `links.result` (JSON) or `links.resultCsv` (CSV).",
  ref("OperationAccepted"),
  locationHeader("the operation"),
);

/** Issue 19: an identical request while one is queued or running gets it (202); one fresh and succeeded, 200. */
const reportResponses: Readonly<Record<number, ResponseDefinition>> = {
  200: json(
    "An identical request (same caller scope, report and filters) succeeded within the freshness window (`reports.freshnessMs`, default 5 minutes): its operation, whose `links.result` downloads the report now. `Location` names it too.",
    ref("OperationAccepted"),
    locationHeader("the operation"),
  ),
  202: reportAccepted,
};

const REPORT_LIMIT =
  "The key sent more requests than the host's rate limit allows (`rate-limited`), or the organization is at a report bound (`report-limit`): as many reports queued or running as it may have at once, or as many report rows kept as it may keep. Both with `Retry-After`.";

/** The operations, in registration order. */
export const analyticsOperations = [
  {
    operationId: "getOpenApiDocument",
    method: "get",
    path: "/openapi.json",
    tag: "Documentation",
    summary: "This interface as an OpenAPI 3.1 document",
    description: "Generated from the same definitions the service validates requests with. Needs no key.",
    access: "public",
    responses: { 200: json("The OpenAPI 3.1 document.", { type: "object" }) },
  },

  // Organizations
  {
    operationId: "listOrganizations",
    method: "get",
    path: "/organizations",
    tag: "Organizations",
    summary: "List organizations",
    description: "The operator sees every organization; an admin user sees its own.",
    access: "read",
    query: {
      status: { description: "Only organizations in this status.", schema: ref("OrganizationStatus") },
      parentId: { description: "Only the children of this organization (its direct descendants).", schema: ref("OrganizationId") },
      ...paging,
    },
    responses: { 200: json("A page of organizations.", ref("OrganizationList")) },
  },
  {
    operationId: "createOrganization",
    method: "post",
    path: "/organizations",
    tag: "Organizations",
    summary: "Create an organization",
    description:
      "Operator only. Creates the organization and issues its first SCIM token: the response carries the SCIM base address and the token, which is never shown again (spec §2.1, §5). `id` chooses the organization's id, the `{orgId}` of its SCIM URLs; without it the id is a new UUID.",
    access: "operator",
    body: { description: "The new organization.", schema: ref("OrganizationCreate") },
    responses: { 201: json("Created.", ref("OrganizationCreated"), locationHeader("the organization")) },
    problems: {
      400: "`parentId` names no organization.",
      409: "An organization with this `id` exists, or `parentId` would put it deeper than the depth bound.",
    },
  },
  {
    operationId: "getOrganization",
    method: "get",
    path: "/organizations/{id}",
    tag: "Organizations",
    summary: "Get an organization",
    description: "Addition to spec §4.6: the target of the `Location` of a created organization.",
    access: "read",
    pathParameters: { id: organizationIdParameter },
    responses: { 200: json("The organization.", ref("Organization")) },
  },
  {
    operationId: "updateOrganization",
    method: "patch",
    path: "/organizations/{id}",
    tag: "Organizations",
    summary: "Rename, suspend or reactivate an organization",
    description:
      "An admin (role `admin`) may rename its organizations; only the operator changes `status` and `parentId`. While an organization is `suspended`, its SCIM tokens are refused with 401. A new `parentId` moves the organization with its subtree.",
    access: "write",
    pathParameters: { id: organizationIdParameter },
    body: { description: "The fields to change.", schema: ref("OrganizationPatch") },
    responses: { 200: json("The changed organization.", ref("Organization")) },
    problems: {
      400: "`parentId` names no organization.",
      409: "`parentId` would make a cycle (the organization itself or one of its descendants) or a chain deeper than the depth bound.",
    },
  },
  {
    operationId: "deleteOrganization",
    method: "delete",
    path: "/organizations/{id}",
    tag: "Organizations",
    summary: "Delete an organization and everything of it",
    description:
      "Operator only. Removes the organization's SCIM users, groups and tokens and all its analytics data, and removes it from every admin user, in one transaction. An organization with children is refused (409) unless `subtree=true`: then it and all its descendants go, in that one transaction.",
    access: "operator",
    pathParameters: { id: organizationIdParameter },
    query: {
      subtree: { description: "Delete the organization's descendants with it (`true`); default `false`.", schema: { type: "boolean" } },
    },
    responses: { 204: noContent },
    problems: { 409: "The organization has children and `subtree=true` was not given." },
  },
  {
    operationId: "getOrganizationSummary",
    method: "get",
    path: "/organizations/{id}/summary",
    tag: "Organizations",
    summary: "An organization's figures, across its subtree on request",
    description:
      "Addition to spec §4.6 (issue 17): learners, enrolments and simulation recipients of the organization, counted now — with `subtree=true` also of each descendant the caller may see, one row each, aggregated in one query per kind of record — and their sums. `people=true` adds the learners counted once per person across the rows, matched by work e-mail.",
    access: "read",
    pathParameters: { id: organizationIdParameter },
    query: {
      subtree: { description: "Include every descendant the caller may see (`true`); default `false`.", schema: { type: "boolean" } },
      people: {
        description: "Add `people`: learners counted once per work e-mail (`true`); default `false`.",
        schema: { type: "boolean" },
      },
    },
    responses: { 200: json("The figures.", ref("OrganizationSummary")) },
  },
  {
    operationId: "createOrganizationReport",
    method: "get",
    path: "/organizations/{id}/users/bulk-report",
    tag: "Organizations",
    summary: "Start a report of every learner of an organization and its descendants",
    description:
      "Addition to spec §4.6 (issue 17): an asynchronous operation that writes one row per learner of the organization and of every descendant, by organization and id, each row naming its `organizationId`. 403 for an admin who does not see the whole subtree. Answers 202 at once.",
    access: "read",
    pathParameters: { id: organizationIdParameter },
    responses: reportResponses,
    problems: { 403: "The caller is an admin who does not see every organization of the subtree.", 429: REPORT_LIMIT },
  },

  // SCIM tokens (issue 14: addition to spec §4.6)
  {
    operationId: "listOrganizationTokens",
    method: "get",
    path: "/organizations/{id}/tokens",
    tag: "SCIM tokens",
    summary: "List an organization's SCIM tokens",
    description:
      'Addition to spec §4.6. Every token that authenticates SCIM requests to the organization: id, label, creation, last use, expiry and rotation times — never a secret or its digest. Static tokens (from the host\'s environment) are listed with `source: "static"`.',
    access: "read",
    pathParameters: { id: organizationIdParameter },
    responses: { 200: json("The tokens.", ref("TokenList")) },
  },
  {
    operationId: "issueOrganizationToken",
    method: "post",
    path: "/organizations/{id}/tokens",
    tag: "SCIM tokens",
    summary: "Issue another SCIM token",
    description:
      "Addition to spec §4.6. A new token beside the organization's others, e.g. for a handover to another identity provider. The secret is in this response only (`Cache-Control: no-store`). An `expiresAt` in the past is 400.",
    access: "write",
    pathParameters: { id: organizationIdParameter },
    body: { description: "Its label and expiry, both optional: send `{}` for neither.", schema: ref("TokenIssue") },
    responses: { 201: json("Issued.", ref("TokenIssued"), locationHeader("the token")) },
  },
  {
    operationId: "getOrganizationToken",
    method: "get",
    path: "/organizations/{id}/tokens/{tokenId}",
    tag: "SCIM tokens",
    summary: "Get one SCIM token",
    description: "Addition to spec §4.6: the target of the `Location` of an issued token. Never the secret.",
    access: "read",
    pathParameters: { id: organizationIdParameter, tokenId: tokenIdParameter },
    responses: { 200: json("The token.", ref("Token")) },
  },
  {
    operationId: "rotateOrganizationToken",
    method: "post",
    path: "/organizations/{id}/tokens/{tokenId}/rotate",
    tag: "SCIM tokens",
    summary: "Rotate a SCIM token's secret",
    description:
      "Addition to spec §4.6 (spec §5.4). A new secret under the same id and label, in this response only (`Cache-Control: no-store`). The old secret answers 401 from the next SCIM request on — or, with `graceSeconds`, once that many seconds have passed (at most 7 days), so the identity provider can be moved without failed requests. Rotating again ends an earlier grace period.",
    access: "write",
    pathParameters: { id: organizationIdParameter, tokenId: tokenIdParameter },
    body: {
      description: "The grace period and the new secret's expiry, both optional: send `{}` for neither.",
      schema: ref("TokenRotate"),
    },
    responses: { 200: json("Rotated.", ref("TokenIssued")) },
    problems: { 409: STATIC_TOKEN_CONFLICT },
  },
  {
    operationId: "confirmOrganizationTokenRotation",
    method: "post",
    path: "/organizations/{id}/tokens/{tokenId}/confirm-rotation",
    tag: "SCIM tokens",
    summary: "Confirm a rotation: the replaced secret stops now",
    description:
      "Addition to spec §5.4 (issue 31). Ends a rotation's grace period before its deadline, once the identity provider uses the new secret (its `lastUsedAt` says when it last did): the replaced secret answers 401 from the next SCIM request on. A token without a grace period is answered as it is.",
    access: "write",
    pathParameters: { id: organizationIdParameter, tokenId: tokenIdParameter },
    responses: { 200: json("Confirmed.", ref("Token")) },
    problems: { 409: STATIC_TOKEN_CONFLICT, 501: "The host's token store cannot end a grace period early." },
  },
  {
    operationId: "revokeOrganizationToken",
    method: "delete",
    path: "/organizations/{id}/tokens/{tokenId}",
    tag: "SCIM tokens",
    summary: "Revoke a SCIM token",
    description:
      "Addition to spec §4.6. Deletes the token: its secret (and a previous one still in its grace period) answers 401 from the next SCIM request on.",
    access: "write",
    pathParameters: { id: organizationIdParameter, tokenId: tokenIdParameter },
    responses: { 204: noContent },
    problems: { 409: STATIC_TOKEN_CONFLICT },
  },
  {
    operationId: "rotateOperatorKey",
    method: "post",
    path: "/operator-key/rotate",
    tag: "SCIM tokens",
    summary: "Rotate the operator key",
    description:
      "Addition to spec §4.6. Operator only. Replaces the operator key that makes the request with a new one, shown in this response only (`Cache-Control: no-store`); the old key answers 401 from the next request on. Other operator keys are left alone. A host that registers its operator key from the environment (`SCIMKIT_OPERATOR_KEY`) must be given the new key there, or it registers the old one again when it restarts.",
    access: "operator",
    responses: { 200: json("Rotated.", ref("OperatorKeyRotated")) },
  },

  // RFC 9967 event receivers (issue 20: addition to spec §4.6)
  {
    operationId: "listOrganizationEventReceivers",
    method: "get",
    path: "/organizations/{id}/event-receivers",
    tag: "Event receivers",
    summary: "List an organization's security event receivers",
    description:
      "Addition to spec §4.6 (issue 20). Every receiver of the organization's RFC 9967 Security Event Tokens, oldest first, with where its delivery stands: the last event it was given, failures in a row, the next attempt, the last failure, and how many SETs it accepted and rejected. Never the `Authorization` value it was registered with (`hasAuthorization` says whether there is one). 404 when the host delivers no security events.",
    access: "read",
    pathParameters: { id: organizationIdParameter },
    responses: { 200: json("The receivers.", ref("EventReceiverList")) },
    problems: { 404: EVENT_RECEIVERS_NOT_FOUND },
  },
  {
    operationId: "addOrganizationEventReceiver",
    method: "post",
    path: "/organizations/{id}/event-receivers",
    tag: "Event receivers",
    summary: "Register a security event receiver",
    description:
      'Addition to spec §4.6 (issue 20). A receiver of the organization\'s SETs: pushed to `url` (RFC 8935), or fetched by the receiver from the poll endpoint (RFC 8936, `delivery: "poll"`, which needs `authorization`). It gets the events recorded from now on, or every event still kept with `start: "beginning"`. Bad input is 400 naming the field; an organization has at most as many receivers as the service allows (default 20), 409 beyond.',
    access: "write",
    pathParameters: { id: organizationIdParameter },
    body: { description: "The receiver: only `url` is required.", schema: ref("EventReceiverInput") },
    responses: { 201: json("Registered.", ref("EventReceiver"), locationHeader("the receiver")) },
    problems: {
      404: EVENT_RECEIVERS_NOT_FOUND,
      409: "The organization has as many receivers as the service allows (the `detail` names the bound): remove one first.",
    },
  },
  {
    operationId: "getOrganizationEventReceiver",
    method: "get",
    path: "/organizations/{id}/event-receivers/{receiverId}",
    tag: "Event receivers",
    summary: "Get one security event receiver",
    description: "Addition to spec §4.6 (issue 20): one receiver and its delivery state. Never its `Authorization` value.",
    access: "read",
    pathParameters: { id: organizationIdParameter, receiverId: receiverIdParameter },
    responses: { 200: json("The receiver.", ref("EventReceiver")) },
    problems: { 404: EVENT_RECEIVERS_NOT_FOUND },
  },
  {
    operationId: "removeOrganizationEventReceiver",
    method: "delete",
    path: "/organizations/{id}/event-receivers/{receiverId}",
    tag: "Event receivers",
    summary: "Remove a security event receiver",
    description:
      "Addition to spec §4.6 (issue 20). The receiver gets nothing more: a push under way may still arrive, and a poll receiver's next poll is 401.",
    access: "write",
    pathParameters: { id: organizationIdParameter, receiverId: receiverIdParameter },
    responses: { 204: noContent },
    problems: { 404: EVENT_RECEIVERS_NOT_FOUND },
  },

  {
    operationId: "getOrganizationEventSigningKey",
    method: "get",
    path: "/organizations/{id}/event-signing-key",
    tag: "Event receivers",
    summary: "The key that signs an organization's security events",
    description:
      "Addition to spec §4.6 (issue 20). The `kid` of the key that signs the organization's SETs from now on (made on first use), where receivers fetch its JWKS, and that JWKS (RFC 7517 §5): the signing key first, then the keys it replaced that are still within their retention, newest first. Public keys only. 404 when the host delivers no security events.",
    access: "read",
    pathParameters: { id: organizationIdParameter },
    responses: { 200: json("The signing key and the JWKS.", ref("EventSigningKey")) },
    problems: { 404: EVENT_SIGNING_KEY_NOT_FOUND },
  },
  {
    operationId: "rotateOrganizationEventSigningKey",
    method: "post",
    path: "/organizations/{id}/event-signing-key/rotate",
    tag: "Event receivers",
    summary: "Rotate an organization's security event signing key",
    description:
      "Addition to spec §4.6 (issue 20). A new key signs the organization's SETs from now on (other host processes switch within a minute); the replaced key stays in the JWKS for the retention (7 days by default), so SETs signed before still verify. Answers the new key's `kid`, never key material. 404 when the host delivers no security events.",
    access: "write",
    pathParameters: { id: organizationIdParameter },
    responses: { 200: json("Rotated.", ref("EventSigningKeyRotated")) },
    problems: { 404: EVENT_SIGNING_KEY_NOT_FOUND },
  },

  // Setup links (issue 31): the customer's IT admin connects their own identity provider
  {
    operationId: "createSetupLink",
    method: "post",
    path: "/organizations/{id}/setup-links",
    tag: "Setup links",
    summary: "Create a one-time setup link for the customer's IT admin",
    description:
      "Addition to spec §5 (issue 31). A link to the organization's setup page, where its IT admin connects their identity provider: the base URL and the fields to fill in, the SCIM token revealed once, the first requests arriving live. The link carries no standing credential: its code opens the setup of this organization once, until the link expires (`expiresInMinutes`, 5 to 10,080, default 4,320: three days) or is revoked. The code is in the answer's `url` (after `#`, so it never reaches a server log) and is never shown again.",
    access: "write",
    pathParameters: { id: organizationIdParameter },
    body: { description: "The identity provider it is for, and how long it is valid; both optional.", schema: ref("SetupLinkCreate") },
    responses: { 201: json("Created.", ref("SetupLinkCreated")) },
  },
  {
    operationId: "listSetupLinks",
    method: "get",
    path: "/organizations/{id}/setup-links",
    tag: "Setup links",
    summary: "The organization's setup links",
    description:
      "Addition to spec §5 (issue 31). Every setup link of the organization, the most recent first: when it expires, whether it was used or revoked, the token its page revealed. Never a code.",
    access: "read",
    pathParameters: { id: organizationIdParameter },
    responses: { 200: json("The links.", ref("SetupLinkList")) },
  },
  {
    operationId: "revokeSetupLink",
    method: "delete",
    path: "/organizations/{id}/setup-links/{linkId}",
    tag: "Setup links",
    summary: "Revoke a setup link",
    description:
      "Addition to spec §5 (issue 31). The link opens nothing from now on, and a setup page opened with it stops working at its next request. The token it revealed stays valid: revoke that with the token operations.",
    access: "write",
    pathParameters: {
      id: organizationIdParameter,
      linkId: { description: "The link's id.", schema: { type: "string", minLength: 1, maxLength: 64 } },
    },
    responses: { 200: json("Revoked.", ref("SetupLink")) },
    problems: { 404: "No such organization among those the caller may see, or no such link of it." },
  },
  {
    operationId: "openSetup",
    method: "post",
    path: "/setup/session",
    tag: "Setup links",
    summary: "Open a setup link",
    description:
      "Addition to spec §5 (issue 31). Needs no key: the link's code is the credential, used once. Answers a setup session — the bearer credential of the setup operations below, for this organization only, until the link expires or is revoked — and the organization. A code used before, expired or revoked is 410 saying which; one the service never issued is 404.",
    access: "public",
    body: { description: "The link's code.", schema: ref("SetupOpen") },
    responses: { 201: json("Opened.", ref("SetupSession")) },
    problems: {
      404: "No setup link has this code.",
      410: "The link was used already, has expired, or was revoked (the `detail` says which): ask whoever sent it for a new one.",
    },
  },
  {
    operationId: "getSetup",
    method: "get",
    path: "/setup",
    tag: "Setup links",
    summary: "The setup page's state",
    description:
      "Addition to spec §5 (issue 31). With a setup session: the organization, the SCIM base URL its identity provider uses, the identity provider chosen, whether the token was revealed, and when the session ends.",
    access: "setup",
    responses: { 200: json("The setup.", ref("Setup")) },
  },
  {
    operationId: "chooseSetupIdentityProvider",
    method: "post",
    path: "/setup/identity-provider",
    tag: "Setup links",
    summary: "Choose the identity provider",
    description:
      "Addition to spec §5 (issue 31). With a setup session: records the identity provider and gives the organization that provider's compatibility profile (`other`: the generic one), from its identity provider's next request on.",
    access: "setup",
    body: { description: "The identity provider.", schema: ref("SetupIdentityProviderChoice") },
    responses: { 200: json("Chosen.", ref("Setup")) },
  },
  {
    operationId: "revealSetupToken",
    method: "post",
    path: "/setup/token",
    tag: "Setup links",
    summary: "Reveal the identity provider's SCIM token, once",
    description:
      "Addition to spec §5 (issue 31). With a setup session: issues the organization a SCIM token labelled after the link and answers it — the only time it is shown. A second call is 409: a lost token is rotated by whoever administers the organization.",
    access: "setup",
    responses: { 201: json("Issued.", ref("SetupToken")) },
    problems: { 409: "This link's page revealed a token already." },
  },
  {
    operationId: "rotateSetupToken",
    method: "post",
    path: "/setup/token/rotate",
    tag: "Setup links",
    summary: "Rotate the token without downtime",
    description:
      "Addition to spec §5.4 (issue 31). With a setup session whose page revealed a token: a new secret for it, shown here only, while the old one keeps working until the rotation is confirmed or 7 days pass — so the identity provider is moved to the new one without a failed request. `GET /setup` then says whether the identity provider has used the new one (`token.lastUsedAt`).",
    access: "setup",
    responses: { 200: json("Rotated.", ref("SetupToken")) },
    problems: { 409: "This link's page revealed no token yet." },
  },
  {
    operationId: "confirmSetupTokenRotation",
    method: "post",
    path: "/setup/token/confirm",
    tag: "Setup links",
    summary: "Confirm the rotation: the old token stops now",
    description:
      "Addition to spec §5.4 (issue 31). With a setup session: the replaced secret fails from the next request on; the new one goes on.",
    access: "setup",
    responses: { 200: json("Confirmed.", ref("Setup")) },
    problems: { 409: "This link's page revealed no token yet.", 501: "The host's token store cannot end a grace period early." },
  },
  {
    operationId: "getSetupHealth",
    method: "get",
    path: "/setup/health",
    tag: "Setup links",
    summary: "How the identity provider's provisioning is doing, for the setup page",
    description:
      "Addition to spec §5 (issue 31, point 4). With a setup session: what `GET /organizations/{id}/health` answers for the link's organization. 404 when the host keeps no provisioning log.",
    access: "setup",
    responses: { 200: json("The health.", ref("OrganizationHealth")) },
    problems: { 404: "The host keeps no provisioning log." },
  },
  {
    operationId: "listSetupRequests",
    method: "get",
    path: "/setup/requests",
    tag: "Setup links",
    summary: "The identity provider's latest requests, for the setup page",
    description:
      "Addition to spec §5 (issue 31). With a setup session: the organization's latest SCIM requests from its provisioning log, newest first, without bodies — what the page shows arriving live while the IT admin connects the identity provider. 404 when the host keeps no provisioning log.",
    access: "setup",
    query: { limit: { description: "At most this many (1 to 50, default 20).", schema: { type: "integer", minimum: 1, maximum: 50 } } },
    responses: { 200: json("The requests, newest first.", ref("SetupRequestList")) },
    problems: { 404: "The host keeps no provisioning log." },
  },

  {
    operationId: "getOrganizationHealth",
    method: "get",
    path: "/organizations/{id}/health",
    tag: "Provisioning log",
    summary: "How an organization's provisioning is doing",
    description:
      "Addition to spec §4.6 (issue 31, point 4). From this host's provisioning log and the organization's tokens: the last request and the last success, requests, failures and error rate over the last 24 hours and 7 days, the five most frequent failures, the identity provider of the latest request, the last use of a token. A week of more than 10,000 requests is summed from its newest 10,000 (`complete: false`). 404 when the host keeps no provisioning log.",
    access: "read",
    pathParameters: { id: organizationIdParameter },
    responses: { 200: json("The health.", ref("OrganizationHealth")) },
    problems: {
      404: "No such organization among those the caller may see, or the host keeps no provisioning log (the `detail` says which).",
    },
  },

  // Provisioning log (issue 18: addition to spec §4.6)
  {
    operationId: "listOrganizationRequestLog",
    method: "get",
    path: "/organizations/{id}/request-log",
    tag: "Provisioning log",
    summary: "What the identity provider sent, and what the service answered",
    description:
      "Addition to spec §4.6 (issue 18). The organization's provisioning log, newest first: one entry per SCIM request, with its `X-Request-Id`, status, SCIM error, identity provider, resource and both bodies with every secret replaced by `\"[redacted]\"` (cut at the host's size limit). Every filter narrows; `from` and `to` make the half-open range `from` ≤ `at` < `to`. 404 when the host keeps no provisioning log.",
    access: "read",
    pathParameters: { id: organizationIdParameter },
    query: {
      from: { description: "Only requests that arrived at or after this ISO 8601 time.", schema: { type: "string", format: "date-time" } },
      to: {
        description: "Only requests that arrived before this ISO 8601 time (later than `from`).",
        schema: { type: "string", format: "date-time" },
      },
      status: {
        description: "Only responses of this status class: `4xx` for every client error.",
        schema: { type: "string", enum: ["1xx", "2xx", "3xx", "4xx", "5xx"] },
      },
      resourceId: {
        description: "Only requests about this SCIM resource id (the path's, or the one a create assigned).",
        schema: { type: "string", minLength: 1, maxLength: 256 },
      },
      identityProvider: {
        description: "Only requests from this identity provider, as recognised from their `User-Agent`.",
        schema: { type: "string", enum: [...IDENTITY_PROVIDERS] },
      },
      requestId: {
        description: "Only the request with this `X-Request-Id` (a client may reuse its ids: then each of them).",
        schema: { type: "string", minLength: 1, maxLength: 128 },
      },
      ...paging,
    },
    responses: { 200: json("A page of entries, newest first.", ref("RequestLogList")) },
    problems: {
      404: "No such organization among those the caller may see, or the host keeps no provisioning log (the `detail` says which).",
    },
  },
  {
    operationId: "listUnauthenticatedRequestLog",
    method: "get",
    path: "/request-log/unauthenticated",
    tag: "Provisioning log",
    summary: "Requests that came without a valid SCIM token (operator only)",
    description:
      "Addition to spec §4.6 (issue 27). Anyone on the network can send SCIM requests without a valid token, naming any organization id, real or made up: they never enter an organization's provisioning log. The log keeps a sample of them apart — 60 a minute per host process, the newest 1,000 in all (for a day on a database) — without bodies, the path (query values other than SCIM parameters masked) cut at 512 characters and the `User-Agent` at 256; `dropped` counts those the sample left out since `droppedSince`. Operator only: the entries are outsiders' and may name any organization. 404 when the host keeps no provisioning log.",
    access: "operator",
    query: {
      organizationId: {
        description: "Only requests whose path claimed this organization id (which may not exist).",
        schema: { type: "string", minLength: 1, maxLength: 128, pattern: WITHOUT_NUL_PATTERN },
      },
      ...paging,
    },
    responses: {
      200: json("A page of the sample, newest first, and the count of what it left out.", ref("UnauthenticatedRequestLogList")),
    },
    problems: { 404: "The host keeps no provisioning log, or its log keeps no unauthenticated requests." },
  },

  // Regions
  {
    operationId: "getRegions",
    method: "get",
    path: "/regions",
    tag: "Regions",
    summary: "The regions of the service, and requests that reached the wrong one (operator only)",
    description:
      "Addition to spec §2.1 (issue 30). The region of the host answering, every region with its public base URL and, for the others, how many of their organizations this host knows and when it last read their directory; and, per organization homed elsewhere, the requests this host process answered 421 Misdirected Request since it started. 404 on a service of one region.",
    access: "operator",
    responses: { 200: json("The regions and the misdirected requests.", ref("Regions")) },
    problems: { 404: "The service runs in one region." },
  },

  {
    operationId: "listRegionOrganizations",
    method: "get",
    path: "/regions/organizations",
    tag: "Regions",
    summary: "The organizations homed in the other regions (operator only)",
    description:
      "Addition to spec §2.1 (issue 30). The organizations of the other regions as this host's copy of their directories has them — id, name, parent, home region, state, last change, and the base URL their identity providers use; never their data, which stays in their region — by id. This region's own are `GET /organizations`. 404 on a service of one region.",
    access: "operator",
    query: {
      region: { description: "Only the organizations homed in this region.", schema: { type: "string", pattern: REGION_NAME_PATTERN } },
      ...paging,
    },
    responses: { 200: json("A page of organizations, by id.", ref("RegionOrganizationList")) },
    problems: { 404: "The service runs in one region." },
  },

  {
    operationId: "getRegionsSummary",
    method: "get",
    path: "/regions/summary",
    tag: "Regions",
    summary: "Organizations, users and groups of every region, and their sum (operator only)",
    description:
      "Addition to spec §2.1 (issue 30). Each region's totals — organizations, SCIM users (of them active) and groups — counted by that region's host in its own database: this region's here, each other's asked of its host over the region channel at once (5 s each), which answers the totals only, never a row of an organization or a person. `total` sums the regions that answered; a region that did not is listed with `error` and `complete` is false. 404 on a service of one region.",
    access: "operator",
    responses: { 200: json("Every region's totals and their sum.", ref("RegionsSummary")) },
    problems: { 404: "The service runs in one region." },
  },

  {
    operationId: "moveOrganization",
    method: "post",
    path: "/regions/moves",
    tag: "Regions",
    summary: "Move an organization to another region (operator only)",
    description:
      "Addition to spec §2.1 (issue 30). Starts moving an organization homed in this host's region to another region, keeping every resource id, `externalId`, version (ETag), membership, token (the identity provider's token keeps working at the new base URL), audit entry and undelivered event. Answers at once; the move runs in the background (`GET /regions/moves/{id}`): the organization's writes are answered 503 with `Retry-After` for the cut-over, its reads are served, and from the switch on this host answers 421 naming the new base URL — the only thing the identity provider's admin changes. Its rows are then deleted here. A move takes one organization on its own (no parent, no children). 404 on a service of one region, or where this host cannot move organizations (the memory store, several workers).",
    access: "operator",
    body: { description: "The organization and the region to move it to.", schema: ref("RegionMoveRequest") },
    responses: { 202: json("Started.", ref("RegionMove")) },
    problems: {
      400: "`to` is not another region of the service.",
      404: "No such organization in this region, or this host moves no organizations (the `detail` says which).",
      409: "The organization is in a move already, or is part of a tree.",
    },
  },
  {
    operationId: "listRegionMoves",
    method: "get",
    path: "/regions/moves",
    tag: "Regions",
    summary: "The moves this host took part in (operator only)",
    description:
      "Addition to spec §2.1 (issue 30). Every move out of and into this host's region it knows, the most recent first: where each stands, and why its current step last failed (it is retried). 404 where this host moves no organizations.",
    access: "operator",
    responses: { 200: json("The moves.", ref("RegionMoveList")) },
    problems: { 404: "This host moves no organizations." },
  },
  {
    operationId: "getRegionMove",
    method: "get",
    path: "/regions/moves/{id}",
    tag: "Regions",
    summary: "Where the move of an organization stands (operator only)",
    description: "Addition to spec §2.1 (issue 30). The last move of the organization this host took part in.",
    access: "operator",
    pathParameters: { id: organizationIdParameter },
    responses: { 200: json("The move.", ref("RegionMove")) },
    problems: { 404: "No move of this organization here, or this host moves no organizations." },
  },
  {
    operationId: "cancelRegionMove",
    method: "delete",
    path: "/regions/moves/{id}",
    tag: "Regions",
    summary: "Roll back the move of an organization before its switch (operator only)",
    description:
      "Addition to spec §2.1 (issue 30). On the source's host, before the switch: the target drops what it copied and the organization's writes resume here. After the switch the move is finished instead (409).",
    access: "operator",
    pathParameters: { id: organizationIdParameter },
    responses: { 200: json("Rolling back.", ref("RegionMove")) },
    problems: {
      404: "The organization is not moving out of this region.",
      409: "The move is past its switch.",
    },
  },

  // Admin users
  {
    operationId: "listAdminUsers",
    method: "get",
    path: "/admin-users",
    tag: "Admin users",
    summary: "List admin users",
    description: "The operator sees every admin user; an admin user sees those sharing an organization with it.",
    access: "read",
    query: {
      status: { description: "Only admin users in this status.", schema: { type: "string", enum: ["invited", "active", "disabled"] } },
      role: { description: "Only admin users with this role.", schema: ref("AdminRole") },
      organizationId: { description: "Only admin users of this organization.", schema: ref("OrganizationId") },
      ...paging,
    },
    responses: { 200: json("A page of admin users.", ref("AdminUserList")) },
  },
  {
    operationId: "inviteAdminUser",
    method: "post",
    path: "/admin-users/invite",
    tag: "Admin users",
    summary: "Invite an admin user",
    description:
      "Creates an `invited` admin user and a single-use invitation code that expires (by default after 7 days). The service hands the code to its invitation hook (e.g. to e-mail it); it is never in a response. An admin may invite only for its own organizations. An e-mail that is an admin user's or a pending invitation's the caller may see is 409; one that belongs to an admin user the caller may not see is answered as any new invitation, and accepting it adds the organizations to that admin user's.",
    access: "write",
    body: { description: "Whom to invite.", schema: ref("AdminUserInvite") },
    responses: { 201: json("Invited.", ref("AdminUser"), locationHeader("the admin user")) },
    problems: {
      409: "The e-mail is already the caller's to see: an admin user's, or invited (delete the pending one to invite again).",
      501: "The service has no invitation hook configured, so it cannot deliver invitations.",
    },
  },
  {
    operationId: "getAdminUser",
    method: "get",
    path: "/admin-users/{id}",
    tag: "Admin users",
    summary: "Get an admin user",
    description: "As visible in the list.",
    access: "read",
    pathParameters: { id: idParameter("admin user") },
    responses: { 200: json("The admin user.", ref("AdminUser")) },
  },
  {
    operationId: "updateAdminUser",
    method: "patch",
    path: "/admin-users/{id}",
    tag: "Admin users",
    summary: "Change an admin user's role, organizations or status",
    description:
      "An admin may change admin users whose organizations are all its own, and give them only its own organizations. `status` moves an accepted admin user between `active` and `disabled`; an invited one becomes active only by accepting (409).",
    access: "write",
    pathParameters: { id: idParameter("admin user") },
    body: { description: "The fields to change.", schema: ref("AdminUserPatch") },
    responses: { 200: json("The changed admin user.", ref("AdminUser")) },
    problems: { 409: "The admin user is still invited: it becomes active by accepting its invitation." },
  },
  {
    operationId: "deleteAdminUser",
    method: "delete",
    path: "/admin-users/{id}",
    tag: "Admin users",
    summary: "Delete an admin user and its keys",
    description: "An admin may delete admin users whose organizations are all its own. A pending invitation is withdrawn with it.",
    access: "write",
    pathParameters: { id: idParameter("admin user") },
    responses: { 204: noContent },
  },
  {
    operationId: "acceptInvitation",
    method: "post",
    path: "/invitations/accept",
    tag: "Admin users",
    summary: "Accept an invitation",
    description:
      "Addition to spec §4.6. Needs no key: the invitation code is the credential. Activates the invited admin user, consumes the code and returns the user's API key, shown only here. An invitation to an e-mail that was already an admin user's instead adds its organizations to that admin user's, whose keys then see them (no new key). An unknown, used or expired code is 404.",
    access: "public",
    body: { description: "The invitation code.", schema: ref("InvitationAccept") },
    responses: { 200: json("Accepted.", ref("InvitationAccepted")) },
    problems: {
      404: "No pending invitation has this code: it was used, withdrawn, or has expired.",
      409: "The invitation cannot join the admin user with its e-mail: it offers the role viewer to an admin, or organizations whoever invited no longer looks after.",
    },
  },

  // Users
  {
    operationId: "listUsers",
    method: "get",
    path: "/users",
    tag: "Users",
    summary: "List learners",
    description: "The users provisioned through SCIM into the organizations the caller may see, by organization and id.",
    access: "read",
    query: {
      organizationId: organizationFilter,
      subtree: subtreeFilter,
      active: { description: "Only active (`true`) or inactive (`false`) users.", schema: { type: "boolean" } },
      department: {
        description: "Only users of this department (compared case-insensitively).",
        schema: { type: "string", minLength: 1, maxLength: 200, pattern: WITHOUT_NUL_PATTERN },
      },
      ...paging,
    },
    responses: { 200: json("A page of learners.", ref("UserList")) },
  },

  // Directory (issue 18: addition to spec §4.6)
  {
    operationId: "listDirectoryUsers",
    method: "get",
    path: "/organizations/{id}/directory/users",
    tag: "Directory",
    summary: "Search an organization's SCIM users",
    description:
      "Addition to spec §4.6 (issue 18). The users provisioned into the organization, by id. `search` keeps those whose `userName`, `displayName` or `externalId` starts with it, case-insensitively (a prefix, not a substring: `userName` is matched through its uniqueness index).",
    access: "read",
    pathParameters: { id: organizationIdParameter },
    query: { search: directorySearch, ...paging },
    responses: { 200: json("A page of users.", ref("DirectoryUserList")) },
  },
  {
    operationId: "getDirectoryUser",
    method: "get",
    path: "/organizations/{id}/directory/users/{userId}",
    tag: "Directory",
    summary: "One SCIM user, as stored, with its groups",
    description:
      "Addition to spec §4.6 (issue 18). The user's SCIM attributes as the identity provider last wrote them (never `password`), its `meta`, and the groups that list it as a direct member.",
    access: "read",
    pathParameters: { id: organizationIdParameter, userId: scimIdParameter("user") },
    responses: { 200: json("The user.", ref("DirectoryUserDetail")) },
  },
  {
    operationId: "listDirectoryGroups",
    method: "get",
    path: "/organizations/{id}/directory/groups",
    tag: "Directory",
    summary: "Search an organization's SCIM groups",
    description:
      "Addition to spec §4.6 (issue 18). The groups provisioned into the organization, by id, each with its number of direct members. `search` keeps those whose `displayName` or `externalId` starts with it, case-insensitively.",
    access: "read",
    pathParameters: { id: organizationIdParameter },
    query: { search: directorySearch, ...paging },
    responses: { 200: json("A page of groups.", ref("DirectoryGroupList")) },
  },
  {
    operationId: "listDirectoryGroupMembers",
    method: "get",
    path: "/organizations/{id}/directory/groups/{groupId}/members",
    tag: "Directory",
    summary: "A page of a group's members",
    description:
      "Addition to spec §4.6 (issue 18). The group's direct members (users and nested groups) by member id. Paged in the database: a page of a group of 100,000 members reads about a page of membership rows.",
    access: "read",
    pathParameters: { id: organizationIdParameter, groupId: scimIdParameter("group") },
    query: { ...paging },
    responses: { 200: json("A page of members.", ref("DirectoryMemberList")) },
  },

  // Campaigns
  {
    operationId: "listCampaigns",
    method: "get",
    path: "/campaigns",
    tag: "Training campaigns",
    summary: "List training campaigns",
    description: "Campaigns of the organizations the caller may see, by id.",
    access: "read",
    query: { organizationId: organizationFilter, subtree: subtreeFilter, ...paging },
    responses: { 200: json("A page of campaigns.", ref("CampaignList")) },
  },
  {
    operationId: "getCampaignSummary",
    method: "get",
    path: "/campaigns/{id}/summary",
    tag: "Training campaigns",
    summary: "A campaign's figures",
    description:
      "Enrolled, not started, in progress, completed and overdue learners, the completion rate and the average score, computed now.",
    access: "read",
    pathParameters: { id: idParameter("campaign") },
    responses: { 200: json("The figures.", ref("CampaignSummary")) },
  },
  {
    operationId: "createCampaignReport",
    method: "get",
    path: "/campaigns/{id}/users/bulk-report",
    tag: "Training campaigns",
    summary: "Start a report of every enrolment",
    description:
      "Starts an asynchronous operation that writes one row per enrolment (learner, status, progress, score, times, overdue). Answers 202 at once; the report may hold hundreds of thousands of rows and is streamed when downloaded.",
    access: "read",
    pathParameters: { id: idParameter("campaign") },
    responses: reportResponses,
    problems: { 429: REPORT_LIMIT },
  },
  {
    operationId: "listCampaignUsers",
    method: "get",
    path: "/campaigns/{id}/users",
    tag: "Training campaigns",
    summary: "A campaign's learners and their progress",
    description: "Enrolments by user id, each with its learner and whether it is overdue now.",
    access: "read",
    pathParameters: { id: idParameter("campaign") },
    query: {
      status: {
        description: "Only enrolments in this status.",
        schema: { type: "string", enum: ["not_started", "in_progress", "completed"] },
      },
      overdue: { description: "Only overdue (`true`) or not overdue (`false`) enrolments.", schema: { type: "boolean" } },
      ...paging,
    },
    responses: { 200: json("A page of enrolments.", ref("CampaignUserList")) },
  },
  {
    operationId: "getCampaignUser",
    method: "get",
    path: "/campaigns/{id}/users/{userId}",
    tag: "Training campaigns",
    summary: "One learner's progress in a campaign",
    description: "404 when the learner is not enrolled.",
    access: "read",
    pathParameters: { id: idParameter("campaign"), userId: userIdParameter },
    responses: { 200: json("The enrolment.", ref("CampaignUser")) },
  },
  {
    operationId: "listCampaignFeedback",
    method: "get",
    path: "/campaigns/{id}/feedback-comments",
    tag: "Training campaigns",
    summary: "Learners' comments on a campaign",
    description: "Oldest first.",
    access: "read",
    pathParameters: { id: idParameter("campaign") },
    query: { ...paging },
    responses: { 200: json("A page of comments.", ref("FeedbackCommentList")) },
  },
  {
    operationId: "getCampaignCompletionTimeline",
    method: "get",
    path: "/campaigns/{id}/completion-timeline",
    tag: "Training campaigns",
    summary: "A campaign's completions per day",
    description:
      "Addition to spec §4.6 (issue 18). Completed enrolments per UTC day of their completion time, oldest first, with the running total; days without a completion are left out. `enrolled` is the number of enrolments in all, the chart's ceiling.",
    access: "read",
    pathParameters: { id: idParameter("campaign") },
    responses: { 200: json("The timeline.", ref("CompletionTimeline")) },
  },

  // Attack simulations
  {
    operationId: "getSimulationSummary",
    method: "get",
    path: "/attack-simulations/{id}/summary",
    tag: "Attack simulations",
    summary: "A simulation's figures",
    description: "Recipients who were sent, delivered, opened, clicked, submitted data and reported, and each as a rate of those sent.",
    access: "read",
    pathParameters: { id: idParameter("attack simulation") },
    responses: { 200: json("The figures.", ref("SimulationSummary")) },
  },
  {
    operationId: "createSimulationReport",
    method: "get",
    path: "/attack-simulations/{id}/users/bulk-report",
    tag: "Attack simulations",
    summary: "Start a report of every recipient",
    description:
      "Starts an asynchronous operation that writes one row per recipient (learner and the time of each thing it did). Answers 202 at once.",
    access: "read",
    pathParameters: { id: idParameter("attack simulation") },
    responses: reportResponses,
    problems: { 429: REPORT_LIMIT },
  },
  {
    operationId: "listSimulationUsers",
    method: "get",
    path: "/attack-simulations/{id}/users",
    tag: "Attack simulations",
    summary: "A simulation's recipients and what each did",
    description:
      "Recipients by user id, each with its learner. Each filter keeps recipients that did (`true`) or did not (`false`) that thing.",
    access: "read",
    pathParameters: { id: idParameter("attack simulation") },
    query: {
      opened: { description: "Opened the lure.", schema: { type: "boolean" } },
      clicked: { description: "Clicked its link.", schema: { type: "boolean" } },
      submittedData: { description: "Submitted data.", schema: { type: "boolean" } },
      reported: { description: "Reported it.", schema: { type: "boolean" } },
      ...paging,
    },
    responses: { 200: json("A page of recipients.", ref("SimulationUserList")) },
  },
  {
    operationId: "getSimulationUser",
    method: "get",
    path: "/attack-simulations/{id}/users/{userId}",
    tag: "Attack simulations",
    summary: "What one recipient did",
    description: "404 when the learner was not a recipient.",
    access: "read",
    pathParameters: { id: idParameter("attack simulation"), userId: userIdParameter },
    responses: { 200: json("The recipient.", ref("SimulationUser")) },
  },
  {
    operationId: "listSimulationFeedback",
    method: "get",
    path: "/attack-simulations/{id}/feedback-comments",
    tag: "Attack simulations",
    summary: "Learners' comments on a simulation",
    description: "Oldest first.",
    access: "read",
    pathParameters: { id: idParameter("attack simulation") },
    query: { ...paging },
    responses: { 200: json("A page of comments.", ref("FeedbackCommentList")) },
  },

  // Operations
  {
    operationId: "getOperation",
    method: "get",
    path: "/operations/{id}",
    tag: "Operations",
    summary: "Poll an operation",
    description:
      "Its status and progress; once `succeeded`, `links.result` and `links.resultCsv` download the report. An operation lives `reports.ttlMs` (default 24 hours) from its request, then answers 404 like one that never was.",
    access: "read",
    pathParameters: { id: idParameter("operation") },
    responses: { 200: json("The operation.", ref("Operation")) },
  },
  {
    operationId: "getOperationResult",
    method: "get",
    path: "/operations/{id}/result",
    tag: "Operations",
    summary: "Download a report",
    description:
      "Addition to spec §4.6. Streams the report of a succeeded operation: a JSON array, or CSV with `format=csv` or `Accept: text/csv` (`format` wins). Before the operation has succeeded: 409.",
    access: "read",
    pathParameters: { id: idParameter("operation") },
    query: { format: { description: "`json` (default) or `csv`.", schema: { type: "string", enum: ["json", "csv"] } } },
    responses: {
      200: {
        description: "The report.",
        content: { [JSON_TYPE]: ref("ReportRows"), [CSV_TYPE]: ref("ReportCsv") },
        headers: { "Content-Disposition": { description: "`attachment` with a file name.", schema: { type: "string" } } },
      },
    },
    problems: { 409: "The operation has not succeeded (yet): poll it first." },
  },
] as const satisfies readonly OperationDefinition[];

/** The name of an operation, and of its handler. */
export type AnalyticsOperationId = (typeof analyticsOperations)[number]["operationId"];
