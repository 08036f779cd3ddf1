/**
 * `X-Content-Type-Options: nosniff` on the library's JSON answers, whichever router writes them:
 * an error's `detail` or a display name echoes client input, and no browser may read such a body
 * as HTML or script. An app that mounts the SCIM router, the token endpoint or the events
 * endpoints without the host gets it too.
 */
import type { RequestHandler, Response } from "express";

/** Marks `response` as not to be content-sniffed. */
export function setNoSniff(response: Response): void {
  response.setHeader("X-Content-Type-Options", "nosniff");
}

/** Middleware that marks every answer of the router it is mounted on. */
export function noSniff(): RequestHandler {
  return (_request, response, next) => {
    setNoSniff(response);
    next();
  };
}
