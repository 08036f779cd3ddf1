/**
 * The body parser of the analytics router's writes: JSON only (`application/json`, any
 * charset), at most `limit` bytes. Express 4 and 5 differ in what `req.body` is when nothing was
 * sent (`{}` and `undefined`); here it is `undefined` in both, so "no body" is never mistaken
 * for an empty object.
 */
import express, { type RequestHandler } from "express";
import { unsupportedMediaType } from "./analytics-problem.js";

function mediaType(header: string): string {
  return (header.split(";")[0] ?? "").trim().toLowerCase();
}

/** RFC 9112 §6.3: a request has a body when it declares a length above zero or a transfer coding. */
function hasBody(headers: { readonly [name: string]: unknown }): boolean {
  return headers["transfer-encoding"] !== undefined || (headers["content-length"] !== undefined && headers["content-length"] !== "0");
}

/** The parser for bodies up to `limit` (bytes or `"100kb"`). */
export function analyticsBodyParser(limit: number | string): RequestHandler {
  const parse = express.json({ limit, strict: true, type: () => true });
  return (request, response, next) => {
    if (!hasBody(request.headers)) {
      request.body = undefined;
      next();
      return;
    }
    const type = mediaType(request.headers["content-type"] ?? "");
    if (type !== "application/json") {
      next(unsupportedMediaType(type === "" ? "The request body has no Content-Type; send it as application/json." : `Content-Type ${JSON.stringify(type)} is not supported; send application/json.`));
      return;
    }
    parse(request, response, next);
  };
}
