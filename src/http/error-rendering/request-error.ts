/**
 * What Express and its body parser throw for a request they cannot read — a body over the limit,
 * malformed JSON, a charset or Content-Encoding they do not decode, a body cut short, a malformed
 * %-escape in a path parameter — read into a status and a sentence for the client. One reading,
 * rendered by each API in its own error format: the SCIM router as RFC 7644 §3.12 errors, the
 * analytics router as RFC 9457 problems.
 */

/** The fields of the errors Express's body parser raises (http-errors). */
interface HttpError {
  readonly type?: unknown;
  readonly status?: unknown;
  readonly expose?: unknown;
  readonly limit?: unknown;
  readonly charset?: unknown;
}

/** A request Express could not read, as any API can render it. */
export interface RequestError {
  /**
   * The HTTP status the client should get: 413 for a body over the limit, 415 for a charset or
   * Content-Encoding not decoded, 400 for malformed JSON, a body cut short or a malformed URL
   * escape, or another 4xx status Express marked as safe to show.
   */
  readonly status: number;
  /** Why, in a sentence the client can act on; it reveals nothing of the service. */
  readonly detail: string;
}

/**
 * The request error `error` is, or undefined for anything else (an error of the application's
 * own, to be rendered as it decides — usually a 500 reported to the operator). For an API of
 * the host's beside SCIM, rendering errors its own way.
 *
 * @example
 * app.use((error, request, response, next) => {
 *   const known = requestErrorOf(error);
 *   if (known) response.status(known.status).json({ error: known.detail });
 *   else next(error);
 * });
 */
export function requestErrorOf(error: unknown): RequestError | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const http = error as HttpError;
  switch (http.type) {
    case "entity.too.large":
      return { status: 413, detail: `The request body is larger than the limit of ${String(http.limit)} bytes.` };
    case "entity.parse.failed":
      return { status: 400, detail: "The request body is not valid JSON: send one JSON object." };
    case "charset.unsupported":
      return { status: 415, detail: `The charset ${JSON.stringify(http.charset)} is not supported; send UTF-8 JSON.` };
    case "encoding.unsupported":
      return {
        status: 415,
        detail: "The Content-Encoding of the request body is not supported; send it uncompressed or gzip/deflate-encoded.",
      };
    case "request.aborted":
    case "request.size.invalid":
      return { status: 400, detail: "The request body was incomplete: it ended before its declared Content-Length." };
    default:
      break;
  }
  // Express's router raises a URIError with status 400 (not marked exposed) for a malformed
  // %-escape in a path parameter; other exposed 4xx errors come from http-errors.
  if ((http.expose === true || error instanceof URIError) && typeof http.status === "number" && http.status >= 400 && http.status < 500) {
    return { status: http.status, detail: "The request could not be read: check the URL encoding and the body." };
  }
  return undefined;
}
