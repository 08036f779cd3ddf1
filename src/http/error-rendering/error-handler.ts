/**
 * The only place that writes an error body (architecture §3): a `ScimError` as the RFC 7644 §3.12 body
 * with its status, errors of the body parser and of Express's URL decoding translated into SCIM
 * terms, and anything else as a bare 500 whose cause goes to `onError` and never to the client.
 * The router mounts `errorHandler`; the app mounts `scimErrorHandler` after the router for the
 * errors raised before the router runs.
 */
import type { ErrorRequestHandler, Request, Response } from "express";
import { type ScimError, isScimError, scimError, unreadableRequestError } from "../../errors.js";
import { bearerChallenge } from "../authentication/bearer-challenge.js";
import { requestErrorOf } from "./request-error.js";
import { sendScim } from "../sending/send-scim.js";

/** Translates what Express and its body parser throw for bad input; undefined for anything else. */
export function translateRequestError(error: unknown): ScimError | undefined {
  const known = requestErrorOf(error);
  // RFC 7644 §3.12: `invalidSyntax` is the scimType of a request the service could not parse.
  return known && unreadableRequestError(known.status, known.detail);
}

function sendError(response: Response, scimError: ScimError): void {
  // RFC 6750 §3: a 401 names the scheme the client should use; a refused token (401 or 403) says why.
  if (scimError.status === 401 || scimError.bearerError !== undefined)
    response.set("WWW-Authenticate", bearerChallenge(scimError.bearerError));
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
    const answer = isScimError(error) ? error : translateRequestError(error);
    if (!answer) {
      onError(error, request);
      sendScim(response, 500, scimError("internal", "The service failed to handle the request. It has been reported; retry later."));
      return;
    }
    sendError(response, answer);
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
