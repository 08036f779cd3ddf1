/**
 * Our own body parser for SCIM requests (architecture §6): JSON under `application/scim+json` or
 * `application/json`, any charset parameter, a size limit answered with 413, and a missing
 * Content-Type read as JSON (some clients omit it). Other media types are 415.
 */
import type { RequestHandler } from "express";
import { scimError, type ScimError } from "../../errors.js";
import { jsonBodyParser, type BodyRefusal } from "./json-body-parser.js";
import { noteRefusedRequestBody } from "../request-log/refused-request-body.js";

/** A refused body as a SCIM error (RFC 7644 §3.12 has no `scimType` for either). */
function refusalError(refusal: BodyRefusal): ScimError {
  return refusal.status === 413
    ? scimError("payloadTooLarge", `The request body is larger than the limit of ${refusal.limit} bytes.`)
    : scimError("unsupportedMediaType", `Content-Type ${JSON.stringify(refusal.mediaType)} is not supported; send application/scim+json.`);
}

/**
 * The parser for bodies up to `limit` (bytes or `"1mb"`). Throws for a limit it cannot read.
 * `name` is the option the limit came from, for that message.
 */
export function scimBodyParser(limit: number | string, name = "bodyLimit"): RequestHandler[] {
  const parse = jsonBodyParser({
    limit,
    limitName: name,
    mediaTypes: ["application/scim+json", "application/json"],
    untypedIsJson: true,
    refuse: refusalError,
  });
  return [
    (request, response, next) => {
      parse(request, response, (error?: unknown) => {
        // The provisioning log shows what was refused and why (refused-request-body.ts).
        if (error !== undefined) noteRefusedRequestBody(request, error);
        next(error as Parameters<typeof next>[0]);
      });
    },
  ];
}
