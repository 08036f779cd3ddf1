/**
 * The checks every `ReadableRequestLog` makes of a `RequestLogQuery` before it reads anything, in
 * one place, so a log kept elsewhere (SQL) refuses exactly what the memory log refuses, with the
 * same words.
 */
import { IDENTITY_PROVIDERS } from "./identity-provider-of.js";
import type { RequestLogQuery, UnauthenticatedRequestLogQuery } from "./readable-request-log.js";

/** Entries in a page unless the query says otherwise. */
export const DEFAULT_REQUEST_LOG_LIMIT = 100;

/** Most entries a page may ask for. */
export const MAX_REQUEST_LOG_LIMIT = 1000;

/** A `RequestLogQuery` that passed `checkRequestLogQuery`, its times in milliseconds since the epoch. */
export interface CheckedRequestLogQuery {
  readonly limit: number;
  readonly from?: number;
  readonly to?: number;
}

function timeOf(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const time = typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) throw new RangeError(`request log: ${name} must be an ISO 8601 time; got ${JSON.stringify(value)}.`);
  return time;
}

/**
 * The limit and times of `query`, or a `RangeError` naming the first malformed member: a limit
 * outside 1–1,000, a status class outside 1–5, an unknown identity provider, an unparsable time.
 * The cursor is the log's own business: each log checks that it gave it.
 *
 * @example checkRequestLogQuery({ limit: 0 }) // throws RangeError("request log: limit must be …")
 */
export function checkRequestLogQuery(query: RequestLogQuery): CheckedRequestLogQuery {
  const limit = query.limit ?? DEFAULT_REQUEST_LOG_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_REQUEST_LOG_LIMIT) {
    throw new RangeError(`request log: limit must be an integer from 1 to 1,000; got ${String(query.limit)}.`);
  }
  if (query.statusClass !== undefined && ![1, 2, 3, 4, 5].includes(query.statusClass)) {
    throw new RangeError(`request log: statusClass must be 1 to 5; got ${String(query.statusClass)}.`);
  }
  if (query.identityProvider !== undefined && !IDENTITY_PROVIDERS.includes(query.identityProvider)) {
    throw new RangeError(
      `request log: identityProvider must be one of ${IDENTITY_PROVIDERS.join(", ")}; got ${String(query.identityProvider)}.`,
    );
  }
  for (const name of ["resourceId", "requestId", "cursor"] as const) {
    const value: unknown = query[name];
    if (value !== undefined && typeof value !== "string")
      throw new RangeError(`request log: ${name} must be a string; got ${JSON.stringify(value)}.`);
  }
  const from = timeOf("from", query.from);
  const to = timeOf("to", query.to);
  return { limit, ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

/**
 * The limit of an unauthenticated-log `query`, or a `RangeError` naming the first malformed member,
 * in the words of `checkRequestLogQuery`. The cursor is the log's own business.
 *
 * @example checkUnauthenticatedQuery({ orgId: "acme", limit: 20 }) // 20
 */
export function checkUnauthenticatedQuery(query: UnauthenticatedRequestLogQuery): number {
  if (query.orgId !== undefined && typeof query.orgId !== "string")
    throw new RangeError(`request log: orgId must be a string; got ${JSON.stringify(query.orgId)}.`);
  return checkRequestLogQuery({
    ...(query.limit === undefined ? {} : { limit: query.limit }),
    ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
  }).limit;
}
