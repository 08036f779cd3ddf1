/**
 * The one place the errors of scimkit's OAuth 2.0 token endpoint are rendered (RFC 6749 §5.2; the
 * codes and their statuses are in the registry, src/oauth-errors.ts): a JSON body
 * `{"error": …, "error_description": …}`, never cached, and for `invalid_client` a 401 with a
 * `Basic` challenge.
 */
import type { ErrorRequestHandler, Request, Response } from "express";
import { OAuthError, oauthError } from "../../oauth-errors.js";
import { setNoSniff } from "../sending/no-sniff.js";
import { requestErrorOf } from "../error-rendering/request-error.js";

/** RFC 6749 §5.1: token responses, errors included, are never stored by caches. */
export function noStore(response: Response): void {
  response.set("Cache-Control", "no-store");
  response.set("Pragma", "no-cache");
}

function sendOAuthError(response: Response, error: OAuthError): void {
  noStore(response);
  // Also raised before the token router runs (a malformed escape in `:orgId`), so set here too.
  setNoSniff(response);
  // RFC 6749 §5.2: invalid_client is a 401 with a challenge of the scheme the client can use (§2.3.1).
  if (error.code === "invalid_client") response.set("WWW-Authenticate", 'Basic realm="OAuth", charset="UTF-8"');
  if (error.retryAfterSeconds !== undefined) response.set("Retry-After", String(error.retryAfterSeconds));
  response.status(error.status).json({ error: error.code, error_description: error.description });
}

/** What Express raises for a request it could not read, as `invalid_request`; undefined for anything else. */
function unreadableRequest(error: unknown): OAuthError | undefined {
  const known = requestErrorOf(error);
  if (known === undefined) return undefined;
  // Express's router raises a URIError for a malformed %-escape in the path's `:orgId`.
  const description =
    error instanceof URIError
      ? "The URL path holds a malformed %-escape: encode the organization id as UTF-8 percent-escapes (RFC 3986 §2.1)."
      : "The request body could not be read: send a small application/x-www-form-urlencoded body in UTF-8.";
  return oauthError("invalid_request", description, { status: known.status });
}

/**
 * The token endpoint's error handler: an `OAuthError` as RFC 6749 §5.2 says, a body Express could
 * not read (too large, a charset it does not decode) as `invalid_request`, and anything else as a
 * bare 500 whose cause goes to `onError` and never to the client.
 */
export function oauthErrorHandler(onError: (error: unknown, request: Request) => void): ErrorRequestHandler {
  return (error, request, response, next) => {
    if (response.headersSent) {
      next(error);
      return;
    }
    if (error instanceof OAuthError) {
      sendOAuthError(response, error);
      return;
    }
    const unreadable = unreadableRequest(error);
    if (unreadable !== undefined) {
      sendOAuthError(response, unreadable);
      return;
    }
    onError(error, request);
    sendOAuthError(response, oauthError("server_error", "The service failed to handle the request. It has been reported; retry later."));
  };
}

/**
 * The error handler an app mounts after the token router, at a path without parameters that
 * covers it (`app.use("/oauth", oauthPathErrorHandler())`): Express decodes the mount path's
 * `:orgId` in the app's own layer, so a malformed %-escape there (`/oauth/Organizations/%zz/token`)
 * fails before the router runs, and without this handler Express answers with its HTML error
 * page and a stack trace. It answers such errors, and any `OAuthError`, as RFC 6749 §5.2 says;
 * every other error goes on to the app's next error handler, untouched.
 *
 * @example
 * app.use("/oauth/Organizations/:orgId", createOAuthTokenRouter({ clients, issuer }));
 * app.use("/oauth", oauthPathErrorHandler());
 */
export function oauthPathErrorHandler(): ErrorRequestHandler {
  return (error, _request, response, next) => {
    const answer = response.headersSent ? undefined : error instanceof OAuthError ? error : unreadableRequest(error);
    if (answer === undefined) {
      next(error);
      return;
    }
    sendOAuthError(response, answer);
  };
}
