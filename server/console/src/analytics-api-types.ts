/**
 * The analytics interface's bodies (docs/analytics.md), generated from the component schemas of its
 * OpenAPI document by server/scripts/console-api-types.ts. Do not edit: `npm run console:api-types`
 * writes it again, and the type-check fails while it is out of date.
 */

/** An organization id: a UUID for organizations created through this interface, or the SCIM path id a host registered (e.g. `demo`). Case-sensitive. */
export type OrganizationId = string;

/** A suspended organization's SCIM tokens stop working. */
export type OrganizationStatus = "active" | "suspended";

/** The compatibility profile the organization's SCIM requests are served under: which identity-provider tolerances apply (`generic`: all of them; `strict`: RFC 7643/7644 to the letter; or one identity provider's). Absent: `generic`. See docs/compatibility-profiles.md. */
export type CompatibilityProfile = "generic" | "strict" | "entra" | "okta" | "google" | "onelogin" | "jumpcloud" | "ping";

/** What `POST /Users` does when the `userName` or `externalId` exists: `conflict` answers 409 `uniqueness` (RFC 7644 §3.3); `link` updates that user and answers 200. Absent: `conflict`. */
export type ExistingUsers = "conflict" | "link";

/** `admin` manages its organizations and their admin users; `viewer` only reads. */
export type AdminRole = "admin" | "viewer";

/** An organization (tenant). Its id is the `{orgId}` of its SCIM base address. */
export interface Organization {
  readonly id: OrganizationId;
  /** Display name, 1–200 characters. */
  readonly name: string;
  readonly status: OrganizationStatus;
  readonly compatibility?: CompatibilityProfile;
  readonly existingUsers?: ExistingUsers;
  /** The organization it belongs under (e.g. a division's company); absent for a root. */
  readonly parentId?: OrganizationId;
  /** An ISO 8601 time in UTC. */
  readonly createdAt: string;
  /** An ISO 8601 time in UTC. */
  readonly updatedAt: string;
}

/** A page of organizations, by id. */
export interface OrganizationList {
  readonly data: readonly Organization[];
  /** Pass as `cursor` (with the same filters) for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

/** A new organization. */
export interface OrganizationCreate {
  /** Display name, 1–200 characters, not only spaces. */
  readonly name: string;
  /** The id to give it, which is the `{orgId}` of its SCIM base address: 1–64 letters, digits, `.`, `_`, `~` or `-`, not `.` or `..`. Case-sensitive. 409 when an organization has it. Default: a new UUID. */
  readonly id?: string;
  readonly compatibility?: CompatibilityProfile;
  readonly existingUsers?: ExistingUsers;
  /** The organization to place it under (400 when there is none). At most 8 organizations from a root down (409 beyond). Default: a root. */
  readonly parentId?: OrganizationId;
  /** On a service of several regions (issue 30): the region that is to hold all its data. It must be the region of the host asked (400 naming the host to ask otherwise): an organization's data is written in its region only. Default: the host's region. 409 when another region has an organization with the chosen `id`. */
  readonly homeRegion?: string;
}

/** The new organization and how its identity provider reaches it. The SCIM token is shown here only. */
export interface OrganizationCreated {
  readonly organization: Organization;
  readonly scim: {
    /** The SCIM base address of the organization (spec §2.1). */
    readonly baseUrl: string;
    /** Its SCIM bearer token (spec §5); store it now, it is not shown again. */
    readonly token: string;
    /** On a service of several regions: its home region, where all its data is kept (issue 30). */
    readonly region?: string;
  };
}

/** The fields to change; at least one. `status` is the operator's to change. `null` returns `compatibility` or `existingUsers` to its default. */
export interface OrganizationPatch {
  /** New display name. */
  readonly name?: string;
  readonly status?: OrganizationStatus;
  readonly compatibility?: CompatibilityProfile | null;
  readonly existingUsers?: ExistingUsers | null;
  /** With `status`: give every descendant the same status too (a suspended company's divisions' SCIM tokens answer 401). Default `false`. */
  readonly cascade?: boolean;
  /** Operator only. The organization to move it under, with its subtree, or `null` to make it a root. 409 when that would make a cycle or a chain of more than 8 organizations. */
  readonly parentId?: OrganizationId | null;
}

/** One SCIM request and its answer. Bodies are JSON text with every secret (`password`, attributes returned never or write-only, anything named like a token or secret) replaced by `"[redacted]"`. */
export interface RequestLogEntry {
  /** The request's `X-Request-Id`: the client's own when it sent a sane one, else the service's. */
  readonly requestId: string;
  readonly orgId: OrganizationId;
  /** When the request arrived. */
  readonly at: string;
  /** The HTTP method. */
  readonly method: string;
  /** Path and query: the SCIM query parameters as sent, every other parameter's value masked (`[redacted]`). */
  readonly path: string;
  /** The HTTP status of the response. */
  readonly status: number;
  /** The `scimType` of an error response (RFC 7644 §3.12). */
  readonly scimType?: string;
  /** The `detail` of an error response (RFC 7644 §3.12). */
  readonly detail?: string;
  /** Milliseconds from the request's arrival to the end of its response. */
  readonly durationMs: number;
  /** Whether the bearer token was verified for the organization: always true here, since requests without a valid token are kept apart (`GET /request-log/unauthenticated`, operator only). */
  readonly authenticated: boolean;
  /** The id of the SCIM token that authenticated it (as the token API lists it); never the token. */
  readonly tokenId?: string;
  /** The client's address. */
  readonly clientAddress?: string;
  /** The `User-Agent` header, at most 512 characters. */
  readonly userAgent?: string;
  /** The identity provider recognised from `userAgent`. */
  readonly identityProvider: "entra" | "okta" | "onelogin" | "google" | "jumpcloud" | "ping" | "other";
  /** The resource type the path names (`User`, `Group`). */
  readonly resourceType?: string;
  /** The resource id the path names, or the id a create assigned. */
  readonly resourceId?: string;
  /** The number of operations of a `POST /Bulk` request. */
  readonly bulkOperations?: number;
  /** The request body, redacted, as JSON text; absent without one and when unauthenticated. */
  readonly requestBody?: string;
  /** Whether `requestBody` was cut at the host's size limit. */
  readonly requestBodyTruncated?: boolean;
  /** Why the service refused the request's body before reading it: `invalidJson` (then `requestBody` is the text as sent, secrets masked, when they could be found), `tooLarge`, `unsupportedMediaType` or `incomplete` (no body kept). */
  readonly requestBodyRefused?: "invalidJson" | "tooLarge" | "unsupportedMediaType" | "incomplete";
  /** The response body, redacted; absent without one and when unauthenticated. */
  readonly responseBody?: string;
  /** Whether `responseBody` was cut at the host's size limit. */
  readonly responseBodyTruncated?: boolean;
}

/** A page of the provisioning log, newest first. */
export interface RequestLogList {
  readonly data: readonly RequestLogEntry[];
  /** Pass as `cursor` (with the same filters) for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

/** One request that came without a valid SCIM token. No bodies, no token id; each text cut. */
export interface UnauthenticatedRequestLogEntry {
  /** The request's `X-Request-Id`. */
  readonly requestId: string;
  /** The organization id the path claimed, which may not exist. */
  readonly orgId: string;
  /** When the request arrived. */
  readonly at: string;
  /** The HTTP method. */
  readonly method: string;
  /** Path and query, values of other than SCIM parameters masked, at most 512 characters. */
  readonly path: string;
  /** The HTTP status of the response. */
  readonly status: number;
  /** The `scimType` of an error response (RFC 7644 §3.12). */
  readonly scimType?: string;
  /** The `detail` of an error response (RFC 7644 §3.12), at most 512 characters. */
  readonly detail?: string;
  /** Milliseconds from the request's arrival to the end of its response. */
  readonly durationMs: number;
  /** The client's address. */
  readonly clientAddress?: string;
  /** The `User-Agent` header, at most 256 characters. */
  readonly userAgent?: string;
  /** The identity provider recognised from `userAgent`. */
  readonly identityProvider: "entra" | "okta" | "onelogin" | "google" | "jumpcloud" | "ping" | "other";
}

/** A page of the requests without a valid SCIM token the log kept, newest first, and the count of those it left out. */
export interface UnauthenticatedRequestLogList {
  readonly data: readonly UnauthenticatedRequestLogEntry[];
  /** Pass as `cursor` (with the same filters) for the next page; null on the last page. */
  readonly nextCursor: string | null;
  /** Requests without a valid token the sample left out since `droppedSince`, whatever organization they claimed. */
  readonly dropped: number;
  /** Since when `dropped` counts: the host process's start, or the oldest time the log keeps. */
  readonly droppedSince: string;
}

/** A person who looks after some organizations through this interface. */
export interface AdminUser {
  /** A service-assigned id (UUID v7). */
  readonly id: string;
  /** Lower-cased; unique across the service. */
  readonly email: string;
  readonly role: AdminRole;
  /** The organizations it may see, sorted. */
  readonly organizationIds: readonly OrganizationId[];
  /** Those of `organizationIds` granted with their subtree, sorted: it also sees and manages every descendant of each, now and later, and nothing above or beside them. Absent: none. */
  readonly subtreeOrganizationIds?: readonly OrganizationId[];
  /** `invited` until the invitation is accepted; a `disabled` user's keys stop working. */
  readonly status: "invited" | "active" | "disabled";
  /** An ISO 8601 time in UTC. */
  readonly invitedAt: string;
  /** When the pending invitation expires; absent once accepted. */
  readonly invitationExpiresAt?: string;
  /** When the invitation was accepted; absent while invited. */
  readonly activatedAt?: string;
  /** An ISO 8601 time in UTC. */
  readonly updatedAt: string;
}

/** A page of admin users, by id. */
export interface AdminUserList {
  readonly data: readonly AdminUser[];
  /** Pass as `cursor` (with the same filters) for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

/** Whom to invite, with which role, for which organizations. */
export interface AdminUserInvite {
  readonly email: string;
  readonly role: AdminRole;
  /** Organizations the caller may see; an admin caller only its own. */
  readonly organizationIds: readonly OrganizationId[];
  /** Those of `organizationIds` to grant with their whole subtree (issue 17). An admin caller may grant a subtree only where it sees all of it. Default: none. */
  readonly subtreeOrganizationIds?: readonly OrganizationId[];
}

/** The fields to change; at least one. */
export interface AdminUserPatch {
  readonly role?: AdminRole;
  readonly organizationIds?: readonly OrganizationId[];
  /** Those of the (new) `organizationIds` granted with their subtree; `[]` for none. Default: the current ones that stay granted. */
  readonly subtreeOrganizationIds?: readonly OrganizationId[];
  /** Disable (its keys stop working) or re-enable an admin user that accepted its invitation. */
  readonly status?: "active" | "disabled";
}

/** The code delivered with the invitation. */
export interface InvitationAccept {
  readonly code: string;
}

/** The admin user and, when accepting made it active, its API key, shown here only. An invitation taken by an admin user that already had the e-mail adds its organizations to that admin user's: its keys see them, and no new key comes. */
export interface InvitationAccepted {
  readonly adminUser: AdminUser;
  /** Send as `Authorization: Bearer <apiKey>`; store it now, it is not shown again. Absent when the admin user had keys already. */
  readonly apiKey?: string;
}

/** A SCIM bearer token of an organization (spec §5), without its secret. `source` says where it lives: `issued` tokens are managed here; `static` ones come from the host's environment (`SCIMKIT_ORGS`) and change only there. */
export interface Token {
  /** The token's id: a UUID for issued tokens, `static-<n>` for the n-th static token of the organization. */
  readonly id: string;
  readonly source: "issued" | "static";
  /** The operator's name for it. */
  readonly label?: string;
  /** The first characters of the secret, to tell which one a configuration holds. */
  readonly prefix?: string;
  /** When it was issued (kept by rotation). */
  readonly createdAt?: string;
  /** When its secret was last rotated. */
  readonly rotatedAt?: string;
  /** When its current secret last authenticated a SCIM request (to the minute). */
  readonly lastUsedAt?: string;
  /** When it stops working; absent: it does not expire. */
  readonly expiresAt?: string;
  /** Until when the secret replaced by the last rotation still works (its grace period). */
  readonly previousSecretValidUntil?: string;
}

/** Every SCIM token of the organization, static ones first, then issued ones oldest first. Never a secret. */
export interface TokenList {
  readonly data: readonly Token[];
}

/** A new token for the organization, beside those it has (a handover: move the identity provider to it, then revoke the old one). */
export interface TokenIssue {
  /** A name for it, e.g. `Entra production`; 1–200 characters. */
  readonly label?: string;
  /** When it stops working (in the future); absent: it does not expire. */
  readonly expiresAt?: string;
}

/** How to rotate: send `{}` for a new secret that replaces the old one at once. */
export interface TokenRotate {
  /** Seconds the old secret keeps working beside the new one, at most 604800 (7 days). Default 0: it stops at once. */
  readonly graceSeconds?: number;
  /** When the new secret stops working (in the future); absent: it does not expire. */
  readonly expiresAt?: string;
}

/** The token and its secret, shown here only. */
export interface TokenIssued {
  readonly token: Token;
  /** The SCIM bearer token to give the identity provider (`Authorization: Bearer <secret>`); store it now, it is not shown again. */
  readonly secret: string;
}

/** The new operator key, shown here only. The key that made the request no longer works. */
export interface OperatorKeyRotated {
  /** Send as `Authorization: Bearer <apiKey>`; store it now, it is not shown again. */
  readonly apiKey: string;
}

/** A receiver of the organization's Security Event Tokens and where its delivery stands. The `Authorization` value it was registered with is never shown: `hasAuthorization` says whether it has one. */
export interface EventReceiver {
  /** The receiver's id (UUID v7). */
  readonly id: string;
  /** The organization whose events it receives. */
  readonly organizationId: string;
  /** Where SETs are pushed (RFC 8935); for a poll receiver, the receiver's own address, for the operator only. */
  readonly url: string;
  /** `push`: we POST each SET; `poll`: it fetches them (RFC 8936). */
  readonly delivery: "push" | "poll";
  /** The RFC 9967 event URIs it gets; empty: every one scimkit sends. */
  readonly events: readonly string[];
  /** `full`: the resource; `notice`: what changed, without values. */
  readonly form: "full" | "notice";
  /** The `aud` claim of its SETs. */
  readonly audience: string;
  /** Whether an `Authorization` value was registered with it (never shown). */
  readonly hasAuthorization: boolean;
  /** The operator's name for it. */
  readonly label?: string;
  /** When it was registered. */
  readonly createdAt: string;
  /** Poll receivers: where the receiver POSTs its polls (RFC 8936 §2.4), with its `Authorization` value. */
  readonly pollUrl?: string;
  /** The sequence number of the organization's last event it has been given or skipped. */
  readonly position: number;
  /** Failed attempts in a row at the event after `position`; 0 when the last one succeeded. */
  readonly attempts: number;
  /** When the next push is tried, after a failure (exponential backoff); absent: due now. */
  readonly nextAttemptAt?: string;
  readonly lastError?: DeliveryFailure;
  /** When it last accepted a SET. */
  readonly lastDeliveredAt?: string;
  /** SETs it accepted. */
  readonly delivered: number;
  /** SETs it rejected for good (skipped after the failure was kept). */
  readonly rejected: number;
  /** Events it never got: it lagged beyond the backlog the service keeps (`SCIMKIT_EVENT_BACKLOG_EVENTS`, `SCIMKIT_EVENT_BACKLOG_DAYS`), and they were pruned; `lastError` says when. */
  readonly dropped: number;
}

/** How an organization's provisioning is doing, from this host's provisioning log. */
export interface OrganizationHealth {
  /** An ISO 8601 time in UTC. */
  readonly lastRequestAt?: string;
  /** An ISO 8601 time in UTC. */
  readonly lastSuccessAt?: string;
  readonly day: {
    /** Requests. */
    readonly requests: number;
    /** Answered 4xx or 5xx. */
    readonly failures: number;
    readonly errorRate: number;
  };
  readonly week: {
    /** Requests. */
    readonly requests: number;
    /** Answered 4xx or 5xx. */
    readonly failures: number;
    readonly errorRate: number;
  };
  readonly topErrors: readonly {
    readonly status: number;
    readonly scimType?: string;
    readonly detail?: string;
    /** Times in the week. */
    readonly count: number;
    /** An ISO 8601 time in UTC. */
    readonly lastAt: string;
  }[];
  readonly identityProvider?: string;
  readonly userAgent?: string;
  /** An ISO 8601 time in UTC. */
  readonly tokenLastUsedAt?: string;
  /** Whether the whole week was read (false: its newest 10,000 requests). */
  readonly complete: boolean;
}

/** An identity provider the setup page guides through; `other` is any SCIM 2.0 client. */
export type SetupIdentityProvider = "entra" | "okta" | "google" | "onelogin" | "jumpcloud" | "ping" | "other";

/** A one-time link to an organization's setup page. Never its code. */
export interface SetupLink {
  readonly id: string;
  readonly orgId: OrganizationId;
  readonly identityProvider?: SetupIdentityProvider;
  /** The id of the API key that created it. */
  readonly createdBy?: string;
  /** An ISO 8601 time in UTC. */
  readonly createdAt: string;
  /** An ISO 8601 time in UTC. */
  readonly expiresAt: string;
  /** When it was opened: it opens nothing again. */
  readonly usedAt?: string;
  /** When it was revoked. */
  readonly revokedAt?: string;
  /** The SCIM token its page revealed. */
  readonly tokenId?: string;
}

export interface SetupLinkCreate {
  readonly identityProvider?: SetupIdentityProvider;
  /** How long the link is valid (default 4,320: three days). */
  readonly expiresInMinutes?: number;
}

export interface SetupLinkCreated {
  readonly link: SetupLink;
  /** The link to send the IT admin; its code is shown here only. */
  readonly url: string;
}

export interface SetupLinkList {
  readonly data: readonly SetupLink[];
}

export interface SetupOpen {
  readonly code: string;
}

export interface SetupSession {
  /** The bearer credential of the setup operations, for this organization only. */
  readonly session: string;
  /** An ISO 8601 time in UTC. */
  readonly expiresAt: string;
  readonly organization: {
    readonly id: OrganizationId;
    readonly name: string;
  };
}

export interface Setup {
  readonly organization: {
    readonly id: OrganizationId;
    readonly name: string;
    readonly compatibility?: string;
  };
  /** What the identity provider's admin screen calls the tenant URL. */
  readonly scimBaseUrl: string;
  readonly identityProvider?: SetupIdentityProvider;
  /** Whether this link's page showed its token (once). */
  readonly tokenRevealed: boolean;
  readonly tokenId?: string;
  /** The token this link's page revealed, as it is now: which secret the identity provider last used, and a rotation under way. */
  readonly token?: {
    readonly id: string;
    /** When the current secret last verified; absent since a rotation until the identity provider uses the new one. */
    readonly lastUsedAt?: string;
    /** An ISO 8601 time in UTC. */
    readonly rotatedAt?: string;
    /** A rotation under way: the replaced secret works until then, or until it is confirmed. */
    readonly previousSecretValidUntil?: string;
  };
  /** When this setup session ends. */
  readonly expiresAt: string;
}

export interface SetupIdentityProviderChoice {
  readonly identityProvider: SetupIdentityProvider;
}

export interface SetupToken {
  /** The token's id. */
  readonly id: string;
  /** The SCIM bearer token: shown here only. */
  readonly token: string;
  /** After a rotation: the replaced secret works until then, or until the rotation is confirmed. */
  readonly previousSecretValidUntil?: string;
}

export interface SetupRequestList {
  readonly data: readonly {
    readonly requestId: string;
    /** An ISO 8601 time in UTC. */
    readonly at: string;
    readonly method: string;
    readonly path: string;
    readonly status: number;
    readonly scimType?: string;
    readonly detail?: string;
    readonly identityProvider?: string;
    readonly userAgent?: string;
  }[];
}

/** Every security event receiver of the organization, oldest first. Never an `Authorization` value. */
export interface EventReceiverList {
  readonly data: readonly EventReceiver[];
}

/** The receiver's last failure: a push it refused or that did not arrive (retried with backoff), or a SET it rejected for good (RFC 8935 §2.4, RFC 8936 `setErrs`). */
export interface DeliveryFailure {
  /** When it failed. */
  readonly at: string;
  /** The `jti` of the SET that failed. */
  readonly jti: string;
  /** The receiver's HTTP status; absent for a network failure or a timeout. */
  readonly status?: number;
  /** The receiver's RFC 8935 §2.4 `err` when it answered with a registered one (`invalid_key`, `authentication_failed`, …), else `http`, `redirect` (never followed), `timeout`, `network` or `address` (the service's address rules refused the receiver's host); a poll receiver's own `setErrs` code. */
  readonly error: string;
  /** What failed, in the service's own words, never the receiver's answer (issue 27); a poll receiver's own `setErrs` description. */
  readonly description?: string;
}

/** An organization homed in another region: what its region's directory says, never its data. */
export interface RegionOrganization {
  readonly id: OrganizationId;
  readonly name: string;
  readonly parentId?: OrganizationId;
  /** The region holding all its data. */
  readonly homeRegion: string;
  readonly status: OrganizationStatus;
  /** An ISO 8601 time in UTC. */
  readonly updatedAt: string;
  /** The SCIM base URL its identity provider uses, in its region. */
  readonly scimBaseUrl: string;
}

/** A page of the other regions' organizations, by id. */
export interface RegionOrganizationList {
  readonly data: readonly RegionOrganization[];
  /** Pass as `cursor` (with the same filters) for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

export interface RegionMoveRequest {
  readonly organizationId: OrganizationId;
  /** The region to move it to. */
  readonly to: string;
}

/** One move of an organization between regions, as this host's side of it has it; nothing personal. */
export interface RegionMove {
  readonly orgId: OrganizationId;
  /** The same on both sides. */
  readonly moveId: string;
  /** `source`: it moves out of this region; `target`: into it. */
  readonly side: "source" | "target";
  readonly from: string;
  readonly to: string;
  /** Source: `requested`, `freezing` (writes refused from here), `copying`, `verifying`, `switching`, `cleaning` (the target serves it; this region deletes its copy), `done`; `rolling-back`, `rolled-back` when cancelled. Target: `arriving`, then `home`. */
  readonly step:
    | "requested"
    | "freezing"
    | "copying"
    | "verifying"
    | "switching"
    | "cleaning"
    | "done"
    | "rolling-back"
    | "rolled-back"
    | "arriving"
    | "home";
  /** An ISO 8601 time in UTC. */
  readonly startedAt: string;
  /** An ISO 8601 time in UTC. */
  readonly updatedAt: string;
  /** Why the current step last failed; it is retried. */
  readonly lastError?: string;
}

export interface RegionMoveList {
  readonly data: readonly RegionMove[];
}

/** The regions of the service as the host answering sees them. */
export interface Regions {
  /** The region of the host answering. */
  readonly region: string;
  readonly regions: readonly {
    readonly region: string;
    /** Its organizations are at `{baseUrl}/scim/Organizations/{id}/v2`. */
    readonly baseUrl: string;
    /** The region of the host answering. */
    readonly self: boolean;
    /** Another region: its organizations this host knows of. */
    readonly organizations?: number;
    /** Another region: when this host process last read its directory whole. */
    readonly syncedAt?: string;
    /** Another region: why the last read of its directory failed; its copy is kept. */
    readonly lastError?: string;
  }[];
  /** Per organization homed elsewhere, the requests answered 421 by this host process, the most recent first. */
  readonly misdirected: readonly {
    readonly orgId: OrganizationId;
    readonly homeRegion: string;
    /** Requests since this process started. */
    readonly count: number;
    /** An ISO 8601 time in UTC. */
    readonly lastAt: string;
  }[];
}

/** Every region's totals, each counted by its own host in its own database, and their sum: counts only, nothing personal. */
export interface RegionsSummary {
  /** Every region of the service, by name. */
  readonly regions: readonly {
    readonly region: string;
    /** The region of the host answering, counted here. */
    readonly self: boolean;
    /** Its organizations. */
    readonly organizations?: number;
    /** Their SCIM users. */
    readonly users?: number;
    /** Of them, active. */
    readonly activeUsers?: number;
    /** Their SCIM groups. */
    readonly groups?: number;
    /** When its host counted them. */
    readonly at?: string;
    /** Another region whose host did not give its totals: why. Its counts are then absent. */
    readonly error?: string;
  }[];
  readonly total: RegionTotals;
  /** Whether every region answered, so `total` is the whole service's. */
  readonly complete: boolean;
}

/** The sums over the regions that answered. */
export interface RegionTotals {
  /** Organizations. */
  readonly organizations: number;
  /** SCIM users. */
  readonly users: number;
  /** Of them, active. */
  readonly activeUsers: number;
  /** SCIM groups. */
  readonly groups: number;
}

/** The key that signs the organization's SETs, and the public keys receivers verify them with. */
export interface EventSigningKey {
  /** The `kid` header of the SETs signed from now on. */
  readonly kid: string;
  /** Where receivers fetch the JWKS below (no credentials needed). */
  readonly jwksUrl: string;
  /** The JWKS (RFC 7517 §5) as receivers get it: the signing key first, then the keys it replaced still within their retention, newest first. */
  readonly jwks: {
    readonly keys: readonly PublicJwk[];
  };
}

/** A public key (RFC 7517 §4): the ES256 keys (RFC 7518 §6.2.1) SETs are signed with. Its members are listed, so a private one (`d`) is never in an answer. */
export interface PublicJwk {
  /** The key type: `EC`. */
  readonly kty: string;
  /** The key's id, the `kid` header of the SETs it signed. */
  readonly kid: string;
  /** The curve: `P-256`. */
  readonly crv?: string;
  readonly x?: string;
  readonly y?: string;
  /** `ES256`. */
  readonly alg?: string;
  /** `sig`. */
  readonly use?: string;
}

/** The new signing key, by its id. The replaced key stays in the JWKS for the retention. */
export interface EventSigningKeyRotated {
  /** The `kid` header of the SETs signed from now on. */
  readonly kid: string;
  /** Where receivers fetch the JWKS, which now lists the new key first. */
  readonly jwksUrl: string;
}

/** A receiver to register. Only `url` is required. */
export interface EventReceiverInput {
  /** Where SETs are pushed: an absolute `https:` URL (`http:` for a local receiver), without a user name or password (give those as `authorization`). Its host may not be, nor resolve to, a loopback, private, link-local, CGNAT, unique-local, cloud metadata or other special-purpose address unless the operator allows it (400 naming the rule). For a poll receiver, its own address, for the operator (never called). */
  readonly url: string;
  /** `push` (default): we POST each SET (RFC 8935); `poll`: it fetches them (RFC 8936). */
  readonly delivery?: "push" | "poll";
  /** The RFC 9967 event URIs to send, in the receiver's `form` where a URI has two; empty or absent: every one. */
  readonly events?: readonly (
    | "urn:ietf:params:scim:event:prov:create:full"
    | "urn:ietf:params:scim:event:prov:create:notice"
    | "urn:ietf:params:scim:event:prov:put:full"
    | "urn:ietf:params:scim:event:prov:put:notice"
    | "urn:ietf:params:scim:event:prov:patch:full"
    | "urn:ietf:params:scim:event:prov:patch:notice"
    | "urn:ietf:params:scim:event:prov:delete"
    | "urn:ietf:params:scim:event:prov:activate"
    | "urn:ietf:params:scim:event:prov:deactivate"
  )[];
  /** `notice` (default): what changed, no values; `full`: the resource. */
  readonly form?: "full" | "notice";
  /** The `aud` claim of its SETs (RFC 8417 §2.2). Default: `url`. */
  readonly audience?: string;
  /** Push: the `Authorization` header value to send with each SET, if the receiver wants one. Poll (required): the value the receiver must send to poll. Printable ASCII; never shown again, nor written to the audit trail. */
  readonly authorization?: string;
  /** A name for it, e.g. `SIEM`; 1–200 characters. */
  readonly label?: string;
  /** `now` (default): the events recorded from now on; `beginning`: every event the outbox still keeps. */
  readonly start?: "now" | "beginning";
}

/** A learner: a User provisioned through SCIM into one organization. */
export interface User {
  /** The SCIM resource id. */
  readonly id: string;
  readonly organizationId: OrganizationId;
  /** SCIM `userName`. */
  readonly userName: string;
  /** SCIM `displayName`, else the formatted or given and family name; absent when none. */
  readonly displayName?: string;
  /** The primary e-mail, else the first work e-mail, else the first; absent when none. */
  readonly email?: string;
  /** SCIM `active` (absent in SCIM counts as true). */
  readonly active: boolean;
  /** The enterprise extension's `department`, when set. */
  readonly department?: string;
  /** An ISO 8601 time in UTC. */
  readonly createdAt: string;
  /** An ISO 8601 time in UTC. */
  readonly updatedAt: string;
}

/** A page of learners, by organization and id. */
export interface UserList {
  readonly data: readonly User[];
  /** Pass as `cursor` (with the same filters) for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

/** A training campaign of one organization. */
export interface Campaign {
  /** A service-assigned id (UUID v7). */
  readonly id: string;
  readonly organizationId: OrganizationId;
  readonly name: string;
  readonly description?: string;
  /** An ISO 8601 time in UTC. */
  readonly startsAt: string;
  /** An unfinished enrolment past this time is overdue; absent: never overdue. */
  readonly dueAt?: string;
  /** An ISO 8601 time in UTC. */
  readonly createdAt: string;
}

/** A page of campaigns, by id. */
export interface CampaignList {
  readonly data: readonly Campaign[];
  /** Pass as `cursor` (with the same filters) for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

/** A campaign's figures, computed when asked (`asOf`). */
export interface CampaignSummary {
  /** A service-assigned id (UUID v7). */
  readonly campaignId: string;
  /** Learners enrolled. */
  readonly enrolled: number;
  /** Enrolled learners with no progress yet. */
  readonly notStarted: number;
  /** Learners who started and have not completed. */
  readonly inProgress: number;
  /** Learners who completed. */
  readonly completed: number;
  /** Learners who have not completed although the campaign is past its due time. */
  readonly overdue: number;
  /** completed / enrolled, rounded to 4 decimals; 0 when nobody is enrolled. */
  readonly completionRate: number;
  /** Mean score of the scored enrolments, 2 decimals; null when none is scored. */
  readonly averageScore: number | null;
  /** An ISO 8601 time in UTC. */
  readonly asOf: string;
}

/** The figures of an organization — and, with `subtree=true`, of each of its descendants the caller may see — aggregated by the store, each row naming its organization, with their sums. */
export interface OrganizationSummary {
  readonly organizationId: OrganizationId;
  /** One row per organization, by id. */
  readonly organizations: readonly {
    readonly organizationId: OrganizationId;
    /** Learners (SCIM users). */
    readonly learners: number;
    /** Of them, active. */
    readonly activeLearners: number;
    /** Enrolments in its training campaigns. */
    readonly enrolled: number;
    /** Of them, completed. */
    readonly completed: number;
    /** Of them, not completed and past the campaign's due time. */
    readonly overdue: number;
    /** Recipients of its attack simulations that were sent the lure. */
    readonly sent: number;
    /** Of them, clicked. */
    readonly clicked: number;
    /** Of them, reported it. */
    readonly reported: number;
  }[];
  readonly totals: {
    /** Learners (SCIM users). */
    readonly learners: number;
    /** Of them, active. */
    readonly activeLearners: number;
    /** Enrolments in its training campaigns. */
    readonly enrolled: number;
    /** Of them, completed. */
    readonly completed: number;
    /** Of them, not completed and past the campaign's due time. */
    readonly overdue: number;
    /** Recipients of its attack simulations that were sent the lure. */
    readonly sent: number;
    /** Of them, clicked. */
    readonly clicked: number;
    /** Of them, reported it. */
    readonly reported: number;
  };
  /** With `people=true`: the learners counted as people — one person provisioned into several of these organizations counts once, matched by work e-mail (the first `emails` entry of type `work`, case-insensitively); a learner without a work e-mail counts alone. */
  readonly people?: {
    /** Distinct people. */
    readonly learners: number;
    /** Distinct people active in at least one of them. */
    readonly activeLearners: number;
  };
  /** An ISO 8601 time in UTC. */
  readonly asOf: string;
}

/** One learner's enrolment in a campaign. */
export interface CampaignUser {
  /** A service-assigned id (UUID v7). */
  readonly campaignId: string;
  /** The learner's SCIM id. */
  readonly userId: string;
  /** The learner; absent once it was deleted through SCIM. */
  readonly user?: User;
  readonly status: "not_started" | "in_progress" | "completed";
  readonly progressPercent: number;
  /** Absent until scored. */
  readonly score?: number;
  /** An ISO 8601 time in UTC. */
  readonly enrolledAt: string;
  /** The first progress; absent while not started. */
  readonly startedAt?: string;
  /** Absent until completed. */
  readonly completedAt?: string;
  /** An ISO 8601 time in UTC. */
  readonly updatedAt: string;
  /** Not completed and past the campaign's due time, now. */
  readonly overdue: boolean;
}

/** A page of a campaign's enrolments, by user id. */
export interface CampaignUserList {
  readonly data: readonly CampaignUser[];
  /** Pass as `cursor` (with the same filters) for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

/** An attack simulation's figures: distinct recipients who did each thing, and the rates. */
export interface SimulationSummary {
  /** A service-assigned id (UUID v7). */
  readonly simulationId: string;
  /** Recipients the lure was sent to. */
  readonly sent: number;
  /** Recipients it was delivered to. */
  readonly delivered: number;
  /** Recipients who opened it. */
  readonly opened: number;
  /** Recipients who clicked its link. */
  readonly clicked: number;
  /** Recipients who submitted data on the landing page. */
  readonly submittedData: number;
  /** Recipients who reported it as phishing. */
  readonly reported: number;
  /** Each count divided by `sent`, rounded to 4 decimals; 0 when nothing was sent. */
  readonly rates: {
    /** delivered / sent */
    readonly delivered: number;
    /** opened / sent */
    readonly opened: number;
    /** clicked / sent */
    readonly clicked: number;
    /** submittedData / sent */
    readonly submittedData: number;
    /** reported / sent */
    readonly reported: number;
  };
}

/** One recipient of a simulation: the first time it did each thing; absent when it did not. */
export interface SimulationUser {
  /** A service-assigned id (UUID v7). */
  readonly simulationId: string;
  /** The learner's SCIM id. */
  readonly userId: string;
  /** The learner; absent once it was deleted through SCIM. */
  readonly user?: User;
  /** When the lure was sent. */
  readonly sentAt?: string;
  /** When it was delivered. */
  readonly deliveredAt?: string;
  /** When it was first opened. */
  readonly openedAt?: string;
  /** When its link was first clicked. */
  readonly clickedAt?: string;
  /** When data was first submitted. */
  readonly submittedDataAt?: string;
  /** When it was first reported. */
  readonly reportedAt?: string;
}

/** A page of a simulation's recipients, by user id. */
export interface SimulationUserList {
  readonly data: readonly SimulationUser[];
  /** Pass as `cursor` (with the same filters) for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

/** A learner's comment on a campaign or a simulation. */
export interface FeedbackComment {
  /** A service-assigned id (UUID v7). */
  readonly id: string;
  readonly subject: {
    readonly kind: "campaign" | "simulation";
    /** A service-assigned id (UUID v7). */
    readonly id: string;
  };
  /** The learner's SCIM id. */
  readonly userId: string;
  /** 1–5, when given. */
  readonly rating?: number;
  readonly comment: string;
  /** An ISO 8601 time in UTC. */
  readonly createdAt: string;
}

/** A page of comments, oldest first. */
export interface FeedbackCommentList {
  readonly data: readonly FeedbackComment[];
  /** Pass as `cursor` (with the same filters) for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

/** A long-running request, e.g. a bulk report. Poll it until `status` is `succeeded` or `failed`. */
export interface Operation {
  /** A service-assigned id (UUID v7). */
  readonly id: string;
  /** `campaign-users-report`, `simulation-users-report` or `organization-users-report`. */
  readonly kind: string;
  readonly organizationId: OrganizationId;
  /** The campaign or simulation it reports on (a UUID), or the organization of an `organization-users-report`. */
  readonly subjectId: string | OrganizationId;
  readonly status: "queued" | "running" | "succeeded" | "failed";
  readonly progress: {
    /** Rows written so far. */
    readonly done: number;
    /** Rows in all, once known. */
    readonly total?: number;
  };
  /** An ISO 8601 time in UTC. */
  readonly createdAt: string;
  /** When work began. */
  readonly startedAt?: string;
  /** When it succeeded or failed. */
  readonly finishedAt?: string;
  /** Why it failed, for a person; only when `failed`. */
  readonly error?: string;
  readonly links: {
    /** Where to poll it. */
    readonly self: string;
    /** The report as a JSON array; only once `succeeded`. */
    readonly result?: string;
    /** The report as CSV; only once `succeeded`. */
    readonly resultCsv?: string;
  };
}

/** The operation that will produce the result; poll its `links.self`. */
export interface OperationAccepted {
  readonly operation: Operation;
}

/** The report, one flat object per row, in the order of the report's columns. */
export type ReportRows = readonly Readonly<Record<string, string | number | boolean | null>>[];

/** RFC 4180 CSV with a header line; cells starting with = + - @ are prefixed with ' so spreadsheets do not run them as formulas. */
export type ReportCsv = string;

/** A SCIM user of the organization, with the attributes a person recognises it by. */
export interface DirectoryUser {
  /** The SCIM resource id. */
  readonly id: string;
  /** SCIM `userName`. */
  readonly userName: string;
  /** SCIM `displayName`, when set. */
  readonly displayName?: string;
  /** SCIM `externalId`: the identity provider's id for it, when set. */
  readonly externalId?: string;
  /** SCIM `active` (absent in SCIM counts as true). */
  readonly active: boolean;
  /** SCIM `name`, as stored, when set. */
  readonly name?: Readonly<Record<string, unknown>>;
  /** SCIM `emails`, as stored, when set. */
  readonly emails?: readonly unknown[];
}

/** A page of an organization's SCIM users, by id. */
export interface DirectoryUserList {
  readonly data: readonly DirectoryUser[];
  /** Pass as `cursor` (with the same filters) for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

/** A SCIM user as stored: every attribute the identity provider wrote (open-ended, as its schemas are; never `password`), `id`, `meta`, and `groups`, the groups that list it as a direct member. */
export interface DirectoryUserDetail {
  /** The SCIM resource id. */
  readonly id: string;
  readonly userName: string;
  readonly meta: {
    readonly resourceType: "User";
    /** An ISO 8601 time in UTC. */
    readonly created: string;
    /** An ISO 8601 time in UTC. */
    readonly lastModified: string;
    /** The SCIM `meta.version` (a weak ETag). */
    readonly version: string;
  };
  /** By group id. */
  readonly groups: readonly {
    /** The SCIM resource id. */
    readonly id: string;
    readonly displayName?: string;
  }[];
  readonly [member: string]: unknown;
}

/** A SCIM group of the organization and how many direct members it has. */
export interface DirectoryGroup {
  /** The SCIM resource id. */
  readonly id: string;
  /** SCIM `displayName`, when set. */
  readonly displayName?: string;
  /** SCIM `externalId`, when set. */
  readonly externalId?: string;
  /** Direct members, users and nested groups. */
  readonly memberCount: number;
}

/** A page of an organization's SCIM groups, by id. */
export interface DirectoryGroupList {
  readonly data: readonly DirectoryGroup[];
  /** Pass as `cursor` (with the same filters) for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

/** A direct member of a group. */
export interface DirectoryMember {
  /** The member's SCIM id (`members.value`). */
  readonly id: string;
  /** `User` or `Group`. */
  readonly type: string;
  /** The member's `displayName`, when it has one. */
  readonly display?: string;
  /** A user member's `userName`. */
  readonly userName?: string;
}

/** A page of a group's members, by member id. */
export interface DirectoryMemberList {
  readonly data: readonly DirectoryMember[];
  /** Pass as `cursor` (with the same filters) for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

/** A campaign's completed enrolments per UTC day, and how many are enrolled. */
export interface CompletionTimeline {
  /** The days with at least one completion, oldest first. */
  readonly data: readonly {
    /** The UTC day, `YYYY-MM-DD`. */
    readonly date: string;
    /** Enrolments completed that day. */
    readonly completed: number;
    /** Enrolments completed up to and including that day. */
    readonly cumulative: number;
  }[];
  /** Enrolments in all. */
  readonly enrolled: number;
}

/** An RFC 9457 problem. Branch on `type`; `detail` says what to do, for a person. */
export interface Problem {
  /** A stable URI identifying the kind of problem. */
  readonly type: string;
  /** A short summary of the kind of problem. */
  readonly title: string;
  /** The HTTP status. */
  readonly status: number;
  /** What went wrong with this request and how to fix it. */
  readonly detail: string;
  /** With `invalid-request`: every invalid field. */
  readonly errors?: readonly {
    /** A JSON pointer into the body (RFC 6901), or the name of a query parameter. */
    readonly field: string;
    readonly message: string;
  }[];
}
