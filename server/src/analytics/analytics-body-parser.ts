/**
 * The body parser of the analytics router's writes: JSON only (`application/json`, any
 * charset), at most `limit` bytes, through the SCIM router's parser (`jsonBodyParser`) with the
 * analytics interface's refusals. A request without a body has none (`undefined`) on Express 4
 * and 5 alike, so "no body" is never mistaken for an empty object.
 */
import type { RequestHandler } from "express";
import { jsonBodyParser, type BodyRefusal } from "scimkit/body";
import { payloadTooLarge, unsupportedMediaType, type AnalyticsProblem } from "./analytics-problem.js";

function refusalProblem(refusal: BodyRefusal): AnalyticsProblem {
  if (refusal.status === 413) return payloadTooLarge(`The request body is larger than the limit of ${refusal.limit} bytes.`);
  return unsupportedMediaType(
    refusal.mediaType === ""
      ? "The request body has no Content-Type; send it as application/json."
      : `Content-Type ${JSON.stringify(refusal.mediaType)} is not supported; send application/json.`,
  );
}

/** The parser for bodies up to `limit` (bytes or `"100kb"`). */
export function analyticsBodyParser(limit: number | string): RequestHandler {
  return jsonBodyParser({ limit, limitName: "bodyLimit", mediaTypes: ["application/json"], untypedIsJson: false, refuse: refusalProblem });
}
