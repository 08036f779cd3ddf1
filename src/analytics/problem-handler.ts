/**
 * The only place that writes an error body of the analytics router: an `AnalyticsProblem` as
 * `application/problem+json` (RFC 9457), what Express and its body parser throw for bad input
 * translated into problems, a store's "database unavailable" as 503 with `Retry-After`, and
 * anything else as a bare 500 whose cause goes to `onError` and
 * never to the client.
 */
import type { ErrorRequestHandler } from "express";
import { isScimError } from "../errors.js";
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

/** The fields of the errors Express's body parser raises (http-errors). */
interface HttpError {
  readonly type?: unknown;
  readonly status?: unknown;
  readonly expose?: unknown;
  readonly limit?: unknown;
  readonly charset?: unknown;
}

/** Translates what Express and its body parser throw for bad input; undefined for anything else. */
function translate(error: unknown): AnalyticsProblem | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  // The stores share the SCIM side's signal for "database unreachable, retry later" (a 503
  // ScimError with retryAfter); here it keeps its meaning in problem+json.
  if (isScimError(error) && error.status === 503) return serviceUnavailable(error.detail, error.retryAfter ?? 5);
  const http = error as HttpError;
  switch (http.type) {
    case "entity.too.large":
      return payloadTooLarge(http.limit);
    case "entity.parse.failed":
      return malformedRequest("The request body is not valid JSON: send one JSON object.");
    case "charset.unsupported":
      return unsupportedMediaType(`The charset ${JSON.stringify(http.charset)} is not supported; send UTF-8 JSON.`);
    case "encoding.unsupported":
      return unsupportedMediaType("The Content-Encoding of the request body is not supported; send it uncompressed or gzip/deflate-encoded.");
    case "request.aborted":
    case "request.size.invalid":
      return malformedRequest("The request body was incomplete: it ended before its declared Content-Length.");
    default:
      break;
  }
  // Express raises a URIError with status 400 for a malformed %-escape in a path parameter.
  if ((http.expose === true || error instanceof URIError) && typeof http.status === "number" && http.status >= 400 && http.status < 500) {
    return malformedRequest("The request could not be read: check the URL encoding and the body.");
  }
  return undefined;
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
