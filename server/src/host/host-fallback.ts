/**
 * What the host answers when none of its surfaces (SCIM, OAuth, security events, analytics, the
 * console, health) did: a path none serves, or an error none rendered. Express would answer both
 * with its HTML page, the latter with a stack trace in development; the host answers an RFC 9457
 * problem in JSON, and reports an unexpected error to its log, never to the client.
 */
import { STATUS_CODES } from "node:http";
import type { ErrorRequestHandler, RequestHandler, Response } from "express";
import { requestErrorOf } from "scimkit/body";

/** RFC 9457 §3: a problem with no type of its own is `about:blank`, its title the status's phrase. */
function sendProblem(response: Response, status: number, detail: string): void {
  const text = JSON.stringify({ type: "about:blank", title: STATUS_CODES[status] ?? "Error", status, detail });
  response.statusCode = status;
  response.setHeader("Content-Type", "application/problem+json; charset=utf-8");
  response.setHeader("Content-Length", Buffer.byteLength(text));
  response.end(text);
}

/** The last handler of the host: 404 for a path no surface serves. */
export function hostNotFound(): RequestHandler {
  return (request, response) => {
    sendProblem(response, 404, `There is no endpoint for ${request.method} ${request.path} on this service.`);
  };
}

/**
 * The last error handler of the host: a request Express could not read (a malformed %-escape, a
 * body it could not parse) as its 4xx problem, anything else as a bare 500 whose cause goes to
 * `onError`.
 */
export function hostErrorHandler(onError: (error: unknown) => void): ErrorRequestHandler {
  return (error, _request, response, next) => {
    if (response.headersSent) {
      next(error);
      return;
    }
    const known = requestErrorOf(error);
    if (known !== undefined) {
      sendProblem(response, known.status, known.detail);
      return;
    }
    onError(error);
    sendProblem(response, 500, "The service failed to handle the request. It has been reported; retry later.");
  };
}
