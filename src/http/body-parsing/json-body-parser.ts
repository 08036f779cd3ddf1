/**
 * The JSON body parser of the SCIM router, shared with any API a host serves beside it (the
 * analytics router): the media types it reads, any charset parameter, a size limit refused on
 * the declared length before a byte is read, and a body-less request left without a body on
 * Express 4 and 5 alike. Refusals are the caller's errors, so each API answers in its own format.
 * A body refused for its size is still read, up to a bound (`discard-request-body.ts`), unless
 * the client waits for `100 Continue` before sending it.
 */
import express, { type RequestHandler } from "express";
import { parseByteLimit } from "./byte-limit.js";
import { awaitsContinue } from "./defer-continue.js";
import { boundRequestBody, discardRequestBody, hasBody } from "./discard-request-body.js";

/** Why `jsonBodyParser` refused a request, for the caller to render. */
export type BodyRefusal =
  /** The declared Content-Length is over the limit (RFC 9110 §15.5.14); `limit` in bytes. */
  | { readonly status: 413; readonly limit: number }
  /** The body's media type is not one read (RFC 9110 §15.5.16); `mediaType` is `""` when the request named none. */
  | { readonly status: 415; readonly mediaType: string };

/** Options of `jsonBodyParser`. */
export interface JsonBodyParserOptions {
  /** The most bytes a body may have: a number, or a size such as `"1mb"`. */
  readonly limit: number | string;
  /** The option the limit came from, named in the error thrown when it cannot be read. Default `"limit"`. */
  readonly limitName?: string;
  /** The media types read as JSON, in lower case without parameters (`application/json`). */
  readonly mediaTypes: readonly string[];
  /** Whether a body sent without a Content-Type is read as JSON (some SCIM clients omit it) rather than refused with 415. */
  readonly untypedIsJson: boolean;
  /** The error handed to the error handler for a refused request. */
  readonly refuse: (refusal: BodyRefusal) => unknown;
}

function mediaTypeOf(header: string): string {
  return (header.split(";")[0] ?? "").trim().toLowerCase();
}

/**
 * The parser: `request.body` is the parsed JSON of a write, and stays unset for a request without
 * a body and for GET, HEAD and DELETE, whose bodies the routers never read. Throws for a limit it
 * cannot read. Malformed JSON and a body over the limit that declared no length reach the error
 * handler as Express's parser raises them (`requestErrorOf` reads them).
 *
 * @example router.post("/reports", jsonBodyParser({ limit: "100kb", mediaTypes: ["application/json"], untypedIsJson: false, refuse: (refusal) => createError(refusal.status) }), handler)
 */
export function jsonBodyParser(options: JsonBodyParserOptions): RequestHandler {
  const maxBytes = parseByteLimit(options.limitName ?? "limit", options.limit);
  const mediaTypes = new Set(options.mediaTypes);
  const parse = express.json({ limit: maxBytes, strict: true, type: () => true });
  return (request, response, next) => {
    // GET, HEAD and DELETE carry no body the routers read; skipping the parser spares every read.
    if (request.method === "GET" || request.method === "HEAD" || request.method === "DELETE" || !hasBody(request.headers)) {
      next();
      return;
    }
    // RFC 9110 §15.5.14: refused on the header, before a byte of the body is read. Express's
    // parser would say 413 only after reading and discarding the whole declared body. Node has
    // rejected a malformed or repeated Content-Length already.
    const declared = request.headers["content-length"];
    if (declared !== undefined && Number(declared) > maxBytes) {
      if (awaitsContinue(request)) {
        // RFC 9110 §10.1.1: the client holds the body back until `100 Continue`, which the final
        // status replaces; the connection closes (RFC 9112 §9.6) in case it sends the body anyway.
        response.set("Connection", "close");
      } else {
        // The client is sending the body: closing now would reset its upload before it reads the 413.
        discardRequestBody(request, maxBytes);
      }
      next(options.refuse({ status: 413, limit: maxBytes }));
      return;
    }
    const header = request.headers["content-type"];
    const readable = header === undefined ? options.untypedIsJson : mediaTypes.has(mediaTypeOf(header));
    if (!readable) {
      next(options.refuse({ status: 415, mediaType: header === undefined ? "" : mediaTypeOf(header) }));
      return;
    }
    // Express's parser reads a chunked body past the limit to its end before it answers 413.
    if (request.headers["transfer-encoding"] !== undefined) boundRequestBody(request, maxBytes);
    parse(request, response, next);
  };
}
