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
  const write = response.write as (...args: unknown[]) => boolean;
  const end = response.end as (...args: unknown[]) => Response;
  // Wrapping the two methods every Express response goes through (`send`, `json`, `sendScim`,
  // `writeJsonInPieces`) sees the exact bytes the client got, whichever route wrote them.
  response.write = function (this: Response, chunk: Chunk, ...rest: unknown[]) {
    keep(chunk, rest[0]);
    return write.call(this, chunk, ...rest);
  } as Response["write"];
  response.end = function (this: Response, chunk?: unknown, ...rest: unknown[]) {
    keep(chunk, rest[0]);
    return end.call(this, chunk, ...rest);
  } as Response["end"];
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

/** What the middleware noted while the request ran, for the entry built after its response. */
interface Seen {
  /** `Date.now()` at arrival, formatted only when the entry is built. */
  readonly arrived: number;
  readonly path: string;
  /** The router-relative path, read on arrival: Express gives `request.url` back its mount path on the way out. */
  readonly relativePath: string;
  readonly durationMs: number;
}

/** An entry while it is built. */
type EntryDraft = { -readonly [K in keyof RequestLogEntry]: RequestLogEntry[K] };

/** What the entry builder needs of the router's configuration. */
interface LogSettings {
  readonly registry: SchemaRegistry;
  readonly secrets: ReadonlySet<string>;
  readonly maxBytes: number;
}

/** The request body as the entry keeps it: redacted JSON, the text the parser refused, or nothing. */
function requestBodyOf(request: Request, settings: LogSettings, entry: EntryDraft): void {
  const refused = refusedRequestBodyOf(request);
  if (refused) {
    entry.requestBodyRefused = refused.reason;
    const masked = refused.text === undefined ? undefined : maskSecretsInText(refused.text, settings.secrets);
    if (masked === undefined) return;
    const kept = truncateUtf8(masked, settings.maxBytes);
    entry.requestBody = kept.text;
    entry.requestBodyTruncated = kept.truncated;
    return;
  }
  const body: unknown = request.body;
  if (body === null || typeof body !== "object" || (!Array.isArray(body) && Object.keys(body).length === 0)) return;
  const json = JSON.stringify(body);
  const kept = truncateUtf8(
    mayHoldSecret(json, settings.secrets) ? JSON.stringify(redactBody(body, settings.secrets)) : json,
    settings.maxBytes,
  );
  entry.requestBody = kept.text;
  entry.requestBodyTruncated = kept.truncated;
}

/** The entry of a request whose response has finished. Built by assignment: this runs once per request. */
function buildEntry(
  request: Request,
  response: Response,
  context: ScimRequestContext,
  seen: Seen,
  captured: ReturnType<typeof captureResponse>,
  settings: LogSettings,
): RequestLogEntry {
  const { secrets, maxBytes } = settings;
  const status = response.statusCode;
  const authenticated = context.principal !== undefined;
  const userAgent = request.headers["user-agent"]?.slice(0, MAX_USER_AGENT_LENGTH);
  const resource = resourceOf(seen.relativePath, settings.registry);
  const resourceId = resource.id ?? (resource.type && request.method === "POST" && status < 300 ? createdId(response) : undefined);
  const written = captured();
  // Parsed only when needed: an error's body for its scimType and detail, and a body that may
  // hold a secret for `redactBody`. A success without one is kept as written, unparsed.
  const mayRedact = written.text !== "" && mayHoldSecret(written.text, secrets);
  const responseJson = written.truncated || written.text === "" || (status < 400 && !mayRedact) ? undefined : parsed(written.text);
  const error =
    status >= 400 && responseJson !== null && typeof responseJson === "object"
      ? (responseJson as { scimType?: unknown; detail?: unknown })
      : undefined;
  const entry: EntryDraft = {
    requestId: requestIdOf(response) ?? "",
    orgId: context.orgId,
    at: new Date(seen.arrived).toISOString(),
    method: request.method,
    path: seen.path,
    status,
    durationMs: seen.durationMs,
    authenticated,
    identityProvider: identityProviderOf(userAgent),
  };
  if (typeof error?.scimType === "string") entry.scimType = error.scimType;
  if (typeof error?.detail === "string") entry.detail = error.detail;
  const tokenId = context.principal?.tokenId;
  if (tokenId !== undefined) entry.tokenId = tokenId;
  if (request.ip !== undefined) entry.clientAddress = request.ip;
  if (userAgent !== undefined) entry.userAgent = userAgent;
  if (resource.type !== undefined) entry.resourceType = resource.type;
  if (resourceId !== undefined) entry.resourceId = resourceId;
  if (resource.type === undefined && /^\/bulk\/?$/i.test(seen.relativePath)) {
    const bulkOperations = operationCount(request.body);
    if (bulkOperations !== undefined) entry.bulkOperations = bulkOperations;
  }
  if (authenticated) {
    requestBodyOf(request, settings, entry);
    if (written.text !== "") {
      // Parsed, it is redacted like the request; cut, it cannot be parsed, and is kept as the
      // service wrote it: the router never renders a `returned: never` attribute.
      const text = mayRedact && responseJson !== undefined ? JSON.stringify(redactBody(responseJson, secrets)) : written.text;
      const kept = truncateUtf8(text, maxBytes);
      entry.responseBody = kept.text;
      entry.responseBodyTruncated = written.truncated || kept.truncated;
    }
  }
  return Object.freeze(entry);
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
  const settings: LogSettings = { registry, secrets, maxBytes };
  return (request, response, next) => {
    // Only what cannot be read later is read now; the entry is built after the response.
    const started = performance.now();
    const arrived = Date.now();
    const relativePath = request.path;
    // Node keeps the peer's address once read: `request.ip` still has it after the socket closed.
    void request.socket.remoteAddress;
    const captured = captureResponse(response, maxBytes);
    // 'close' follows 'finish' on every response (Node ≥ 16), and comes alone when the client hung up.
    response.once("close", () => {
      const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
      const context = (response.locals as { scim?: ScimRequestContext }).scim;
      // No resolved organization: nothing to file the entry under.
      if (!context) return;
      // On a later turn of the event loop: the entry never delays the next request's read.
      setImmediate(() => {
        try {
          const seen = { arrived, path: request.originalUrl, relativePath, durationMs };
          const pending = log.record(buildEntry(request, response, context, seen, captured, settings));
          if (pending) pending.catch((error: unknown) => onError(error, request));
        } catch (error) {
          onError(error, request);
        }
      });
    });
    next();
  };
}
