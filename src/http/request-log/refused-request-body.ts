/**
 * What the SCIM body parser refused, kept beside the request for the provisioning log (issue 18):
 * the refusal goes to the error handler as an error, which the log's middleware never sees, and a
 * malformed body is exactly what an integrator debugging an identity provider needs to read.
 */
import type { Request } from "express";
import { isScimError } from "../../errors.js";
import type { RequestBodyRefusal } from "../../request-log/request-log.js";

/** A refused body: why, and for malformed JSON the text as received (decoded, not yet redacted). */
export interface RefusedRequestBody {
  readonly reason: RequestBodyRefusal;
  readonly text?: string;
}

const refused = new WeakMap<Request, RefusedRequestBody>();

/** The reason `error` (as the body parser raised it) refused the body; undefined for any other error. */
function refusalOf(error: unknown): RefusedRequestBody | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  if (isScimError(error)) {
    // The two refusals `scimBodyParser` renders itself, on the headers alone.
    if (error.status === 413) return { reason: "tooLarge" };
    if (error.status === 415) return { reason: "unsupportedMediaType" };
    return undefined;
  }
  // The errors Express's parser raises (http-errors `type`), as `requestErrorOf` reads them.
  const { type, body } = error as { readonly type?: unknown; readonly body?: unknown };
  switch (type) {
    case "entity.parse.failed":
      return typeof body === "string" ? { reason: "invalidJson", text: body } : { reason: "invalidJson" };
    case "entity.too.large":
      return { reason: "tooLarge" };
    case "charset.unsupported":
    case "encoding.unsupported":
      return { reason: "unsupportedMediaType" };
    case "request.aborted":
    case "request.size.invalid":
      return { reason: "incomplete" };
    default:
      return undefined;
  }
}

/** Notes that the body parser refused `request`'s body with `error` (no-op for any other error). */
export function noteRefusedRequestBody(request: Request, error: unknown): void {
  const refusal = refusalOf(error);
  if (refusal) refused.set(request, refusal);
}

/** The refusal noted for `request`, if its body was refused. */
export function refusedRequestBodyOf(request: Request): RefusedRequestBody | undefined {
  return refused.get(request);
}
