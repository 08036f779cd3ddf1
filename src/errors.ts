/**
 * The one error class of scimkit. Core parsers return `Result` values carrying a `ScimError`;
 * the HTTP layer throws it and renders it in a single place as the RFC 7644 §3.12 error body.
 */

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
  /** The RFC 6750 §3.1 error code. */
  readonly error: "invalid_token" | "insufficient_scope";
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

/** A 400 error with the given `scimType` — the shape of nearly every protocol error. */
export function badRequest(scimType: ScimType, detail: string): ScimError {
  return new ScimError(400, scimType, detail);
}

/** Folds validation issues into one 400 `invalidValue` whose detail names every path. */
export function invalidValueError(issues: readonly ValidationIssue[]): ScimError {
  const detail = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
  return new ScimError(400, ScimType.invalidValue, detail, issues);
}

/** Narrows an unknown thrown value. */
export function isScimError(value: unknown): value is ScimError {
  return value instanceof ScimError;
}
