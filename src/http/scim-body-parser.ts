/**
 * Our own body parser for SCIM requests (DESIGN §6): JSON under `application/scim+json` or
 * `application/json`, any charset parameter, a size limit answered with 413, and a missing
 * Content-Type read as JSON (some clients omit it). Other media types are 415.
 */
import express, { type RequestHandler } from "express";
import { ScimError } from "../errors.js";
import { parseByteLimit } from "./byte-limit.js";

const JSON_TYPES = new Set(["application/scim+json", "application/json"]);

function mediaType(header: string): string {
  return (header.split(";")[0] ?? "").trim().toLowerCase();
}

function hasBody(headers: { readonly [name: string]: unknown }): boolean {
  return headers["transfer-encoding"] !== undefined || (headers["content-length"] !== undefined && headers["content-length"] !== "0");
}

/**
 * The parser for bodies up to `limit` (bytes or `"1mb"`). Throws for a limit it cannot read.
 * `name` is the option the limit came from, for that message.
 */
export function scimBodyParser(limit: number | string, name = "bodyLimit"): RequestHandler[] {
  const maxBytes = parseByteLimit(name, limit);
  const checkType: RequestHandler = (request, response, next) => {
    // RFC 9110 §15.5.14: refused on the header, before a byte of the body is read. Express's
    // parser would say 413 only after reading and discarding the whole declared body. Node has
    // rejected a malformed or repeated Content-Length already.
    const declared = request.headers["content-length"];
    if (declared !== undefined && Number(declared) > maxBytes) {
      // The body was not read, so the connection cannot carry another request: RFC 9112 §9.6.
      response.set("Connection", "close");
      next(new ScimError(413, undefined, `The request body is larger than the limit of ${maxBytes} bytes.`));
      return;
    }
    const header = request.headers["content-type"];
    if (header !== undefined && hasBody(request.headers) && !JSON_TYPES.has(mediaType(header))) {
      next(new ScimError(415, undefined, `Content-Type ${JSON.stringify(mediaType(header))} is not supported; send application/scim+json.`));
      return;
    }
    next();
  };
  const parse = express.json({
    limit: maxBytes,
    strict: true,
    type: (request) => {
      const header = request.headers["content-type"];
      return header === undefined || JSON_TYPES.has(mediaType(header));
    },
  });
  // GET, HEAD and DELETE carry no body the router reads; skipping the parser spares every read.
  const parseWhenWriting: RequestHandler = (request, response, next) => {
    if (request.method === "GET" || request.method === "HEAD" || request.method === "DELETE") {
      next();
      return;
    }
    checkType(request, response, (error?: unknown) => (error === undefined ? parse(request, response, next) : next(error)));
  };
  return [parseWhenWriting];
}
