/**
 * The JSON Schemas (2020-12) of the analytics interface's bodies: the `components.schemas` of
 * its OpenAPI document and the schemas ajv validates with. Request bodies refuse unknown fields;
 * responses are closed too, so the tests catch a field leaking out undocumented — clients should
 * still ignore fields they do not know, since later versions may add some.
 */
import { REGION_NAME_PATTERN } from "../regions-view.js";
import { MAX_ROTATION_GRACE_SECONDS } from "scimkit";
import { SECURITY_EVENT_URIS } from "scimkit/events";
import { IDENTITY_PROVIDERS } from "scimkit/request-log";
import { COMPATIBILITY_PROFILE_NAMES } from "scimkit/core";
import { MAX_ORGANIZATION_DEPTH } from "../organization-tree-error.js";
import type { JsonSchema } from "./operation-definition.js";

/**
 * A reference to the component schema `name`. A name without a schema fails every validator's
 * compilation (ajv cannot resolve it), so a typo cannot reach a request.
 */
export function ref(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

const id: JsonSchema = { type: "string", format: "uuid", description: "A service-assigned id (UUID v7)." };
/**
 * Organizations created here get UUIDs, but a host may register organizations it already serves
 * under their SCIM path ids (`demo`, `acme`): any id the SCIM router accepts.
 */
const organizationId: JsonSchema = ref("OrganizationId");
const time: JsonSchema = { type: "string", format: "date-time", description: "An ISO 8601 time in UTC." };
const optionalTime = (description: string): JsonSchema => ({ type: "string", format: "date-time", description });
const rate = (description: string): JsonSchema => ({ type: "number", minimum: 0, maximum: 1, description });
const count = (description: string): JsonSchema => ({ type: "integer", minimum: 0, description });
/** Some character that is neither white space nor NUL (which PostgreSQL text cannot hold), and no NUL anywhere. */
export const NAME_PATTERN = "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$";
const name: JsonSchema = { type: "string", minLength: 1, maxLength: 200, pattern: NAME_PATTERN };
/** The `userId` of an enrolment, a recipient or a comment. */
const learnerId: JsonSchema = { type: "string", description: "The learner's SCIM id." };
/** The learner beside an enrolment or a recipient. */
const learner: JsonSchema = { ...ref("User"), description: "The learner; absent once it was deleted through SCIM." };

/**
 * An organization id chosen at creation: a SCIM path segment (spec §2.1) that needs no
 * %-encoding — RFC 3986 §2.3 unreserved characters, at most 64, not the dot segments `.` and
 * `..` (RFC 3986 §3.3), which a client or proxy would resolve away. Narrower than what
 * `isPossibleId` accepts, so every such id can be stored.
 */
export const CHOSEN_ORGANIZATION_ID_PATTERN = "^(?!\\.\\.?$)[A-Za-z0-9._~-]{1,64}$";

/**
 * Text without U+0000, for values that reach a database as text: PostgreSQL cannot hold the NUL
 * character in `text` and refuses a parameter that has one, so it is refused here, with a reason.
 */
export const WITHOUT_NUL_PATTERN = "^[^\\u0000]*$";

/** A SCIM token as the operator sees it: never the secret, never its digest. */
const scimToken: JsonSchema = {
  type: "object",
  description:
    "A SCIM bearer token of an organization (spec §5), without its secret. `source` says where it lives: `issued` tokens are managed here; `static` ones come from the host's environment (`SCIMKIT_ORGS`) and change only there.",
  required: ["id", "source"],
  additionalProperties: false,
  properties: {
    id: {
      type: "string",
      description: "The token's id: a UUID for issued tokens, `static-<n>` for the n-th static token of the organization.",
    },
    source: { type: "string", enum: ["issued", "static"] },
    label: { type: "string", description: "The operator's name for it." },
    prefix: { type: "string", description: "The first characters of the secret, to tell which one a configuration holds." },
    createdAt: { ...time, description: "When it was issued (kept by rotation)." },
    rotatedAt: optionalTime("When its secret was last rotated."),
    lastUsedAt: optionalTime("When its current secret last authenticated a SCIM request (to the minute)."),
    expiresAt: optionalTime("When it stops working; absent: it does not expire."),
    previousSecretValidUntil: optionalTime("Until when the secret replaced by the last rotation still works (its grace period)."),
  },
};

/** Why a delivery to a receiver failed (`DeliveryFailure`), as the operator reads it. */
const deliveryFailure: JsonSchema = {
  type: "object",
  description:
    "The receiver's last failure: a push it refused or that did not arrive (retried with backoff), or a SET it rejected for good (RFC 8935 §2.4, RFC 8936 `setErrs`).",
  required: ["at", "jti", "error"],
  additionalProperties: false,
  properties: {
    at: { ...time, description: "When it failed." },
    jti: { type: "string", description: "The `jti` of the SET that failed." },
    status: { type: "integer", description: "The receiver's HTTP status; absent for a network failure or a timeout." },
    error: {
      type: "string",
      description:
        "The receiver's RFC 8935 §2.4 `err` when it answered with a registered one (`invalid_key`, `authentication_failed`, …), else `http`, `redirect` (never followed), `timeout`, `network` or `address` (the service's address rules refused the receiver's host); a poll receiver's own `setErrs` code.",
    },
    description: {
      type: "string",
      description:
        "What failed, in the service's own words, never the receiver's answer (issue 27); a poll receiver's own `setErrs` description.",
    },
  },
};

/** An RFC 9967 receiver as the operator sees it: never the `Authorization` value it was registered with. */
const eventReceiver: JsonSchema = {
  type: "object",
  description:
    "A receiver of the organization's Security Event Tokens and where its delivery stands. The `Authorization` value it was registered with is never shown: `hasAuthorization` says whether it has one.",
  required: [
    "id",
    "organizationId",
    "url",
    "delivery",
    "events",
    "form",
    "audience",
    "hasAuthorization",
    "createdAt",
    "position",
    "attempts",
    "delivered",
    "rejected",
    "dropped",
  ],
  additionalProperties: false,
  properties: {
    id: { type: "string", format: "uuid", description: "The receiver's id (UUID v7)." },
    organizationId: { type: "string", description: "The organization whose events it receives." },
    url: {
      type: "string",
      description: "Where SETs are pushed (RFC 8935); for a poll receiver, the receiver's own address, for the operator only.",
    },
    delivery: { type: "string", enum: ["push", "poll"], description: "`push`: we POST each SET; `poll`: it fetches them (RFC 8936)." },
    events: {
      type: "array",
      items: { type: "string" },
      description: "The RFC 9967 event URIs it gets; empty: every one scimkit sends.",
    },
    form: { type: "string", enum: ["full", "notice"], description: "`full`: the resource; `notice`: what changed, without values." },
    audience: { type: "string", description: "The `aud` claim of its SETs." },
    hasAuthorization: { type: "boolean", description: "Whether an `Authorization` value was registered with it (never shown)." },
    label: { type: "string", description: "The operator's name for it." },
    createdAt: { ...time, description: "When it was registered." },
    pollUrl: {
      type: "string",
      format: "uri",
      description: "Poll receivers: where the receiver POSTs its polls (RFC 8936 §2.4), with its `Authorization` value.",
    },
    position: count("The sequence number of the organization's last event it has been given or skipped."),
    attempts: count("Failed attempts in a row at the event after `position`; 0 when the last one succeeded."),
    nextAttemptAt: optionalTime("When the next push is tried, after a failure (exponential backoff); absent: due now."),
    lastError: ref("DeliveryFailure"),
    lastDeliveredAt: optionalTime("When it last accepted a SET."),
    delivered: count("SETs it accepted."),
    rejected: count("SETs it rejected for good (skipped after the failure was kept)."),
    dropped: count(
      "Events it never got: it lagged beyond the backlog the service keeps (`SCIMKIT_EVENT_BACKLOG_EVENTS`, `SCIMKIT_EVENT_BACKLOG_DAYS`), and they were pruned; `lastError` says when.",
    ),
  },
};

/** Requests and failures over one window of an organization's health (issue 31). */
const healthWindow: JsonSchema = {
  type: "object",
  required: ["requests", "failures", "errorRate"],
  additionalProperties: false,
  properties: {
    requests: count("Requests."),
    failures: count("Answered 4xx or 5xx."),
    errorRate: { type: "number", minimum: 0, maximum: 1 },
  },
};

/** A `{ data }` list of every `item`, unpaged. */
function allOf(item: string, description?: string): JsonSchema {
  return {
    type: "object",
    ...(description === undefined ? {} : { description }),
    required: ["data"],
    additionalProperties: false,
    properties: { data: { type: "array", items: ref(item) } },
  };
}

/** A `{ data, nextCursor }` page of `item`. */
function listOf(item: string, description: string): JsonSchema {
  return {
    type: "object",
    description,
    required: ["data", "nextCursor"],
    additionalProperties: false,
    properties: {
      data: { type: "array", items: ref(item) },
      nextCursor: {
        type: ["string", "null"],
        description: "Pass as `cursor` (with the same filters) for the next page; null on the last page.",
      },
    },
  };
}

/** One entry of the provisioning log (`RequestLogEntry`, issue 18): never a secret, a token or a header but `User-Agent`. */
const requestLogEntry: JsonSchema = {
  type: "object",
  description:
    'One SCIM request and its answer. Bodies are JSON text with every secret (`password`, attributes returned never or write-only, anything named like a token or secret) replaced by `"[redacted]"`.',
  required: ["requestId", "orgId", "at", "method", "path", "status", "durationMs", "authenticated", "identityProvider"],
  additionalProperties: false,
  properties: {
    requestId: {
      type: "string",
      description: "The request's `X-Request-Id`: the client's own when it sent a sane one, else the service's.",
    },
    orgId: organizationId,
    at: { ...time, description: "When the request arrived." },
    method: { type: "string", description: "The HTTP method." },
    path: {
      type: "string",
      description: "Path and query: the SCIM query parameters as sent, every other parameter's value masked (`[redacted]`).",
    },
    status: { type: "integer", minimum: 100, maximum: 599, description: "The HTTP status of the response." },
    scimType: { type: "string", description: "The `scimType` of an error response (RFC 7644 §3.12)." },
    detail: { type: "string", description: "The `detail` of an error response (RFC 7644 §3.12)." },
    durationMs: { type: "number", minimum: 0, description: "Milliseconds from the request's arrival to the end of its response." },
    authenticated: {
      type: "boolean",
      description:
        "Whether the bearer token was verified for the organization: always true here, since requests without a valid token are kept apart (`GET /request-log/unauthenticated`, operator only).",
    },
    tokenId: {
      type: "string",
      description: "The id of the SCIM token that authenticated it (as the token API lists it); never the token.",
    },
    clientAddress: { type: "string", description: "The client's address." },
    userAgent: { type: "string", description: "The `User-Agent` header, at most 512 characters." },
    identityProvider: { type: "string", enum: [...IDENTITY_PROVIDERS], description: "The identity provider recognised from `userAgent`." },
    resourceType: { type: "string", description: "The resource type the path names (`User`, `Group`)." },
    resourceId: { type: "string", description: "The resource id the path names, or the id a create assigned." },
    bulkOperations: count("The number of operations of a `POST /Bulk` request."),
    requestBody: { type: "string", description: "The request body, redacted, as JSON text; absent without one and when unauthenticated." },
    requestBodyTruncated: { type: "boolean", description: "Whether `requestBody` was cut at the host's size limit." },
    requestBodyRefused: {
      type: "string",
      enum: ["invalidJson", "tooLarge", "unsupportedMediaType", "incomplete"],
      description:
        "Why the service refused the request's body before reading it: `invalidJson` (then `requestBody` is the text as sent, secrets masked, when they could be found), `tooLarge`, `unsupportedMediaType` or `incomplete` (no body kept).",
    },
    responseBody: { type: "string", description: "The response body, redacted; absent without one and when unauthenticated." },
    responseBodyTruncated: { type: "boolean", description: "Whether `responseBody` was cut at the host's size limit." },
  },
};

/** One request without a valid SCIM token (`UnauthenticatedRequestLogEntry`, issue 27): who knocked, never what they sent. */
const unauthenticatedRequestLogEntry: JsonSchema = {
  type: "object",
  description: "One request that came without a valid SCIM token. No bodies, no token id; each text cut.",
  required: ["requestId", "orgId", "at", "method", "path", "status", "durationMs", "identityProvider"],
  additionalProperties: false,
  properties: {
    requestId: { type: "string", description: "The request's `X-Request-Id`." },
    orgId: { type: "string", description: "The organization id the path claimed, which may not exist." },
    at: { ...time, description: "When the request arrived." },
    method: { type: "string", description: "The HTTP method." },
    path: { type: "string", description: "Path and query, values of other than SCIM parameters masked, at most 512 characters." },
    status: { type: "integer", minimum: 100, maximum: 599, description: "The HTTP status of the response." },
    scimType: { type: "string", description: "The `scimType` of an error response (RFC 7644 §3.12)." },
    detail: { type: "string", description: "The `detail` of an error response (RFC 7644 §3.12), at most 512 characters." },
    durationMs: { type: "number", minimum: 0, description: "Milliseconds from the request's arrival to the end of its response." },
    clientAddress: { type: "string", description: "The client's address." },
    userAgent: { type: "string", description: "The `User-Agent` header, at most 256 characters." },
    identityProvider: { type: "string", enum: [...IDENTITY_PROVIDERS], description: "The identity provider recognised from `userAgent`." },
  },
};

const unauthenticatedRequestLogPage = listOf(
  "UnauthenticatedRequestLogEntry",
  "A page of the requests without a valid SCIM token the log kept, newest first, and the count of those it left out.",
);
const unauthenticatedRequestLogList: JsonSchema = {
  ...unauthenticatedRequestLogPage,
  required: ["data", "nextCursor", "dropped", "droppedSince"],
  properties: {
    ...(unauthenticatedRequestLogPage["properties"] as JsonSchema),
    dropped: count("Requests without a valid token the sample left out since `droppedSince`, whatever organization they claimed."),
    droppedSince: { ...time, description: "Since when `dropped` counts: the host process's start, or the oldest time the log keeps." },
  },
};

const organization: JsonSchema = {
  type: "object",
  description: "An organization (tenant). Its id is the `{orgId}` of its SCIM base address.",
  required: ["id", "name", "status", "createdAt", "updatedAt"],
  additionalProperties: false,
  properties: {
    id: organizationId,
    name: { ...name, description: "Display name, 1–200 characters." },
    status: ref("OrganizationStatus"),
    compatibility: ref("CompatibilityProfile"),
    existingUsers: ref("ExistingUsers"),
    parentId: { ...organizationId, description: "The organization it belongs under (e.g. a division's company); absent for a root." },
    createdAt: time,
    updatedAt: time,
  },
};

const adminUser: JsonSchema = {
  type: "object",
  description: "A person who looks after some organizations through this interface.",
  required: ["id", "email", "role", "organizationIds", "status", "invitedAt", "updatedAt"],
  additionalProperties: false,
  properties: {
    id,
    email: { type: "string", format: "email", description: "Lower-cased; unique across the service." },
    role: ref("AdminRole"),
    organizationIds: { type: "array", items: organizationId, uniqueItems: true, description: "The organizations it may see, sorted." },
    subtreeOrganizationIds: {
      type: "array",
      items: organizationId,
      uniqueItems: true,
      description:
        "Those of `organizationIds` granted with their subtree, sorted: it also sees and manages every descendant of each, now and later, and nothing above or beside them. Absent: none.",
    },
    status: {
      type: "string",
      enum: ["invited", "active", "disabled"],
      description: "`invited` until the invitation is accepted; a `disabled` user's keys stop working.",
    },
    invitedAt: time,
    invitationExpiresAt: optionalTime("When the pending invitation expires; absent once accepted."),
    activatedAt: optionalTime("When the invitation was accepted; absent while invited."),
    updatedAt: time,
  },
};

const user: JsonSchema = {
  type: "object",
  description: "A learner: a User provisioned through SCIM into one organization.",
  required: ["id", "organizationId", "userName", "active", "createdAt", "updatedAt"],
  additionalProperties: false,
  properties: {
    id: { type: "string", description: "The SCIM resource id." },
    organizationId,
    userName: { type: "string", description: "SCIM `userName`." },
    displayName: { type: "string", description: "SCIM `displayName`, else the formatted or given and family name; absent when none." },
    email: { type: "string", description: "The primary e-mail, else the first work e-mail, else the first; absent when none." },
    active: { type: "boolean", description: "SCIM `active` (absent in SCIM counts as true)." },
    department: { type: "string", description: "The enterprise extension's `department`, when set." },
    createdAt: time,
    updatedAt: time,
  },
};

const campaign: JsonSchema = {
  type: "object",
  description: "A training campaign of one organization.",
  required: ["id", "organizationId", "name", "startsAt", "createdAt"],
  additionalProperties: false,
  properties: {
    id,
    organizationId,
    name: { type: "string" },
    description: { type: "string" },
    startsAt: time,
    dueAt: optionalTime("An unfinished enrolment past this time is overdue; absent: never overdue."),
    createdAt: time,
  },
};

/** The figures of one organization, or their sums, in an organization summary (issue 17). */
const figureProperties = {
  learners: count("Learners (SCIM users)."),
  activeLearners: count("Of them, active."),
  enrolled: count("Enrolments in its training campaigns."),
  completed: count("Of them, completed."),
  overdue: count("Of them, not completed and past the campaign's due time."),
  sent: count("Recipients of its attack simulations that were sent the lure."),
  clicked: count("Of them, clicked."),
  reported: count("Of them, reported it."),
} as const;
const figureNames = Object.keys(figureProperties);

const organizationSummary: JsonSchema = {
  type: "object",
  description:
    "The figures of an organization — and, with `subtree=true`, of each of its descendants the caller may see — aggregated by the store, each row naming its organization, with their sums.",
  required: ["organizationId", "organizations", "totals", "asOf"],
  additionalProperties: false,
  properties: {
    organizationId,
    organizations: {
      type: "array",
      description: "One row per organization, by id.",
      items: {
        type: "object",
        required: ["organizationId", ...figureNames],
        additionalProperties: false,
        properties: { organizationId, ...figureProperties },
      },
    },
    totals: { type: "object", required: figureNames, additionalProperties: false, properties: figureProperties },
    people: {
      type: "object",
      description:
        "With `people=true`: the learners counted as people — one person provisioned into several of these organizations counts once, matched by work e-mail (the first `emails` entry of type `work`, case-insensitively); a learner without a work e-mail counts alone.",
      required: ["learners", "activeLearners"],
      additionalProperties: false,
      properties: { learners: count("Distinct people."), activeLearners: count("Distinct people active in at least one of them.") },
    },
    asOf: time,
  },
};

const campaignSummary: JsonSchema = {
  type: "object",
  description: "A campaign's figures, computed when asked (`asOf`).",
  required: ["campaignId", "enrolled", "notStarted", "inProgress", "completed", "overdue", "completionRate", "averageScore", "asOf"],
  additionalProperties: false,
  properties: {
    campaignId: id,
    enrolled: count("Learners enrolled."),
    notStarted: count("Enrolled learners with no progress yet."),
    inProgress: count("Learners who started and have not completed."),
    completed: count("Learners who completed."),
    overdue: count("Learners who have not completed although the campaign is past its due time."),
    completionRate: rate("completed / enrolled, rounded to 4 decimals; 0 when nobody is enrolled."),
    averageScore: {
      type: ["number", "null"],
      minimum: 0,
      maximum: 100,
      description: "Mean score of the scored enrolments, 2 decimals; null when none is scored.",
    },
    asOf: time,
  },
};

const campaignUser: JsonSchema = {
  type: "object",
  description: "One learner's enrolment in a campaign.",
  required: ["campaignId", "userId", "status", "progressPercent", "enrolledAt", "updatedAt", "overdue"],
  additionalProperties: false,
  properties: {
    campaignId: id,
    userId: learnerId,
    user: learner,
    status: { type: "string", enum: ["not_started", "in_progress", "completed"] },
    progressPercent: { type: "integer", minimum: 0, maximum: 100 },
    score: { type: "number", minimum: 0, maximum: 100, description: "Absent until scored." },
    enrolledAt: time,
    startedAt: optionalTime("The first progress; absent while not started."),
    completedAt: optionalTime("Absent until completed."),
    updatedAt: time,
    overdue: { type: "boolean", description: "Not completed and past the campaign's due time, now." },
  },
};

const simulationRates: JsonSchema = {
  type: "object",
  description: "Each count divided by `sent`, rounded to 4 decimals; 0 when nothing was sent.",
  required: ["delivered", "opened", "clicked", "submittedData", "reported"],
  additionalProperties: false,
  properties: {
    delivered: rate("delivered / sent"),
    opened: rate("opened / sent"),
    clicked: rate("clicked / sent"),
    submittedData: rate("submittedData / sent"),
    reported: rate("reported / sent"),
  },
};

const simulationSummary: JsonSchema = {
  type: "object",
  description: "An attack simulation's figures: distinct recipients who did each thing, and the rates.",
  required: ["simulationId", "sent", "delivered", "opened", "clicked", "submittedData", "reported", "rates"],
  additionalProperties: false,
  properties: {
    simulationId: id,
    sent: count("Recipients the lure was sent to."),
    delivered: count("Recipients it was delivered to."),
    opened: count("Recipients who opened it."),
    clicked: count("Recipients who clicked its link."),
    submittedData: count("Recipients who submitted data on the landing page."),
    reported: count("Recipients who reported it as phishing."),
    rates: simulationRates,
  },
};

const simulationUser: JsonSchema = {
  type: "object",
  description: "One recipient of a simulation: the first time it did each thing; absent when it did not.",
  required: ["simulationId", "userId"],
  additionalProperties: false,
  properties: {
    simulationId: id,
    userId: learnerId,
    user: learner,
    sentAt: optionalTime("When the lure was sent."),
    deliveredAt: optionalTime("When it was delivered."),
    openedAt: optionalTime("When it was first opened."),
    clickedAt: optionalTime("When its link was first clicked."),
    submittedDataAt: optionalTime("When data was first submitted."),
    reportedAt: optionalTime("When it was first reported."),
  },
};

const feedbackComment: JsonSchema = {
  type: "object",
  description: "A learner's comment on a campaign or a simulation.",
  required: ["id", "subject", "userId", "comment", "createdAt"],
  additionalProperties: false,
  properties: {
    id,
    subject: {
      type: "object",
      required: ["kind", "id"],
      additionalProperties: false,
      properties: { kind: { type: "string", enum: ["campaign", "simulation"] }, id },
    },
    userId: learnerId,
    rating: { type: "integer", minimum: 1, maximum: 5, description: "1–5, when given." },
    comment: { type: "string", minLength: 1, maxLength: 4000 },
    createdAt: time,
  },
};

const operation: JsonSchema = {
  type: "object",
  description: "A long-running request, e.g. a bulk report. Poll it until `status` is `succeeded` or `failed`.",
  required: ["id", "kind", "organizationId", "subjectId", "status", "progress", "createdAt", "links"],
  additionalProperties: false,
  properties: {
    id,
    kind: { type: "string", description: "`campaign-users-report`, `simulation-users-report` or `organization-users-report`." },
    organizationId,
    subjectId: {
      anyOf: [id, organizationId],
      description: "The campaign or simulation it reports on (a UUID), or the organization of an `organization-users-report`.",
    },
    status: { type: "string", enum: ["queued", "running", "succeeded", "failed"] },
    progress: {
      type: "object",
      required: ["done"],
      additionalProperties: false,
      properties: {
        done: count("Rows written so far."),
        total: count("Rows in all, once known."),
      },
    },
    createdAt: time,
    startedAt: optionalTime("When work began."),
    finishedAt: optionalTime("When it succeeded or failed."),
    error: { type: "string", description: "Why it failed, for a person; only when `failed`." },
    links: {
      type: "object",
      required: ["self"],
      additionalProperties: false,
      properties: {
        self: { type: "string", format: "uri", description: "Where to poll it." },
        result: { type: "string", format: "uri", description: "The report as a JSON array; only once `succeeded`." },
        resultCsv: { type: "string", format: "uri", description: "The report as CSV; only once `succeeded`." },
      },
    },
  },
};

/** The SCIM id of a user or group in the directory: the SCIM store chose it. */
const scimId: JsonSchema = { type: "string", description: "The SCIM resource id." };

const directoryUser: JsonSchema = {
  type: "object",
  description: "A SCIM user of the organization, with the attributes a person recognises it by.",
  required: ["id", "userName", "active"],
  additionalProperties: false,
  properties: {
    id: scimId,
    userName: { type: "string", description: "SCIM `userName`." },
    displayName: { type: "string", description: "SCIM `displayName`, when set." },
    externalId: { type: "string", description: "SCIM `externalId`: the identity provider's id for it, when set." },
    active: { type: "boolean", description: "SCIM `active` (absent in SCIM counts as true)." },
    name: { type: "object", description: "SCIM `name`, as stored, when set." },
    emails: { type: "array", description: "SCIM `emails`, as stored, when set." },
  },
};

const directoryUserDetail: JsonSchema = {
  type: "object",
  description:
    "A SCIM user as stored: every attribute the identity provider wrote (open-ended, as its schemas are; never `password`), `id`, `meta`, and `groups`, the groups that list it as a direct member.",
  required: ["id", "userName", "meta", "groups"],
  properties: {
    id: scimId,
    userName: { type: "string" },
    meta: {
      type: "object",
      required: ["resourceType", "created", "lastModified", "version"],
      additionalProperties: false,
      properties: {
        resourceType: { type: "string", enum: ["User"] },
        created: time,
        lastModified: time,
        version: { type: "string", description: "The SCIM `meta.version` (a weak ETag)." },
      },
    },
    groups: {
      type: "array",
      description: "By group id.",
      items: {
        type: "object",
        required: ["id"],
        additionalProperties: false,
        properties: { id: scimId, displayName: { type: "string" } },
      },
    },
  },
};

const directoryGroup: JsonSchema = {
  type: "object",
  description: "A SCIM group of the organization and how many direct members it has.",
  required: ["id", "memberCount"],
  additionalProperties: false,
  properties: {
    id: scimId,
    displayName: { type: "string", description: "SCIM `displayName`, when set." },
    externalId: { type: "string", description: "SCIM `externalId`, when set." },
    memberCount: count("Direct members, users and nested groups."),
  },
};

const directoryMember: JsonSchema = {
  type: "object",
  description: "A direct member of a group.",
  required: ["id", "type"],
  additionalProperties: false,
  properties: {
    id: { type: "string", description: "The member's SCIM id (`members.value`)." },
    type: { type: "string", description: "`User` or `Group`." },
    display: { type: "string", description: "The member's `displayName`, when it has one." },
    userName: { type: "string", description: "A user member's `userName`." },
  },
};

const completionTimeline: JsonSchema = {
  type: "object",
  description: "A campaign's completed enrolments per UTC day, and how many are enrolled.",
  required: ["data", "enrolled"],
  additionalProperties: false,
  properties: {
    data: {
      type: "array",
      description: "The days with at least one completion, oldest first.",
      items: {
        type: "object",
        required: ["date", "completed", "cumulative"],
        additionalProperties: false,
        properties: {
          date: { type: "string", format: "date", description: "The UTC day, `YYYY-MM-DD`." },
          completed: count("Enrolments completed that day."),
          cumulative: count("Enrolments completed up to and including that day."),
        },
      },
    },
    enrolled: count("Enrolments in all."),
  },
};

const problem: JsonSchema = {
  type: "object",
  description: "An RFC 9457 problem. Branch on `type`; `detail` says what to do, for a person.",
  required: ["type", "title", "status", "detail"],
  additionalProperties: false,
  properties: {
    type: { type: "string", format: "uri", description: "A stable URI identifying the kind of problem." },
    title: { type: "string", description: "A short summary of the kind of problem." },
    status: { type: "integer", minimum: 400, maximum: 599, description: "The HTTP status." },
    detail: { type: "string", description: "What went wrong with this request and how to fix it." },
    errors: {
      type: "array",
      description: "With `invalid-request`: every invalid field.",
      items: {
        type: "object",
        required: ["field", "message"],
        additionalProperties: false,
        properties: {
          field: { type: "string", description: "A JSON pointer into the body (RFC 6901), or the name of a query parameter." },
          message: { type: "string" },
        },
      },
    },
  },
};

/** Every component schema by name. */
export const analyticsSchemas = {
  OrganizationId: {
    type: "string",
    minLength: 1,
    maxLength: 256,
    // PostgreSQL text cannot hold U+0000: refused here, it is a 400 (or a 404 in a path), not a 500.
    pattern: WITHOUT_NUL_PATTERN,
    description:
      "An organization id: a UUID for organizations created through this interface, or the SCIM path id a host registered (e.g. `demo`). Case-sensitive.",
  },
  OrganizationStatus: {
    type: "string",
    enum: ["active", "suspended"],
    description: "A suspended organization's SCIM tokens stop working.",
  },
  CompatibilityProfile: {
    type: "string",
    enum: [...COMPATIBILITY_PROFILE_NAMES],
    description:
      "The compatibility profile the organization's SCIM requests are served under: which identity-provider tolerances apply (`generic`: all of them; `strict`: RFC 7643/7644 to the letter; or one identity provider's). Absent: `generic`. See docs/compatibility-profiles.md.",
  },
  ExistingUsers: {
    type: "string",
    enum: ["conflict", "link"],
    description:
      "What `POST /Users` does when the `userName` or `externalId` exists: `conflict` answers 409 `uniqueness` (RFC 7644 §3.3); `link` updates that user and answers 200. Absent: `conflict`.",
  },
  AdminRole: {
    type: "string",
    enum: ["admin", "viewer"],
    description: "`admin` manages its organizations and their admin users; `viewer` only reads.",
  },
  Organization: organization,
  OrganizationList: listOf("Organization", "A page of organizations, by id."),
  OrganizationCreate: {
    type: "object",
    description: "A new organization.",
    required: ["name"],
    additionalProperties: false,
    properties: {
      name: { ...name, description: "Display name, 1–200 characters, not only spaces." },
      id: {
        type: "string",
        pattern: CHOSEN_ORGANIZATION_ID_PATTERN,
        description:
          "The id to give it, which is the `{orgId}` of its SCIM base address: 1–64 letters, digits, `.`, `_`, `~` or `-`, not `.` or `..`. Case-sensitive. 409 when an organization has it. Default: a new UUID.",
      },
      compatibility: ref("CompatibilityProfile"),
      existingUsers: ref("ExistingUsers"),
      parentId: {
        ...organizationId,
        description: `The organization to place it under (400 when there is none). At most ${MAX_ORGANIZATION_DEPTH} organizations from a root down (409 beyond). Default: a root.`,
      },
      homeRegion: {
        type: "string",
        pattern: REGION_NAME_PATTERN,
        description:
          "On a service of several regions (issue 30): the region that is to hold all its data. It must be the region of the host asked (400 naming the host to ask otherwise): an organization's data is written in its region only. Default: the host's region. 409 when another region has an organization with the chosen `id`.",
      },
    },
  },
  OrganizationCreated: {
    type: "object",
    description: "The new organization and how its identity provider reaches it. The SCIM token is shown here only.",
    required: ["organization", "scim"],
    additionalProperties: false,
    properties: {
      organization: ref("Organization"),
      scim: {
        type: "object",
        required: ["baseUrl", "token"],
        additionalProperties: false,
        properties: {
          baseUrl: { type: "string", format: "uri", description: "The SCIM base address of the organization (spec §2.1)." },
          token: { type: "string", description: "Its SCIM bearer token (spec §5); store it now, it is not shown again." },
          region: {
            type: "string",
            description: "On a service of several regions: its home region, where all its data is kept (issue 30).",
          },
        },
      },
    },
  },
  OrganizationPatch: {
    type: "object",
    description:
      "The fields to change; at least one. `status` is the operator's to change. `null` returns `compatibility` or `existingUsers` to its default.",
    minProperties: 1,
    additionalProperties: false,
    properties: {
      name: { ...name, description: "New display name." },
      status: ref("OrganizationStatus"),
      compatibility: { anyOf: [ref("CompatibilityProfile"), { type: "null" }] },
      existingUsers: { anyOf: [ref("ExistingUsers"), { type: "null" }] },
      cascade: {
        type: "boolean",
        description:
          "With `status`: give every descendant the same status too (a suspended company's divisions' SCIM tokens answer 401). Default `false`.",
      },
      parentId: {
        anyOf: [organizationId, { type: "null" }],
        description: `Operator only. The organization to move it under, with its subtree, or \`null\` to make it a root. 409 when that would make a cycle or a chain of more than ${MAX_ORGANIZATION_DEPTH} organizations.`,
      },
    },
  },
  RequestLogEntry: requestLogEntry,
  RequestLogList: listOf("RequestLogEntry", "A page of the provisioning log, newest first."),
  UnauthenticatedRequestLogEntry: unauthenticatedRequestLogEntry,
  UnauthenticatedRequestLogList: unauthenticatedRequestLogList,
  AdminUser: adminUser,
  AdminUserList: listOf("AdminUser", "A page of admin users, by id."),
  AdminUserInvite: {
    type: "object",
    description: "Whom to invite, with which role, for which organizations.",
    required: ["email", "role", "organizationIds"],
    additionalProperties: false,
    properties: {
      email: { type: "string", format: "email", maxLength: 320 },
      role: ref("AdminRole"),
      organizationIds: {
        type: "array",
        items: organizationId,
        minItems: 1,
        maxItems: 1000,
        uniqueItems: true,
        description: "Organizations the caller may see; an admin caller only its own.",
      },
      subtreeOrganizationIds: {
        type: "array",
        items: organizationId,
        maxItems: 1000,
        uniqueItems: true,
        description:
          "Those of `organizationIds` to grant with their whole subtree (issue 17). An admin caller may grant a subtree only where it sees all of it. Default: none.",
      },
    },
  },
  AdminUserPatch: {
    type: "object",
    description: "The fields to change; at least one.",
    minProperties: 1,
    additionalProperties: false,
    properties: {
      role: ref("AdminRole"),
      organizationIds: { type: "array", items: organizationId, minItems: 1, maxItems: 1000, uniqueItems: true },
      subtreeOrganizationIds: {
        type: "array",
        items: organizationId,
        maxItems: 1000,
        uniqueItems: true,
        description:
          "Those of the (new) `organizationIds` granted with their subtree; `[]` for none. Default: the current ones that stay granted.",
      },
      status: {
        type: "string",
        enum: ["active", "disabled"],
        description: "Disable (its keys stop working) or re-enable an admin user that accepted its invitation.",
      },
    },
  },
  InvitationAccept: {
    type: "object",
    description: "The code delivered with the invitation.",
    required: ["code"],
    additionalProperties: false,
    properties: { code: { type: "string", minLength: 1, maxLength: 512 } },
  },
  InvitationAccepted: {
    type: "object",
    description:
      "The admin user and, when accepting made it active, its API key, shown here only. An invitation taken by an admin user that already had the e-mail adds its organizations to that admin user's: its keys see them, and no new key comes.",
    required: ["adminUser"],
    additionalProperties: false,
    properties: {
      adminUser: ref("AdminUser"),
      apiKey: {
        type: "string",
        description:
          "Send as `Authorization: Bearer <apiKey>`; store it now, it is not shown again. Absent when the admin user had keys already.",
      },
    },
  },
  Token: scimToken,
  TokenList: allOf("Token", "Every SCIM token of the organization, static ones first, then issued ones oldest first. Never a secret."),
  TokenIssue: {
    type: "object",
    description:
      "A new token for the organization, beside those it has (a handover: move the identity provider to it, then revoke the old one).",
    additionalProperties: false,
    properties: {
      label: { ...name, description: "A name for it, e.g. `Entra production`; 1–200 characters." },
      expiresAt: { type: "string", format: "date-time", description: "When it stops working (in the future); absent: it does not expire." },
    },
  },
  TokenRotate: {
    type: "object",
    description: "How to rotate: send `{}` for a new secret that replaces the old one at once.",
    additionalProperties: false,
    properties: {
      graceSeconds: {
        type: "integer",
        minimum: 0,
        maximum: MAX_ROTATION_GRACE_SECONDS,
        description: `Seconds the old secret keeps working beside the new one, at most ${MAX_ROTATION_GRACE_SECONDS} (7 days). Default 0: it stops at once.`,
      },
      expiresAt: {
        type: "string",
        format: "date-time",
        description: "When the new secret stops working (in the future); absent: it does not expire.",
      },
    },
  },
  TokenIssued: {
    type: "object",
    description: "The token and its secret, shown here only.",
    required: ["token", "secret"],
    additionalProperties: false,
    properties: {
      token: ref("Token"),
      secret: {
        type: "string",
        description:
          "The SCIM bearer token to give the identity provider (`Authorization: Bearer <secret>`); store it now, it is not shown again.",
      },
    },
  },
  OperatorKeyRotated: {
    type: "object",
    description: "The new operator key, shown here only. The key that made the request no longer works.",
    required: ["apiKey"],
    additionalProperties: false,
    properties: {
      apiKey: { type: "string", description: "Send as `Authorization: Bearer <apiKey>`; store it now, it is not shown again." },
    },
  },
  EventReceiver: eventReceiver,
  OrganizationHealth: {
    type: "object",
    description: "How an organization's provisioning is doing, from this host's provisioning log.",
    required: ["day", "week", "topErrors", "complete"],
    additionalProperties: false,
    properties: {
      lastRequestAt: time,
      lastSuccessAt: time,
      day: healthWindow,
      week: healthWindow,
      topErrors: {
        type: "array",
        items: {
          type: "object",
          required: ["status", "count", "lastAt"],
          additionalProperties: false,
          properties: {
            status: { type: "integer" },
            scimType: { type: "string" },
            detail: { type: "string" },
            count: count("Times in the week."),
            lastAt: time,
          },
        },
      },
      identityProvider: { type: "string" },
      userAgent: { type: "string" },
      tokenLastUsedAt: time,
      complete: { type: "boolean", description: "Whether the whole week was read (false: its newest 10,000 requests)." },
    },
  },
  SetupIdentityProvider: {
    type: "string",
    enum: ["entra", "okta", "google", "onelogin", "jumpcloud", "ping", "other"],
    description: "An identity provider the setup page guides through; `other` is any SCIM 2.0 client.",
  },
  SetupLink: {
    type: "object",
    description: "A one-time link to an organization's setup page. Never its code.",
    required: ["id", "orgId", "createdAt", "expiresAt"],
    additionalProperties: false,
    properties: {
      id: { type: "string" },
      orgId: organizationId,
      identityProvider: ref("SetupIdentityProvider"),
      createdBy: { type: "string", description: "The id of the API key that created it." },
      createdAt: time,
      expiresAt: time,
      usedAt: { ...time, description: "When it was opened: it opens nothing again." },
      revokedAt: { ...time, description: "When it was revoked." },
      tokenId: { type: "string", description: "The SCIM token its page revealed." },
    },
  },
  SetupLinkCreate: {
    type: "object",
    additionalProperties: false,
    properties: {
      identityProvider: ref("SetupIdentityProvider"),
      expiresInMinutes: {
        type: "integer",
        minimum: 5,
        maximum: 10080,
        description: "How long the link is valid (default 4,320: three days).",
      },
    },
  },
  SetupLinkCreated: {
    type: "object",
    required: ["link", "url"],
    additionalProperties: false,
    properties: {
      link: ref("SetupLink"),
      url: { type: "string", format: "uri", description: "The link to send the IT admin; its code is shown here only." },
    },
  },
  SetupLinkList: allOf("SetupLink"),
  SetupOpen: {
    type: "object",
    required: ["code"],
    additionalProperties: false,
    properties: { code: { type: "string", minLength: 1, maxLength: 200 } },
  },
  SetupSession: {
    type: "object",
    required: ["session", "expiresAt", "organization"],
    additionalProperties: false,
    properties: {
      session: { type: "string", description: "The bearer credential of the setup operations, for this organization only." },
      expiresAt: time,
      organization: {
        type: "object",
        required: ["id", "name"],
        additionalProperties: false,
        properties: { id: organizationId, name: { type: "string" } },
      },
    },
  },
  Setup: {
    type: "object",
    required: ["organization", "scimBaseUrl", "tokenRevealed", "expiresAt"],
    additionalProperties: false,
    properties: {
      organization: {
        type: "object",
        required: ["id", "name"],
        additionalProperties: false,
        properties: { id: organizationId, name: { type: "string" }, compatibility: { type: "string" } },
      },
      scimBaseUrl: { type: "string", format: "uri", description: "What the identity provider's admin screen calls the tenant URL." },
      identityProvider: ref("SetupIdentityProvider"),
      tokenRevealed: { type: "boolean", description: "Whether this link's page showed its token (once)." },
      tokenId: { type: "string" },
      token: {
        type: "object",
        description:
          "The token this link's page revealed, as it is now: which secret the identity provider last used, and a rotation under way.",
        required: ["id"],
        additionalProperties: false,
        properties: {
          id: { type: "string" },
          lastUsedAt: {
            ...time,
            description: "When the current secret last verified; absent since a rotation until the identity provider uses the new one.",
          },
          rotatedAt: time,
          previousSecretValidUntil: {
            ...time,
            description: "A rotation under way: the replaced secret works until then, or until it is confirmed.",
          },
        },
      },
      expiresAt: { ...time, description: "When this setup session ends." },
    },
  },
  SetupIdentityProviderChoice: {
    type: "object",
    required: ["identityProvider"],
    additionalProperties: false,
    properties: { identityProvider: ref("SetupIdentityProvider") },
  },
  SetupToken: {
    type: "object",
    required: ["id", "token"],
    additionalProperties: false,
    properties: {
      id: { type: "string", description: "The token's id." },
      token: { type: "string", description: "The SCIM bearer token: shown here only." },
      previousSecretValidUntil: {
        ...time,
        description: "After a rotation: the replaced secret works until then, or until the rotation is confirmed.",
      },
    },
  },
  SetupRequestList: {
    type: "object",
    required: ["data"],
    additionalProperties: false,
    properties: {
      data: {
        type: "array",
        items: {
          type: "object",
          required: ["requestId", "at", "method", "path", "status"],
          additionalProperties: false,
          properties: {
            requestId: { type: "string" },
            at: time,
            method: { type: "string" },
            path: { type: "string" },
            status: { type: "integer" },
            scimType: { type: "string" },
            detail: { type: "string" },
            identityProvider: { type: "string" },
            userAgent: { type: "string" },
          },
        },
      },
    },
  },
  EventReceiverList: allOf(
    "EventReceiver",
    "Every security event receiver of the organization, oldest first. Never an `Authorization` value.",
  ),
  DeliveryFailure: deliveryFailure,
  RegionOrganization: {
    type: "object",
    description: "An organization homed in another region: what its region's directory says, never its data.",
    required: ["id", "name", "homeRegion", "status", "updatedAt", "scimBaseUrl"],
    additionalProperties: false,
    properties: {
      id: organizationId,
      name: { type: "string" },
      parentId: organizationId,
      homeRegion: { type: "string", description: "The region holding all its data." },
      status: ref("OrganizationStatus"),
      updatedAt: time,
      scimBaseUrl: { type: "string", format: "uri", description: "The SCIM base URL its identity provider uses, in its region." },
    },
  },
  RegionOrganizationList: listOf("RegionOrganization", "A page of the other regions' organizations, by id."),
  RegionMoveRequest: {
    type: "object",
    required: ["organizationId", "to"],
    additionalProperties: false,
    properties: {
      organizationId: organizationId,
      to: { type: "string", pattern: REGION_NAME_PATTERN, description: "The region to move it to." },
    },
  },
  RegionMove: {
    type: "object",
    description: "One move of an organization between regions, as this host's side of it has it; nothing personal.",
    required: ["orgId", "moveId", "side", "from", "to", "step", "startedAt", "updatedAt"],
    additionalProperties: false,
    properties: {
      orgId: organizationId,
      moveId: { type: "string", description: "The same on both sides." },
      side: { type: "string", enum: ["source", "target"], description: "`source`: it moves out of this region; `target`: into it." },
      from: { type: "string" },
      to: { type: "string" },
      step: {
        type: "string",
        enum: [
          "requested",
          "freezing",
          "copying",
          "verifying",
          "switching",
          "cleaning",
          "done",
          "rolling-back",
          "rolled-back",
          "arriving",
          "home",
        ],
        description:
          "Source: `requested`, `freezing` (writes refused from here), `copying`, `verifying`, `switching`, `cleaning` (the target serves it; this region deletes its copy), `done`; `rolling-back`, `rolled-back` when cancelled. Target: `arriving`, then `home`.",
      },
      startedAt: time,
      updatedAt: time,
      lastError: { type: "string", description: "Why the current step last failed; it is retried." },
    },
  },
  RegionMoveList: allOf("RegionMove"),
  Regions: {
    type: "object",
    description: "The regions of the service as the host answering sees them.",
    required: ["region", "regions", "misdirected"],
    additionalProperties: false,
    properties: {
      region: { type: "string", description: "The region of the host answering." },
      regions: {
        type: "array",
        items: {
          type: "object",
          required: ["region", "baseUrl", "self"],
          additionalProperties: false,
          properties: {
            region: { type: "string" },
            baseUrl: { type: "string", format: "uri", description: "Its organizations are at `{baseUrl}/scim/Organizations/{id}/v2`." },
            self: { type: "boolean", description: "The region of the host answering." },
            organizations: count("Another region: its organizations this host knows of."),
            syncedAt: { ...time, description: "Another region: when this host process last read its directory whole." },
            lastError: { type: "string", description: "Another region: why the last read of its directory failed; its copy is kept." },
          },
        },
      },
      misdirected: {
        type: "array",
        description: "Per organization homed elsewhere, the requests answered 421 by this host process, the most recent first.",
        items: {
          type: "object",
          required: ["orgId", "homeRegion", "count", "lastAt"],
          additionalProperties: false,
          properties: {
            orgId: organizationId,
            homeRegion: { type: "string" },
            count: count("Requests since this process started."),
            lastAt: time,
          },
        },
      },
    },
  },
  RegionsSummary: {
    type: "object",
    description: "Every region's totals, each counted by its own host in its own database, and their sum: counts only, nothing personal.",
    required: ["regions", "total", "complete"],
    additionalProperties: false,
    properties: {
      regions: {
        type: "array",
        description: "Every region of the service, by name.",
        items: {
          type: "object",
          required: ["region", "self"],
          additionalProperties: false,
          properties: {
            region: { type: "string" },
            self: { type: "boolean", description: "The region of the host answering, counted here." },
            organizations: count("Its organizations."),
            users: count("Their SCIM users."),
            activeUsers: count("Of them, active."),
            groups: count("Their SCIM groups."),
            at: { ...time, description: "When its host counted them." },
            error: { type: "string", description: "Another region whose host did not give its totals: why. Its counts are then absent." },
          },
        },
      },
      total: ref("RegionTotals"),
      complete: { type: "boolean", description: "Whether every region answered, so `total` is the whole service's." },
    },
  },
  RegionTotals: {
    type: "object",
    description: "The sums over the regions that answered.",
    required: ["organizations", "users", "activeUsers", "groups"],
    additionalProperties: false,
    properties: {
      organizations: count("Organizations."),
      users: count("SCIM users."),
      activeUsers: count("Of them, active."),
      groups: count("SCIM groups."),
    },
  },
  EventSigningKey: {
    type: "object",
    description: "The key that signs the organization's SETs, and the public keys receivers verify them with.",
    required: ["kid", "jwksUrl", "jwks"],
    additionalProperties: false,
    properties: {
      kid: { type: "string", description: "The `kid` header of the SETs signed from now on." },
      jwksUrl: { type: "string", format: "uri", description: "Where receivers fetch the JWKS below (no credentials needed)." },
      jwks: {
        type: "object",
        description:
          "The JWKS (RFC 7517 §5) as receivers get it: the signing key first, then the keys it replaced still within their retention, newest first.",
        required: ["keys"],
        additionalProperties: false,
        properties: { keys: { type: "array", minItems: 1, items: ref("PublicJwk") } },
      },
    },
  },
  PublicJwk: {
    type: "object",
    description:
      "A public key (RFC 7517 §4): the ES256 keys (RFC 7518 §6.2.1) SETs are signed with. Its members are listed, so a private one (`d`) is never in an answer.",
    required: ["kty", "kid"],
    additionalProperties: false,
    properties: {
      kty: { type: "string", description: "The key type: `EC`." },
      kid: { type: "string", description: "The key's id, the `kid` header of the SETs it signed." },
      crv: { type: "string", description: "The curve: `P-256`." },
      x: { type: "string" },
      y: { type: "string" },
      alg: { type: "string", description: "`ES256`." },
      use: { type: "string", description: "`sig`." },
    },
  },
  EventSigningKeyRotated: {
    type: "object",
    description: "The new signing key, by its id. The replaced key stays in the JWKS for the retention.",
    required: ["kid", "jwksUrl"],
    additionalProperties: false,
    properties: {
      kid: { type: "string", description: "The `kid` header of the SETs signed from now on." },
      jwksUrl: { type: "string", format: "uri", description: "Where receivers fetch the JWKS, which now lists the new key first." },
    },
  },
  EventReceiverInput: {
    type: "object",
    description: "A receiver to register. Only `url` is required.",
    required: ["url"],
    additionalProperties: false,
    properties: {
      url: {
        type: "string",
        format: "uri",
        maxLength: 2048,
        description:
          "Where SETs are pushed: an absolute `https:` URL (`http:` for a local receiver), without a user name or password (give those as `authorization`). Its host may not be, nor resolve to, a loopback, private, link-local, CGNAT, unique-local, cloud metadata or other special-purpose address unless the operator allows it (400 naming the rule). For a poll receiver, its own address, for the operator (never called).",
      },
      delivery: {
        type: "string",
        enum: ["push", "poll"],
        description: "`push` (default): we POST each SET (RFC 8935); `poll`: it fetches them (RFC 8936).",
      },
      events: {
        type: "array",
        items: { type: "string", enum: [...SECURITY_EVENT_URIS] },
        uniqueItems: true,
        maxItems: SECURITY_EVENT_URIS.length,
        description: "The RFC 9967 event URIs to send, in the receiver's `form` where a URI has two; empty or absent: every one.",
      },
      form: { type: "string", enum: ["full", "notice"], description: "`notice` (default): what changed, no values; `full`: the resource." },
      audience: {
        type: "string",
        minLength: 1,
        maxLength: 2048,
        pattern: WITHOUT_NUL_PATTERN,
        description: "The `aud` claim of its SETs (RFC 8417 §2.2). Default: `url`.",
      },
      authorization: {
        type: "string",
        minLength: 1,
        maxLength: 4096,
        description:
          "Push: the `Authorization` header value to send with each SET, if the receiver wants one. Poll (required): the value the receiver must send to poll. Printable ASCII; never shown again, nor written to the audit trail.",
      },
      label: { ...name, description: "A name for it, e.g. `SIEM`; 1–200 characters." },
      start: {
        type: "string",
        enum: ["now", "beginning"],
        description: "`now` (default): the events recorded from now on; `beginning`: every event the outbox still keeps.",
      },
    },
  },
  User: user,
  UserList: listOf("User", "A page of learners, by organization and id."),
  Campaign: campaign,
  CampaignList: listOf("Campaign", "A page of campaigns, by id."),
  CampaignSummary: campaignSummary,
  OrganizationSummary: organizationSummary,
  CampaignUser: campaignUser,
  CampaignUserList: listOf("CampaignUser", "A page of a campaign's enrolments, by user id."),
  SimulationSummary: simulationSummary,
  SimulationUser: simulationUser,
  SimulationUserList: listOf("SimulationUser", "A page of a simulation's recipients, by user id."),
  FeedbackComment: feedbackComment,
  FeedbackCommentList: listOf("FeedbackComment", "A page of comments, oldest first."),
  Operation: operation,
  OperationAccepted: {
    type: "object",
    description: "The operation that will produce the result; poll its `links.self`.",
    required: ["operation"],
    additionalProperties: false,
    properties: { operation: ref("Operation") },
  },
  ReportRows: {
    type: "array",
    description: "The report, one flat object per row, in the order of the report's columns.",
    items: { type: "object", additionalProperties: { type: ["string", "number", "boolean", "null"] } },
  },
  ReportCsv: {
    type: "string",
    description:
      "RFC 4180 CSV with a header line; cells starting with = + - @ are prefixed with ' so spreadsheets do not run them as formulas.",
  },
  DirectoryUser: directoryUser,
  DirectoryUserList: listOf("DirectoryUser", "A page of an organization's SCIM users, by id."),
  DirectoryUserDetail: directoryUserDetail,
  DirectoryGroup: directoryGroup,
  DirectoryGroupList: listOf("DirectoryGroup", "A page of an organization's SCIM groups, by id."),
  DirectoryMember: directoryMember,
  DirectoryMemberList: listOf("DirectoryMember", "A page of a group's members, by member id."),
  CompletionTimeline: completionTimeline,
  Problem: problem,
} as const satisfies Readonly<Record<string, JsonSchema>>;

/** The name of a component schema. */
export type AnalyticsSchemaName = keyof typeof analyticsSchemas;
