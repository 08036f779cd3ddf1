/**
 * The only place that writes an error body (DESIGN §3): a `ScimError` as the RFC 7644 §3.12 body
 * with its status, errors of the body parser translated into SCIM terms, and anything else as a
 * bare 500 whose cause goes to `onError` and never to the client.
 */
import type { ErrorRequestHandler, Request } from "express";
import { ScimError, ScimType, isScimError } from "../errors.js";
import { sendScim } from "./send-scim.js";

/** The fields of the errors Express's body parser raises (http-errors). */
interface HttpError {
  readonly type?: unknown;
  readonly status?: unknown;
  readonly expose?: unknown;
  readonly limit?: unknown;
  readonly charset?: unknown;
}

function asHttpError(error: unknown): HttpError | undefined {
  return typeof error === "object" && error !== null ? (error as HttpError) : undefined;
}

/** Translates what Express and its body parser throw for bad input; undefined for anything else. */
export function translateRequestError(error: unknown): ScimError | undefined {
  const http = asHttpError(error);
  if (!http) return undefined;
  switch (http.type) {
    case "entity.too.large":
      return new ScimError(413, undefined, `The request body is larger than the limit of ${String(http.limit)} bytes.`);
    case "entity.parse.failed":
      return new ScimError(400, ScimType.invalidSyntax, "The request body is not valid JSON: send one JSON object.");
    case "charset.unsupported":
      return new ScimError(415, undefined, `The charset ${JSON.stringify(http.charset)} is not supported; send UTF-8 JSON.`);
    case "encoding.unsupported":
      return new ScimError(415, undefined, "The Content-Encoding of the request body is not supported; send it uncompressed or gzip/deflate-encoded.");
    case "request.aborted":
    case "request.size.invalid":
      return new ScimError(400, ScimType.invalidSyntax, "The request body was incomplete: it ended before its declared Content-Length.");
    default:
      break;
  }
  // Express's router raises a URIError with status 400 (not marked exposed) for a malformed
  // %-escape in a path parameter; other exposed 4xx errors come from http-errors.
  if ((http.expose === true || error instanceof URIError) && typeof http.status === "number" && http.status >= 400 && http.status < 500) {
    return new ScimError(http.status, http.status === 400 ? ScimType.invalidSyntax : undefined, "The request could not be read: check the URL encoding and the body.");
  }
  return undefined;
}

/** The four-argument Express error handler of the router. */
export function errorHandler(onError: (error: unknown, request: Request | undefined) => void): ErrorRequestHandler {
  return (error, request, response, next) => {
    if (response.headersSent) {
      next(error);
      return;
    }
    const scimError = isScimError(error) ? error : translateRequestError(error);
    if (!scimError) {
      onError(error, request);
      sendScim(response, 500, new ScimError(500, undefined, "The service failed to handle the request. It has been reported; retry later."));
      return;
    }
    // RFC 6750 §3: a 401 names the scheme the client should use.
    if (scimError.status === 401) response.set("WWW-Authenticate", 'Bearer realm="SCIM"');
    // RFC 9110 §10.2.3 (with RFC 6585 §4 for 429): when the client may try again.
    if (scimError.retryAfter !== undefined) response.set("Retry-After", String(Math.max(0, Math.ceil(scimError.retryAfter))));
    sendScim(response, scimError.status, scimError);
  };
}
