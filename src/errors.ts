/**
 * The registry of scimkit's SCIM errors (RFC 7644 §3.12): `SCIM_ERRORS` names every status and
 * `scimType` pair the library answers with, `scimError` builds one by its code, and `ScimError`
 * carries it. Nothing else in the library constructs a `ScimError` (test/error-registries.test.ts
 * holds it to that): core parsers return them in a `Result`, the HTTP layer and the stores throw
 * them — the stores' shared refusals through `src/store/store-errors.ts`, a lost database through
 * `databaseUnavailableError` — and one renderer writes them, `errorHandler` and `scimErrorHandler`
 * (src/http/error-rendering/error-handler.ts), as the §3.12 body; a bulk response embeds the same
 * body per failed operation (RFC 7644 §3.7.3).
 *
 * The library's other wire format of errors is OAuth 2.0 (RFC 6749 §5.2, RFC 6750 §3.1), with its
 * own registry in src/oauth-errors.ts. (The RFC 8936 poll endpoint answers its few refusals in the
 * SET error format, `{"err", "description"}`, where it reads the poll: security-event-poll-endpoint.ts.)
 *
 * The library's errors that never reach a wire as themselves, each caught and translated:
 * - `FilterSyntaxError` and `FilterBindingError` (src/scim/filter): the filter parser's internal
 *   signals, returned as `invalidFilter`.
 * - `TokenVerificationUnavailableError` (src/auth): a verifier cannot check tokens for now;
 *   answered as `unavailable` (503 with `Retry-After`). `TokenRefusedError` is named in the OAuth registry.
 * - `OutboundAddressRefusedError` (src/outbound): a receiver's address is forbidden; recorded as a
 *   push failure, or refused as an `InvalidEventReceiverError`.
 * - `InvalidEventReceiverError` (src/events): a receiver registration refused; the service words
 *   it for its own callers (a problem, a CLI usage error).
 * - `RequestLogOverflowError` (src/store/sql/request-log): entries the provisioning log dropped;
 *   handed to the operator's `onError`, never to a client.
 */
import type { BearerErrorCode } from "./oauth-errors.js";

/** The error response schema URN (RFC 7644 §3.12). */
export const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";

/** The `scimType` values of RFC 7644 §3.12 Table 9, plus `invalidCursor` of RFC 9865 §2.4. */
export const ScimType = {
  invalidFilter: "invalidFilter",
  tooMany: "tooMany",
  uniqueness: "uniqueness",
  mutability: "mutability",
  invalidSyntax: "invalidSyntax",
  invalidPath: "invalidPath",
  noTarget: "noTarget",
  invalidValue: "invalidValue",
  invalidVers: "invalidVers",
  sensitive: "sensitive",
  invalidCursor: "invalidCursor",
} as const;

export type ScimType = (typeof ScimType)[keyof typeof ScimType];

/** A SCIM error of the registry: the HTTP status and the `scimType` it is answered with. */
export interface ScimErrorDefinition {
  readonly status: number;
  /** Absent: the body has none (RFC 7644 §3.12 defines them for 400 errors, and §3.3 gives 409 `uniqueness`). */
  readonly scimType?: ScimType;
}

const definitions = {
  // 400 with a scimType of RFC 7644 §3.12 Table 9: the request cannot be applied as sent.
  /** A filter that does not parse, names an unknown attribute or compares it wrongly. */
  invalidFilter: { status: 400, scimType: ScimType.invalidFilter },
  /** Not answered by scimkit itself (lists are paged, never refused as too large); a hook may `badRequest` it. */
  tooMany: { status: 400, scimType: ScimType.tooMany },
  /** A body, parameter or URL that does not read as the request it claims to be. */
  invalidSyntax: { status: 400, scimType: ScimType.invalidSyntax },
  /** A PATCH path that does not parse or names nothing of the schema. */
  invalidPath: { status: 400, scimType: ScimType.invalidPath },
  /** A PATCH path whose filter matches nothing to act on (RFC 7644 §3.5.2). */
  noTarget: { status: 400, scimType: ScimType.noTarget },
  /** A value missing, of the wrong type or out of bounds; `issues` names each path. */
  invalidValue: { status: 400, scimType: ScimType.invalidValue },
  /** Not answered by scimkit itself (a stale version is 412, RFC 7644 §3.14); a hook may `badRequest` it. */
  invalidVers: { status: 400, scimType: ScimType.invalidVers },
  /** Not answered by scimkit itself; a hook may `badRequest` it (RFC 7644 §7.5.2: no secrets in URLs). */
  sensitive: { status: 400, scimType: ScimType.sensitive },
  /** A change of a readOnly or immutable attribute (RFC 7644 §3.5.2). */
  mutability: { status: 400, scimType: ScimType.mutability },
  /** A cursor this service did not issue, or issued for another query (RFC 9865 §2.4). */
  invalidCursor: { status: 400, scimType: ScimType.invalidCursor },
  /** A bulkId used twice in one bulk request (RFC 7644 §3.7: a bulkId names one operation). */
  duplicateBulkId: { status: 400, scimType: ScimType.uniqueness },
  /** No credentials, or a token the verifier refused (RFC 7644 §2; RFC 6750 §3.1 `invalid_token`). */
  unauthorized: { status: 401 },
  /** A valid token without the scope needed (RFC 6750 §3.1 `insufficient_scope`), or a request this endpoint refuses. */
  forbidden: { status: 403 },
  /** No such resource, organization or endpoint. */
  notFound: { status: 404 },
  /** A bulk operation whose method does not fit its path. */
  methodNotAllowed: { status: 405 },
  /** A value another resource of the organization holds (RFC 7644 §3.3). */
  uniqueness: { status: 409, scimType: ScimType.uniqueness },
  /** A bulk operation naming a bulkId no successful POST created, or a cycle of them (RFC 7644 §3.7.1). */
  unresolvedBulkId: { status: 409, scimType: ScimType.invalidValue },
  /** The resource's version is not the one `If-Match` names (RFC 7644 §3.14). */
  preconditionFailed: { status: 412 },
  /** A body, a bulk or PATCH request, or a membership over the service's bounds (RFC 7644 §3.7.4). */
  payloadTooLarge: { status: 413 },
  /** A body in a media type, charset or encoding the service does not read. */
  unsupportedMediaType: { status: 415 },
  /** Over the organization's rate or fair share; with `Retry-After` (RFC 6585 §4). */
  tooManyRequests: { status: 429 },
  /** Anything unexpected; its cause goes to the operator's `onError`, never to the client. */
  internal: { status: 500 },
  /** A resource type the store does not keep (RFC 7644 §3.12: an operation the service does not support). */
  notImplemented: { status: 501 },
  /** The database, the token verifier's keys or the client are gone for now; with `Retry-After` (RFC 9110 §15.6.4). */
  unavailable: { status: 503 },
} as const satisfies Record<string, ScimErrorDefinition>;

/** The name of a SCIM error of the registry. */
export type ScimErrorCode = keyof typeof definitions;

/** Every SCIM error scimkit answers with, by code: the one place to find them. */
export const SCIM_ERRORS: Readonly<Record<ScimErrorCode, ScimErrorDefinition>> = definitions;

/** One problem found while validating a resource, located by an attribute path such as `emails[0].value`. */
export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
}

/** The JSON body of a SCIM error response (RFC 7644 §3.12): `status` is a string there. */
export interface ScimErrorBody {
  readonly schemas: readonly [typeof ERROR_SCHEMA];
  readonly status: string;
  readonly scimType?: ScimType;
  readonly detail: string;
}

/** What a `ScimError` carries besides its body. */
export interface ScimErrorOptions {
  /**
   * Whole seconds after which the client may try again, sent as `Retry-After` (RFC 9110 §10.2.3)
   * with a 429 or 503. Absent: no header.
   */
  readonly retryAfter?: number;
  /**
   * The RFC 6750 §3 error of a refused bearer token, sent in `WWW-Authenticate` with a 401 or 403:
   * `error` is `invalid_token` or `insufficient_scope`, `description` becomes `error_description`,
   * `scope` the scope a request needs. Absent: a 401 gets the bare `Bearer realm="SCIM"` challenge.
   */
  readonly bearerError?: BearerError;
}

/** What `WWW-Authenticate` says of a refused bearer token (RFC 6750 §3). */
export interface BearerError {
  /** The RFC 6750 §3.1 error code (src/oauth-errors.ts). */
  readonly error: BearerErrorCode;
  /** `error_description`: a sentence for the client's developer. */
  readonly description: string;
  /** `scope`: the scope the request needs, space-separated; for `insufficient_scope`. */
  readonly scope?: string;
}

/** A SCIM protocol error: an HTTP status, an optional RFC 7644 §3.12 `scimType` and a human `detail`. */
export class ScimError extends Error {
  readonly status: number;
  readonly scimType: ScimType | undefined;
  readonly detail: string;
  /** Every validation problem behind an `invalidValue` error, each with its attribute path. */
  readonly issues: readonly ValidationIssue[];
  /** Seconds for `Retry-After`, when the client should wait before retrying (429, 503). */
  readonly retryAfter: number | undefined;
  /** The RFC 6750 §3 error of a refused bearer token, for `WWW-Authenticate`; see `ScimErrorOptions`. */
  readonly bearerError: BearerError | undefined;

  constructor(
    status: number,
    scimType: ScimType | undefined,
    detail: string,
    issues: readonly ValidationIssue[] = [],
    options: ScimErrorOptions = {},
  ) {
    super(detail);
    this.name = "ScimError";
    this.status = status;
    this.scimType = scimType;
    this.detail = detail;
    this.issues = issues;
    this.retryAfter = options.retryAfter;
    this.bearerError = options.bearerError;
  }

  /** The RFC 7644 §3.12 body for this error. */
  toJSON(): ScimErrorBody {
    return {
      schemas: [ERROR_SCHEMA],
      status: String(this.status),
      ...(this.scimType === undefined ? {} : { scimType: this.scimType }),
      detail: this.detail,
    };
  }
}

/** What `scimError` takes besides the code and the detail. */
export interface ScimErrorExtras extends ScimErrorOptions {
  /** Every validation problem behind an `invalidValue`, each with its attribute path. */
  readonly issues?: readonly ValidationIssue[];
}

/**
 * The SCIM error `code` of the registry, with `detail` for the client: a sentence that says what to
 * change, and reveals nothing of other organizations or of the service's insides.
 *
 * @example throw scimError("notFound", `User ${JSON.stringify(id)} not found.`)
 * @example throw scimError("tooManyRequests", "Too many requests for this organization; retry after 2 seconds.", { retryAfter: 2 })
 */
export function scimError(code: ScimErrorCode, detail: string, extras: ScimErrorExtras = {}): ScimError {
  const { status, scimType } = SCIM_ERRORS[code];
  const { issues = [], ...options } = extras;
  return new ScimError(status, scimType, detail, issues, options);
}

/** The same error with another detail, e.g. prefixed by where it arose (`Operations[2]: …`). */
export function restated(error: ScimError, detail: string): ScimError {
  return new ScimError(error.status, error.scimType, detail, error.issues, {
    ...(error.retryAfter === undefined ? {} : { retryAfter: error.retryAfter }),
    ...(error.bearerError === undefined ? {} : { bearerError: error.bearerError }),
  });
}

/** A 400 error with the given `scimType` — the shape of nearly every protocol error. */
export function badRequest(scimType: ScimType, detail: string): ScimError {
  // Every Table 9 type has its 400 code in the registry (uniqueness's is `duplicateBulkId`).
  return new ScimError(400, scimType, detail);
}

/** Folds validation issues into one 400 `invalidValue` whose detail names every path. */
export function invalidValueError(issues: readonly ValidationIssue[]): ScimError {
  const detail = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
  return scimError("invalidValue", detail, { issues });
}

/**
 * A request Express or its body parser could not read, as `RequestError` (src/http/error-rendering)
 * reads it: 400 `invalidSyntax`, 413 or 415 by its status. Any other 4xx that http-errors marked as
 * safe to show keeps its status, without a scimType — the one status outside the registry's table,
 * since it is Express's, not scimkit's.
 */
export function unreadableRequestError(status: number, detail: string): ScimError {
  if (status === 400) return scimError("invalidSyntax", detail);
  if (status === 413) return scimError("payloadTooLarge", detail);
  if (status === 415) return scimError("unsupportedMediaType", detail);
  return new ScimError(status, undefined, detail);
}

/** Narrows an unknown thrown value. */
export function isScimError(value: unknown): value is ScimError {
  return value instanceof ScimError;
}
