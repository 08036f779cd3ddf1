/**
 * The provisioning log's middleware (issue 18): watches one request from its arrival to the end
 * of its response and hands a `RequestLogEntry` to the router's `RequestLog` afterwards, so the
 * log never delays or fails the answer.
 */
import type { Request, RequestHandler, Response } from "express";
import { auditedId } from "../audit/hand-to-sink.js";
import { identityProviderOf } from "../request-log/identity-provider-of.js";
import { maskSecretsInText } from "../request-log/mask-secrets-in-text.js";
import { mayHoldSecret, redactBody, truncateUtf8 } from "../request-log/redact-body.js";
import type { RequestLog, RequestLogEntry } from "../request-log/request-log.js";
import type { SchemaRegistry } from "../scim/schema/schema-registry.js";
import { refusedRequestBodyOf } from "./refused-request-body.js";
import { requestIdOf } from "./request-id.js";
import type { ScimRequestContext } from "./scim-request-context.js";

/** `RequestLog.maxBodyBytes` when the sink names none: 64 KiB. */
export const DEFAULT_MAX_LOGGED_BODY_BYTES = 65_536;

const MAX_USER_AGENT_LENGTH = 512;

type Chunk = string | Buffer | Uint8Array;

/**
 * Keeps the first `limit` bytes written to the response (and whether there were more). Chunks are
 * kept as written and only turned into text after the response, off the request's path: a string
 * (what `send`, `json` and `sendScim` write) is not copied at all.
 */
function captureResponse(response: Response, limit: number): () => { readonly text: string; readonly truncated: boolean } {
  const chunks: (string | Buffer)[] = [];
  let kept = 0;
  let more = false;
  const keep = (chunk: unknown, encoding: unknown): void => {
    if (chunk === undefined || chunk === null || typeof chunk === "function") return;
    if (kept >= limit) {
      more ||= typeof chunk === "string" ? chunk.length > 0 : (chunk as Uint8Array).length > 0;
      return;
    }
    if (
      typeof chunk === "string" &&
      (encoding === undefined || typeof encoding === "function" || encoding === "utf8" || encoding === "utf-8")
    ) {
      chunks.push(chunk);
      // Counted in UTF-16 units, an underestimate of bytes that the final cut corrects.
      kept += chunk.length;
      return;
    }
    const room = limit - kept;
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, encoding as BufferEncoding) : (chunk as Uint8Array);
    if (bytes.length > room) more = true;
    // A Buffer may be reused by its writer once written: the part kept is copied.
    const piece = Buffer.from(bytes.subarray(0, room));
    chunks.push(piece);
    kept += piece.length;
  };
  const write = response.write.bind(response) as (...args: unknown[]) => boolean;
  const end = response.end.bind(response) as (...args: unknown[]) => Response;
  // Wrapping the two methods every Express response goes through (`send`, `json`, `sendScim`,
  // `writeJsonInPieces`) sees the exact bytes the client got, whichever route wrote them.
  response.write = ((chunk: Chunk, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return write(chunk, ...rest);
  }) as Response["write"];
  response.end = ((chunk?: unknown, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return end(chunk, ...rest);
  }) as Response["end"];
  return () => {
    const only = chunks.length === 1 ? chunks[0] : undefined;
    const text =
      typeof only === "string"
        ? only
        : Buffer.concat(chunks.map((chunk) => (typeof chunk === "string" ? Buffer.from(chunk) : chunk))).toString("utf8");
    const cut = truncateUtf8(text, limit);
    return more || cut.truncated ? { text: cut.text.replace(/\uFFFD+$/, ""), truncated: true } : { text, truncated: false };
  };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The resource type and id a router-relative path names (`/Users/2819c223…`). */
function resourceOf(path: string, registry: SchemaRegistry): { readonly type?: string; readonly id?: string } {
  const [, endpoint, id] = path.split("/");
  const type = registry.resourceTypes.find((candidate) => candidate.endpoint === `/${endpoint}`);
  if (!type) return {};
  let decoded: string | undefined;
  try {
    decoded = id === undefined ? undefined : decodeURIComponent(id);
  } catch {
    decoded = undefined;
  }
  const resourceId = auditedId(decoded);
  return { type: type.id, ...(resourceId === undefined ? {} : { id: resourceId }) };
}

function operationCount(body: unknown): number | undefined {
  if (body === null || typeof body !== "object") return undefined;
  const key = Object.keys(body).find((name) => name.toLowerCase() === "operations");
  const operations = key === undefined ? undefined : (body as Record<string, unknown>)[key];
  return Array.isArray(operations) ? operations.length : undefined;
}

function createdId(response: Response): string | undefined {
  const location = response.getHeader("Location");
  if (typeof location !== "string") return undefined;
  try {
    return auditedId(decodeURIComponent(location.slice(location.lastIndexOf("/") + 1)));
  } catch {
    return undefined;
  }
}

/**
 * The middleware, mounted right after `assignRequestId`. `secrets` are the names `redactBody`
 * removes (`secretAttributeNames` of the served registry).
 */
export function logRequest(
  log: RequestLog,
  registry: SchemaRegistry,
  secrets: ReadonlySet<string>,
  onError: (error: unknown, request: Request | undefined) => void,
): RequestHandler {
  const maxBytes = log.maxBodyBytes ?? DEFAULT_MAX_LOGGED_BODY_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes < 0) {
    throw new Error(`scimkit: requestLog.maxBodyBytes must be a non-negative integer; got ${String(log.maxBodyBytes)}.`);
  }
  return (request, response, next) => {
    const started = performance.now();
    const at = new Date().toISOString();
    const relativePath = request.path;
    const path = request.originalUrl;
    const captured = captureResponse(response, maxBytes);
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
      const context = (response.locals as { scim?: ScimRequestContext }).scim;
      // No resolved organization: nothing to file the entry under.
      if (!context) return;
      // After the response: the entry is built and handed over on a later turn of the event loop.
      setImmediate(() => {
        try {
          const entry = buildEntry(request, response, context, { at, path, relativePath, durationMs });
          const pending = log.record(Object.freeze(entry));
          if (pending) pending.catch((error: unknown) => onError(error, request));
        } catch (error) {
          onError(error, request);
        }
      });
    };
    const buildEntry = (
      req: Request,
      res: Response,
      context: ScimRequestContext,
      seen: { readonly at: string; readonly path: string; readonly relativePath: string; readonly durationMs: number },
    ): RequestLogEntry => {
      const authenticated = context.principal !== undefined;
      const userAgentHeader = req.headers["user-agent"];
      const userAgent = userAgentHeader?.slice(0, MAX_USER_AGENT_LENGTH);
      const resource = resourceOf(seen.relativePath, registry);
      const resourceId = resource.id ?? (resource.type && req.method === "POST" && res.statusCode < 300 ? createdId(res) : undefined);
      const response = captured();
      // Parsed only when needed: an error's body for its scimType and detail, and a body that may
      // hold a secret for `redactBody`. A success without one is kept as written, unparsed.
      const mayRedact = response.text !== "" && mayHoldSecret(response.text, secrets);
      const responseJson =
        response.truncated || response.text === "" || (res.statusCode < 400 && !mayRedact) ? undefined : parsed(response.text);
      const error =
        res.statusCode >= 400 && responseJson !== null && typeof responseJson === "object"
          ? (responseJson as { scimType?: unknown; detail?: unknown })
          : undefined;
      const bulkOperations = resource.type === undefined && /^\/bulk\/?$/i.test(seen.relativePath) ? operationCount(req.body) : undefined;
      const bodies: Partial<RequestLogEntry> = {};
      if (authenticated) {
        const body: unknown = req.body;
        const refused = refusedRequestBodyOf(req);
        if (refused) {
          const masked = refused.text === undefined ? undefined : maskSecretsInText(refused.text, secrets);
          const kept = masked === undefined ? undefined : truncateUtf8(masked, maxBytes);
          Object.assign(bodies, {
            requestBodyRefused: refused.reason,
            ...(kept === undefined ? {} : { requestBody: kept.text, requestBodyTruncated: kept.truncated }),
          });
        } else if (body !== null && typeof body === "object" && (Array.isArray(body) || Object.keys(body).length > 0)) {
          const json = JSON.stringify(body);
          const kept = truncateUtf8(mayHoldSecret(json, secrets) ? JSON.stringify(redactBody(body, secrets)) : json, maxBytes);
          Object.assign(bodies, { requestBody: kept.text, requestBodyTruncated: kept.truncated });
        }
        if (response.text !== "") {
          // Parsed, it is redacted like the request; cut, it cannot be parsed, and is kept as the
          // service wrote it: the router never renders a `returned: never` attribute.
          const text = mayRedact && responseJson !== undefined ? JSON.stringify(redactBody(responseJson, secrets)) : response.text;
          const kept = truncateUtf8(text, maxBytes);
          Object.assign(bodies, { responseBody: kept.text, responseBodyTruncated: response.truncated || kept.truncated });
        }
      }
      const requestId = requestIdOf(res) ?? "";
      return {
        requestId,
        orgId: context.orgId,
        at: seen.at,
        method: req.method,
        path: seen.path,
        status: res.statusCode,
        ...(typeof error?.scimType === "string" ? { scimType: error.scimType } : {}),
        ...(typeof error?.detail === "string" ? { detail: error.detail } : {}),
        durationMs: seen.durationMs,
        authenticated,
        ...(context.principal?.tokenId === undefined ? {} : { tokenId: context.principal.tokenId }),
        ...(req.ip === undefined ? {} : { clientAddress: req.ip }),
        ...(userAgent === undefined ? {} : { userAgent }),
        identityProvider: identityProviderOf(userAgent),
        ...(resource.type === undefined ? {} : { resourceType: resource.type }),
        ...(resourceId === undefined ? {} : { resourceId }),
        ...(bulkOperations === undefined ? {} : { bulkOperations }),
        ...bodies,
      };
    };
    response.once("finish", finish);
    response.once("close", finish);
    next();
  };
}
