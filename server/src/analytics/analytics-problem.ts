/**
 * The registry of the service's problems (RFC 9457): `PROBLEMS` names every problem the analytics
 * interface answers with — its stable `type`, `title` and status — `problem` builds one by its code
 * (the named constructors below word the common ones), and `AnalyticsProblem` carries it; nothing
 * else constructs one (server/test/error-registries.test.ts holds the service to that). The router
 * renders them in one place, `problemHandler` (problem-handler.ts), as `application/problem+json`;
 * the recorder throws them for invalid input, so a host sees the same `type` and field names
 * whether it records through code or reads over HTTP. Which statuses each operation can answer is
 * documented from its traits in definitions/problem-statuses.ts.
 *
 * The host's last handlers (src/host/host-fallback.ts) answer what no surface rendered — a path
 * nobody serves, a request Express could not read — as problems without a type of their own
 * (`about:blank`, RFC 9457 §4.2.1), titled by the status.
 *
 * The service's errors that never reach a wire as themselves, each caught and translated:
 * - `analyticsConflictError` (`code: "conflict"`): a store's unique value taken (an admin user's
 *   e-mail); the admin user routes answer `conflict`.
 * - `organizationTreeError` (`code: "organization-tree"`): a store's refusal of a tree change;
 *   the organization routes answer `invalidRequest` for an unknown parent and `conflict` for the
 *   rest, the CLI a failure.
 * - `refuseGrantsBeyond` (`code: "grant-beyond-scope"`): a store's refusal of a grant beyond the
 *   grantor's own; the admin user routes answer `invalidRequest` naming each grant.
 * - `ClaimLost` (run-report-operation.ts): another host took over a report job; the job stops.
 * - The library's `ScimError` of a lost database (503) becomes `unavailable`; its
 *   `InvalidEventReceiverError` becomes `invalidRequest`, or `conflict` at a quota.
 * - `ApiError` (console/src/api-client.ts): the console's reading of a problem it was answered.
 * - `ChannelRefusal` (host/regions/region-move-channel.ts): the region channel's refusal of a
 *   peer's call during a move, answered there as `{ status, detail }` JSON to that peer's host,
 *   which records the `detail` as the move's last error.
 * The CLI's errors have their own registry, src/host/commands/command-error.ts.
 */

/** One invalid input, located by its field name (e.g. `"progressPercent"`, `"dueAt"`). */
export interface ProblemFieldError {
  /** The field, as the caller named it. */
  readonly field: string;
  /** What is wrong with it, for a person. */
  readonly message: string;
}

/** A problem of the registry: what its body says of every instance. */
export interface ProblemDefinition {
  /**
   * The stable `type` URI (RFC 9457 §3.1.1). Clients branch on it, never on `title` or `detail`,
   * so it must not change once published.
   */
  readonly type: string;
  /** A short summary of the kind of problem (RFC 9457 §3.1.3), the same for every instance. */
  readonly title: string;
  /** The HTTP status. */
  readonly status: number;
}

const definitions = {
  /** The input is invalid; `errors` names every invalid field or parameter. */
  invalidRequest: { type: "https://scimkit.dev/problems/invalid-request", title: "Invalid request", status: 400 },
  /** No valid API key; one body for every failure, so it reveals nothing. */
  unauthorized: { type: "https://scimkit.dev/problems/unauthorized", title: "Unauthorized", status: 401 },
  /** A known caller lacks the right, e.g. a viewer writing or an admin deleting an organization. */
  forbidden: { type: "https://scimkit.dev/problems/forbidden", title: "Forbidden", status: 403 },
  /** Nothing of that id exists in the caller's scope (another organization's data included). */
  notFound: { type: "https://scimkit.dev/problems/not-found", title: "Not found", status: 404 },
  /** The request clashes with the current state, e.g. an e-mail already invited. */
  conflict: { type: "https://scimkit.dev/problems/conflict", title: "Conflict", status: 409 },
  /** A `cursor` this service did not issue for this very query. */
  invalidCursor: { type: "https://scimkit.dev/problems/invalid-cursor", title: "Invalid cursor", status: 400 },
  /** The request could not be read at all (a body that is not JSON, a broken %-escape). */
  malformedRequest: { type: "https://scimkit.dev/problems/malformed-request", title: "Malformed request", status: 400 },
  /** A body in a media type the operation does not read. */
  unsupportedMediaType: { type: "https://scimkit.dev/problems/unsupported-media-type", title: "Unsupported media type", status: 415 },
  /** A body over the router's limit. */
  payloadTooLarge: { type: "https://scimkit.dev/problems/payload-too-large", title: "Payload too large", status: 413 },
  /** No operation of the interface has this path (as opposed to `notFound`: no such resource). */
  unknownEndpoint: { type: "https://scimkit.dev/problems/unknown-endpoint", title: "Unknown endpoint", status: 404 },
  /** The path exists but not with this method (RFC 9110 §15.5.6; the router sets `Allow`). */
  methodNotAllowed: { type: "https://scimkit.dev/problems/method-not-allowed", title: "Method not allowed", status: 405 },
  /** The result of an operation was asked for before the operation succeeded. */
  operationNotFinished: { type: "https://scimkit.dev/problems/operation-not-finished", title: "Operation not finished", status: 409 },
  /** A setup link that was used, has expired or was revoked (issue 31): it opens nothing again. */
  setupLinkGone: { type: "https://scimkit.dev/problems/setup-link-gone", title: "Setup link no longer valid", status: 410 },
  /** The host has not configured what the operation needs (e.g. no invitation hook). */
  notImplemented: { type: "https://scimkit.dev/problems/not-implemented", title: "Not implemented", status: 501 },
  /** The caller's key is over the host's rate limit; with `Retry-After`. */
  rateLimited: { type: "https://scimkit.dev/problems/rate-limited", title: "Too many requests", status: 429 },
  /** The organization is at one of its report bounds (RFC 6585 §4); with `Retry-After`. */
  reportLimit: { type: "https://scimkit.dev/problems/report-limit", title: "Report limit reached", status: 429 },
  /** The store cannot reach its database for now; with `Retry-After`. */
  unavailable: { type: "https://scimkit.dev/problems/unavailable", title: "Service unavailable", status: 503 },
  /** Anything unexpected; the cause goes to the host's `onError`, never to the client. */
  internal: { type: "https://scimkit.dev/problems/internal", title: "Internal error", status: 500 },
} as const satisfies Record<string, ProblemDefinition>;

/** The name of a problem of the registry. */
export type ProblemCode = keyof typeof definitions;

/** Every problem the analytics interface answers with, by code: the one place to find them. */
export const PROBLEMS: Readonly<Record<ProblemCode, ProblemDefinition>> = definitions;

/** The stable problem `type` URIs by code, as clients compare them. */
export const ProblemType = Object.fromEntries(Object.entries(definitions).map(([code, { type }]) => [code, type])) as {
  readonly [Code in ProblemCode]: (typeof definitions)[Code]["type"];
};

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

/** An RFC 9457 problem of the registry: thrown by the analytics code, rendered once by the router. */
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

/** What `problem` takes besides the code and the detail. */
export interface ProblemOptions extends ProblemExtras {
  /** Every invalid field behind an `invalidRequest`. */
  readonly errors?: readonly ProblemFieldError[];
}

/**
 * The problem `code` of the registry, with `detail` for a person: what went wrong with this
 * request and how to fix it.
 *
 * @example throw problem("notFound", "There is no campaign with this id among those you may see.")
 */
export function problem(code: ProblemCode, detail: string, options: ProblemOptions = {}): AnalyticsProblem {
  const { errors, ...extras } = options;
  return new AnalyticsProblem({ ...PROBLEMS[code], detail, ...(errors === undefined ? {} : { errors }) }, extras);
}

/** 400: the input is invalid; `errors` names every invalid field. */
export function invalidRequest(errors: readonly ProblemFieldError[]): AnalyticsProblem {
  // The root of a body is the empty JSON pointer (RFC 6901 §5), which reads badly on its own.
  const detail = errors.map((error) => `${error.field === "" ? "the request body" : error.field}: ${error.message}`).join("; ");
  return problem("invalidRequest", detail, { errors });
}

/** 410: a setup link that opens nothing any more; `detail` says why and what to do. */
export function setupLinkGone(detail: string): AnalyticsProblem {
  return problem("setupLinkGone", detail);
}

/** 404: nothing of that id exists in the caller's scope (another organization's data included). */
export function notFound(detail: string): AnalyticsProblem {
  return problem("notFound", detail);
}

/** 409: the request clashes with the current state, e.g. an e-mail already invited. */
export function conflict(detail: string): AnalyticsProblem {
  return problem("conflict", detail);
}

/** 401: no valid API key; one body for every failure, so it reveals nothing. */
export function unauthorized(): AnalyticsProblem {
  return problem("unauthorized", "Authentication failed: send Authorization: Bearer <key> with an analytics API key.");
}

/** 403: a known caller lacks the right, e.g. a viewer writing or an admin deleting an organization. */
export function forbidden(detail: string): AnalyticsProblem {
  return problem("forbidden", detail);
}

/** 400: a `cursor` that this service did not issue for this very query (edited, or replayed with other filters). */
export function invalidCursor(): AnalyticsProblem {
  return problem(
    "invalidCursor",
    "The cursor is not valid for this query: pass back the nextCursor of the previous page with the same filters, or leave cursor out to start again.",
  );
}

/** 400: the request could not be read at all (a body that is not JSON, a broken %-escape). */
export function malformedRequest(detail: string): AnalyticsProblem {
  return problem("malformedRequest", detail);
}

/** 415: a body in a media type the operation does not read. */
export function unsupportedMediaType(detail: string): AnalyticsProblem {
  return problem("unsupportedMediaType", detail);
}

/** 413: a body over the router's limit. */
export function payloadTooLarge(detail: string): AnalyticsProblem {
  return problem("payloadTooLarge", detail);
}

/** 404: no operation of the interface has this path (as opposed to `notFound`: no such resource). */
export function unknownEndpoint(method: string, path: string): AnalyticsProblem {
  return problem("unknownEndpoint", `There is no analytics endpoint ${method} ${path}; the operations are listed in GET /openapi.json.`);
}

/** 405: the path exists but not with this method (RFC 9110 §15.5.6; the router sets `Allow`). */
export function methodNotAllowed(method: string, path: string, allowed: readonly string[]): AnalyticsProblem {
  return problem("methodNotAllowed", `${path} does not take ${method}; it takes ${allowed.join(", ")}.`);
}

/** 409: the result of an operation was asked for before the operation succeeded. */
export function operationNotFinished(detail: string): AnalyticsProblem {
  return problem("operationNotFinished", detail);
}

/** 500: anything unexpected; the cause goes to the host's `onError`, never to the client. */
export function internalProblem(): AnalyticsProblem {
  return problem("internal", "The service failed to handle the request. It has been reported; retry later.");
}

/** 503: the store cannot reach its database for now; `retryAfter` seconds become `Retry-After`. */
export function serviceUnavailable(detail: string, retryAfter: number): AnalyticsProblem {
  return problem("unavailable", detail, { retryAfter });
}

/** 429: the caller's key sent more requests than the host's rate limit allows; retry after `retryAfter` seconds. */
export function rateLimited(retryAfter: number): AnalyticsProblem {
  return problem("rateLimited", `This API key has sent more requests than the service allows; retry in ${String(retryAfter)} seconds.`, {
    retryAfter,
  });
}

/**
 * 429 (RFC 6585 §4): the organization is at one of its report bounds — reports at once, or report
 * rows kept — so no report is started; `detail` says which and what to do, `retryAfter` seconds
 * become `Retry-After` (RFC 9110 §10.2.3).
 */
export function reportLimit(detail: string, retryAfter: number): AnalyticsProblem {
  return problem("reportLimit", detail, { retryAfter });
}

/** 501: the host has not configured what the operation needs (e.g. no invitation hook). */
export function notImplemented(detail: string): AnalyticsProblem {
  return problem("notImplemented", detail);
}
