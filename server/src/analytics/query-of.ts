/**
 * The query string of a request as sent, independent of Express's query parser (qs in 4, simple
 * in 5), so the analytics router sees the same parameters — repeated ones included — on both.
 */
import type { Request } from "express";

/** The query string of `request` as sent. */
export function queryOf(request: Request): URLSearchParams {
  const url = request.originalUrl;
  const index = url.indexOf("?");
  return new URLSearchParams(index === -1 ? "" : url.slice(index + 1));
}
