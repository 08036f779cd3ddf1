/**
 * Our own body parser for SCIM requests (DESIGN §6): JSON under `application/scim+json` or
 * `application/json`, any charset parameter, a size limit answered with 413, and a missing
 * Content-Type read as JSON (some clients omit it). Other media types are 415.
 */
import express, { type RequestHandler } from "express";
import { ScimError } from "../errors.js";

const JSON_TYPES = new Set(["application/scim+json", "application/json"]);

function mediaType(header: string): string {
  return (header.split(";")[0] ?? "").trim().toLowerCase();
}

function hasBody(headers: { readonly [name: string]: unknown }): boolean {
  return headers["transfer-encoding"] !== undefined || (headers["content-length"] !== undefined && headers["content-length"] !== "0");
}

/** The parser for bodies up to `limit` (bytes or `"1mb"`). */
export function scimBodyParser(limit: number | string): RequestHandler[] {
  const checkType: RequestHandler = (request, _response, next) => {
    const header = request.headers["content-type"];
    if (header !== undefined && hasBody(request.headers) && !JSON_TYPES.has(mediaType(header))) {
      next(new ScimError(415, undefined, `Content-Type ${JSON.stringify(mediaType(header))} is not supported; send application/scim+json.`));
      return;
    }
    next();
  };
  const parse = express.json({
    limit,
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
