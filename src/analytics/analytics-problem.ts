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

/** An RFC 9457 problem: thrown by the analytics code, rendered once by the router. */
export class AnalyticsProblem extends Error implements ProblemDetails {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly errors?: readonly ProblemFieldError[];

  constructor(details: ProblemDetails) {
    super(details.detail);
    this.name = "AnalyticsProblem";
    this.type = details.type;
    this.title = details.title;
    this.status = details.status;
    this.detail = details.detail;
    if (details.errors !== undefined) this.errors = details.errors;
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
  const detail = errors.map((error) => `${error.field}: ${error.message}`).join("; ");
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
