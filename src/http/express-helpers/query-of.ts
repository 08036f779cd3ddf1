/**
 * The query string of a request as sent, for the SCIM router's list and search parameters.
 */
import type { Request } from "express";

/**
 * The query string of the request as sent, independent of Express's query parser (qs in 4,
 * simple in 5), so both majors see the same parameters — repeated ones included.
 */
export function queryOf(request: Request): URLSearchParams {
  const url = request.originalUrl;
  const index = url.indexOf("?");
  return new URLSearchParams(index === -1 ? "" : url.slice(index + 1));
}
