/**
 * The only place that writes an error body (DESIGN §3): a `ScimError` as the RFC 7644 §3.12 body
 * with its status, errors of the body parser and of Express's URL decoding translated into SCIM
 * terms, and anything else as a bare 500 whose cause goes to `onError` and never to the client.
 * The router mounts `errorHandler`; the app mounts `scimErrorHandler` after the router for the
 * errors raised before the router runs.
 */
import type { ErrorRequestHandler, Request, Response } from "express";
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

function sendError(response: Response, scimError: ScimError): void {
  // RFC 6750 §3: a 401 names the scheme the client should use.
  if (scimError.status === 401) response.set("WWW-Authenticate", 'Bearer realm="SCIM"');
  // RFC 9110 §10.2.3 (with RFC 6585 §4 for 429): when the client may try again.
  if (scimError.retryAfter !== undefined) response.set("Retry-After", String(Math.max(0, Math.ceil(scimError.retryAfter))));
  sendScim(response, scimError.status, scimError);
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
    sendError(response, scimError);
  };
}

/**
 * The error handler an app mounts after the SCIM router, at a path without parameters that covers
 * it (`app.use("/scim", scimErrorHandler())`), for the errors the router never sees: Express
 * decodes the mount path's `:orgId` in the app's own layer, so a malformed %-escape there
 * (`/scim/Organizations/%FF/v2/Users`) fails before the router runs, and without this handler
 * Express answers with its HTML error page. It answers such errors — and any `ScimError` or
 * request error (body too large, malformed JSON) raised by the app's own middleware on these
 * paths — with the SCIM error body (RFC 7644 §3.12); every other error goes on to the app's next
 * error handler, untouched. Errors inside the router never reach it: the router answers them.
 *
 * Mounted at the router's own path it would not help: that layer fails to decode `:orgId` too.
 *
 * @example
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth }));
 * app.use("/scim", scimErrorHandler());
 */
export function scimErrorHandler(): ErrorRequestHandler {
  return (error, _request, response, next) => {
    const scimError = response.headersSent ? undefined : isScimError(error) ? error : translateRequestError(error);
    if (!scimError) {
      next(error);
      return;
    }
    sendError(response, scimError);
  };
}
