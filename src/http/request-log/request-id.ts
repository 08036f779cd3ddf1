/**
 * `X-Request-Id`: every response of the SCIM router names its request, so an integrator who holds
 * a failing response (or the identity provider's own log line) finds the provisioning-log entry
 * of that request. The router sets it before anything else runs, so the errors of every later
 * step (404 of an unknown organization, 401, 429, 413, 500) carry it too.
 */
import type { RequestHandler, Response } from "express";
import { uuidV7 } from "../../uuid-v7.js";

/** The header's name, as the de facto convention (Heroku, nginx `$request_id`, Okta's own) spells it. */
export const REQUEST_ID_HEADER = "X-Request-Id";

/** Longest client-sent id kept: a UUID is 36 characters, a trace id 32 to 55; more is no id. */
export const MAX_REQUEST_ID_LENGTH = 128;

// Visible ASCII only (RFC 9110 §5.5 field values minus spaces): nothing a log line, a terminal or
// a header of ours could be split or spoofed with.
const SANE_ID = /^[\x21-\x7e]+$/;

/**
 * Whether `value` is kept as the request's id: 1 to 128 visible ASCII characters (0x21–0x7E),
 * sent once. Anything else — empty, longer, spaces, control or non-ASCII characters, or the header
 * repeated — is replaced by an id of ours rather than refused: a bad correlation id is no reason
 * to fail a provisioning request.
 *
 * @example isSaneRequestId("3f1c2a9e-entra-7781") // true
 */
export function isSaneRequestId(value: unknown): value is string {
  return typeof value === "string" && value.length <= MAX_REQUEST_ID_LENGTH && SANE_ID.test(value);
}

/** Sets `X-Request-Id` on the response: the client's own when sane, else a UUID v7 (time-ordered). */
export function assignRequestId(): RequestHandler {
  return (request, response, next) => {
    const sent = request.headers["x-request-id"];
    response.setHeader(REQUEST_ID_HEADER, isSaneRequestId(sent) ? sent : uuidV7());
    next();
  };
}

/** The id `assignRequestId` gave this request; undefined before it ran. */
export function requestIdOf(response: Response): string | undefined {
  const value = response.getHeader(REQUEST_ID_HEADER);
  return typeof value === "string" ? value : undefined;
}
