/**
 * The one error class of the analytics interface: an RFC 9457 problem. The router renders it as
 * `application/problem+json`; the recorder throws it for invalid input, so a host sees the same
 * `type` and field names whether it records through code or reads over HTTP.
 */

/** One invalid input, located by its field name (e.g. `"progressPercent"`, `"dueAt"`). */
export interface ProblemFieldError {
  /** The field, as the caller named it. */
  readonly field: string;
  /** What is wrong with it, for a person. */
  readonly message: string;
}

/**
 * The stable problem `type` URIs (RFC 9457 §3.1.1). Clients branch on these, never on `title`
 * or `detail`, so they must not change once published.
 */
export const ProblemType = {
  invalidRequest: "https://scimkit.dev/problems/invalid-request",
  unauthorized: "https://scimkit.dev/problems/unauthorized",
  forbidden: "https://scimkit.dev/problems/forbidden",
  notFound: "https://scimkit.dev/problems/not-found",
  conflict: "https://scimkit.dev/problems/conflict",
  invalidCursor: "https://scimkit.dev/problems/invalid-cursor",
  malformedRequest: "https://scimkit.dev/problems/malformed-request",
  unsupportedMediaType: "https://scimkit.dev/problems/unsupported-media-type",
  payloadTooLarge: "https://scimkit.dev/problems/payload-too-large",
  unknownEndpoint: "https://scimkit.dev/problems/unknown-endpoint",
  methodNotAllowed: "https://scimkit.dev/problems/method-not-allowed",
  operationNotFinished: "https://scimkit.dev/problems/operation-not-finished",
  notImplemented: "https://scimkit.dev/problems/not-implemented",
  rateLimited: "https://scimkit.dev/problems/rate-limited",
  reportLimit: "https://scimkit.dev/problems/report-limit",
  unavailable: "https://scimkit.dev/problems/unavailable",
  internal: "https://scimkit.dev/problems/internal",
} as const;

export type ProblemType = (typeof ProblemType)[keyof typeof ProblemType];

/** The fields of a problem, as its JSON body carries them (RFC 9457 §3.1). */
export interface ProblemDetails {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  /** Every invalid field behind an `invalid-request` problem. */
  readonly errors?: readonly ProblemFieldError[];
}

/** What a problem may carry besides its body: seconds for `Retry-After` (RFC 9110 §10.2.3). */
export interface ProblemExtras {
  readonly retryAfter?: number;
}

/** An RFC 9457 problem: thrown by the analytics code, rendered once by the router. */
export class AnalyticsProblem extends Error implements ProblemDetails {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly errors?: readonly ProblemFieldError[];
  /** Seconds the client should wait before retrying, sent as `Retry-After`; not part of the body. */
  readonly retryAfter?: number;

  constructor(details: ProblemDetails, extras: ProblemExtras = {}) {
    super(details.detail);
    this.name = "AnalyticsProblem";
    this.type = details.type;
    this.title = details.title;
    this.status = details.status;
    this.detail = details.detail;
    if (details.errors !== undefined) this.errors = details.errors;
    if (extras.retryAfter !== undefined) this.retryAfter = extras.retryAfter;
  }

  /** The problem+json body. */
  toJSON(): ProblemDetails {
    return {
      type: this.type,
      title: this.title,
      status: this.status,
      detail: this.detail,
      ...(this.errors === undefined ? {} : { errors: this.errors }),
    };
  }
}

/** Whether `value` is an `AnalyticsProblem`. */
export function isAnalyticsProblem(value: unknown): value is AnalyticsProblem {
  return value instanceof AnalyticsProblem;
}

/** 400: the input is invalid; `errors` names every invalid field. */
export function invalidRequest(errors: readonly ProblemFieldError[]): AnalyticsProblem {
  // The root of a body is the empty JSON pointer (RFC 6901 §5), which reads badly on its own.
  const detail = errors.map((error) => `${error.field === "" ? "the request body" : error.field}: ${error.message}`).join("; ");
  return new AnalyticsProblem({ type: ProblemType.invalidRequest, title: "Invalid request", status: 400, detail, errors });
}

/** 404: nothing of that id exists in the caller's scope (another organization's data included). */
export function notFound(detail: string): AnalyticsProblem {
  return new AnalyticsProblem({ type: ProblemType.notFound, title: "Not found", status: 404, detail });
}

/** 409: the request clashes with the current state, e.g. an e-mail already invited. */
export function conflict(detail: string): AnalyticsProblem {
  return new AnalyticsProblem({ type: ProblemType.conflict, title: "Conflict", status: 409, detail });
}

/** 401: no valid API key; one body for every failure, so it reveals nothing. */
export function unauthorized(): AnalyticsProblem {
  return new AnalyticsProblem({
    type: ProblemType.unauthorized,
    title: "Unauthorized",
    status: 401,
    detail: "Authentication failed: send Authorization: Bearer <key> with an analytics API key.",
  });
}

/** 403: a known caller lacks the right, e.g. a viewer writing or an admin deleting an organization. */
export function forbidden(detail: string): AnalyticsProblem {
  return new AnalyticsProblem({ type: ProblemType.forbidden, title: "Forbidden", status: 403, detail });
}

/** 400: a `cursor` that this service did not issue for this very query (edited, or replayed with other filters). */
export function invalidCursor(): AnalyticsProblem {
  return new AnalyticsProblem({
    type: ProblemType.invalidCursor,
    title: "Invalid cursor",
    status: 400,
    detail:
      "The cursor is not valid for this query: pass back the nextCursor of the previous page with the same filters, or leave cursor out to start again.",
  });
}

/** 400: the request could not be read at all (a body that is not JSON, a broken %-escape). */
export function malformedRequest(detail: string): AnalyticsProblem {
  return new AnalyticsProblem({ type: ProblemType.malformedRequest, title: "Malformed request", status: 400, detail });
}

/** 415: a body in a media type the operation does not read. */
export function unsupportedMediaType(detail: string): AnalyticsProblem {
  return new AnalyticsProblem({ type: ProblemType.unsupportedMediaType, title: "Unsupported media type", status: 415, detail });
}

/** 413: a body over the router's limit. */
export function payloadTooLarge(detail: string): AnalyticsProblem {
  return new AnalyticsProblem({ type: ProblemType.payloadTooLarge, title: "Payload too large", status: 413, detail });
}

/** 404: no operation of the interface has this path (as opposed to `notFound`: no such resource). */
export function unknownEndpoint(method: string, path: string): AnalyticsProblem {
  return new AnalyticsProblem({
    type: ProblemType.unknownEndpoint,
    title: "Unknown endpoint",
    status: 404,
    detail: `There is no analytics endpoint ${method} ${path}; the operations are listed in GET /openapi.json.`,
  });
}

/** 405: the path exists but not with this method (RFC 9110 §15.5.6; the router sets `Allow`). */
export function methodNotAllowed(method: string, path: string, allowed: readonly string[]): AnalyticsProblem {
  return new AnalyticsProblem({
    type: ProblemType.methodNotAllowed,
    title: "Method not allowed",
    status: 405,
    detail: `${path} does not take ${method}; it takes ${allowed.join(", ")}.`,
  });
}

/** 409: the result of an operation was asked for before the operation succeeded. */
export function operationNotFinished(detail: string): AnalyticsProblem {
  return new AnalyticsProblem({ type: ProblemType.operationNotFinished, title: "Operation not finished", status: 409, detail });
}

/** 500: anything unexpected; the cause goes to the host's `onError`, never to the client. */
export function internalProblem(): AnalyticsProblem {
  return new AnalyticsProblem({
    type: ProblemType.internal,
    title: "Internal error",
    status: 500,
    detail: "The service failed to handle the request. It has been reported; retry later.",
  });
}

/** 503: the store cannot reach its database for now; `retryAfter` seconds become `Retry-After`. */
export function serviceUnavailable(detail: string, retryAfter: number): AnalyticsProblem {
  return new AnalyticsProblem({ type: ProblemType.unavailable, title: "Service unavailable", status: 503, detail }, { retryAfter });
}

/** 429: the caller's key sent more requests than the host's rate limit allows; retry after `retryAfter` seconds. */
export function rateLimited(retryAfter: number): AnalyticsProblem {
  return new AnalyticsProblem(
    {
      type: ProblemType.rateLimited,
      title: "Too many requests",
      status: 429,
      detail: `This API key has sent more requests than the service allows; retry in ${String(retryAfter)} seconds.`,
    },
    { retryAfter },
  );
}

/**
 * 429 (RFC 6585 §4): the organization is at one of its report bounds — reports at once, or report
 * rows kept — so no report is started; `detail` says which and what to do, `retryAfter` seconds
 * become `Retry-After` (RFC 9110 §10.2.3).
 */
export function reportLimit(detail: string, retryAfter: number): AnalyticsProblem {
  return new AnalyticsProblem({ type: ProblemType.reportLimit, title: "Report limit reached", status: 429, detail }, { retryAfter });
}

/** 501: the host has not configured what the operation needs (e.g. no invitation hook). */
export function notImplemented(detail: string): AnalyticsProblem {
  return new AnalyticsProblem({ type: ProblemType.notImplemented, title: "Not implemented", status: 501, detail });
}
