/**
 * The only place that writes an error body of the analytics router: an `AnalyticsProblem` as
 * `application/problem+json` (RFC 9457), what Express and its body parser throw for bad input
 * translated into problems, a store's "database unavailable" as 503 with `Retry-After`, and
 * anything else as a bare 500 whose cause goes to `onError` and
 * never to the client.
 */
import type { ErrorRequestHandler } from "express";
import { requestErrorOf } from "scimkit/body";
import { isScimError } from "scimkit/core";
import {
  internalProblem,
  isAnalyticsProblem,
  malformedRequest,
  payloadTooLarge,
  serviceUnavailable,
  unsupportedMediaType,
  type AnalyticsProblem,
} from "./analytics-problem.js";
import { sendProblem } from "./send-json.js";

/** Translates what Express and its body parser throw for bad input; undefined for anything else. */
function translate(error: unknown): AnalyticsProblem | undefined {
  // The stores share the SCIM side's signal for "database unreachable, retry later" (a 503
  // ScimError with retryAfter); here it keeps its meaning in problem+json.
  if (isScimError(error) && error.status === 503) return serviceUnavailable(error.detail, error.retryAfter ?? 5);
  const known = requestErrorOf(error);
  if (known === undefined) return undefined;
  if (known.status === 413) return payloadTooLarge(known.detail);
  if (known.status === 415) return unsupportedMediaType(known.detail);
  return malformedRequest(known.detail);
}

/** The four-argument Express error handler of the router. */
export function problemHandler(onError: (error: unknown) => void): ErrorRequestHandler {
  return (error, _request, response, next) => {
    if (response.headersSent) {
      // A download failed midway: the client cannot be told, the operator can. Express then
      // closes the connection, so the client sees a cut-off body rather than a complete one.
      onError(error);
      next(error);
      return;
    }
    const problem = isAnalyticsProblem(error) ? error : translate(error);
    if (problem === undefined) {
      onError(error);
      sendProblem(response, internalProblem());
      return;
    }
    // RFC 6750 §3: a 401 names the scheme the client should use.
    if (problem.status === 401) response.setHeader("WWW-Authenticate", 'Bearer realm="analytics"');
    if (problem.retryAfter !== undefined) response.setHeader("Retry-After", String(problem.retryAfter));
    sendProblem(response, problem);
  };
}
