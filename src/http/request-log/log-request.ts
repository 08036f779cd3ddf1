/**
 * The provisioning log's middleware (issue 18): notes one request on arrival, has the router's
 * writers keep the response's text (`noteResponseText`), and hands a `RequestLogEntry` to the
 * router's `RequestLog` after the response has closed, so the log never delays or fails the
 * answer. Measured against the same host without a log, it costs every request a few percent of
 * throughput (bench/explanations.md); each per-request allocation it used to make (wrapped
 * `write` and `end`, a `once` listener, a timer per response) was a visible part of that.
 */
import type { Request, RequestHandler, Response } from "express";
import { auditedId } from "../../audit/hand-to-sink.js";
import { identityProviderOf } from "../../request-log/identity-provider-of.js";
import { boundUnauthenticatedEntry } from "../../request-log/bound-unauthenticated-entry.js";
import { maskSecretsInText } from "../../request-log/mask-secrets-in-text.js";
import { mayHoldSecret, redactBody, truncateUtf8 } from "../../request-log/redact-body.js";
import { redactQuery } from "../../request-log/redact-query.js";
import type { RequestLog, RequestLogEntry } from "../../request-log/request-log.js";
import type { SchemaRegistry } from "../../scim/schema/schema-registry.js";
import { refusedRequestBodyOf } from "./refused-request-body.js";
import { requestIdOf } from "./request-id.js";
import { keepResponseText, type ResponseTextKeeper } from "./response-text-keeper.js";
import type { ScimRequestContext } from "../request-context/scim-request-context.js";

/** `RequestLog.maxBodyBytes` when the sink names none: 64 KiB. */
export const DEFAULT_MAX_LOGGED_BODY_BYTES = 65_536;

const MAX_USER_AGENT_LENGTH = 512;

const WATCH = Symbol("scimkit.requestLogWatch");

/** The response's text as the router's writers kept it, cut to `limit` UTF-8 bytes. */
function writtenText(keeper: ResponseTextKeeper, limit: number): { readonly text: string; readonly truncated: boolean } {
  const cut = truncateUtf8(keeper.text, limit);
  return keeper.more || cut.truncated ? { text: cut.text, truncated: true } : { text: keeper.text, truncated: false };
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

/** What the middleware notes about one request while it runs, for the entry built after its response. */
interface Watch extends ResponseTextKeeper {
  readonly request: Request;
  readonly response: Response;
  /** `performance.now()` at arrival. */
  readonly started: number;
  /** `Date.now()` at arrival, formatted only when the entry is built. */
  readonly arrived: number;
  /** The router-relative path, read on arrival: Express gives `request.url` back its mount path on the way out. */
  readonly relativePath: string;
  /** Set when the response has closed. */
  durationMs: number;
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
function buildEntry(watch: Watch, context: ScimRequestContext, settings: LogSettings): RequestLogEntry {
  const { request, response } = watch;
  const { secrets, maxBytes } = settings;
  const status = response.statusCode;
  const authenticated = context.principal !== undefined;
  const userAgent = request.headers["user-agent"]?.slice(0, MAX_USER_AGENT_LENGTH);
  const resource = resourceOf(watch.relativePath, settings.registry);
  const resourceId = resource.id ?? (resource.type && request.method === "POST" && status < 300 ? createdId(response) : undefined);
  const written = writtenText(watch, maxBytes);
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
    at: new Date(watch.arrived).toISOString(),
    method: request.method,
    path: redactQuery(request.originalUrl, secrets),
    status,
    durationMs: watch.durationMs,
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
  if (resource.type === undefined && /^\/bulk\/?$/i.test(watch.relativePath)) {
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
  // Entries are built in batches on a later turn of the event loop: the entry never delays the
  // next request's read, and one timer serves every response that closed meanwhile.
  let closed: Watch[] = [];
  const buildClosed = (): void => {
    const batch = closed;
    closed = [];
    for (const watch of batch) {
      try {
        const context = (watch.response.locals as { scim?: ScimRequestContext }).scim;
        // No resolved organization: nothing to file the entry under.
        if (!context) continue;
        const entry = buildEntry(watch, context, settings);
        // Without a verified token, whoever sent it could be anyone: never in the organization's
        // entries (issue 27), only in the log's own bounded space for them, if it has one.
        const pending = entry.authenticated ? log.record(entry) : log.recordUnauthenticated?.(boundUnauthenticatedEntry(entry));
        if (pending) pending.catch((error: unknown) => onError(error, watch.request));
      } catch (error) {
        onError(error, watch.request);
      }
    }
  };
  // One listener for every response (`this` is the response): no closure per request.
  function onClose(this: Response): void {
    const watch = (this.locals as { [WATCH]?: Watch })[WATCH];
    if (watch === undefined) return;
    watch.durationMs = Math.round((performance.now() - watch.started) * 1000) / 1000;
    if (closed.length === 0) setImmediate(buildClosed);
    closed.push(watch);
  }
  return (request, response, next) => {
    // Only what cannot be read later is read now.
    const watch: Watch = {
      request,
      response,
      started: performance.now(),
      arrived: Date.now(),
      relativePath: request.path,
      durationMs: 0,
      // Kept in UTF-16 units: at least `maxBytes` characters hold at least `maxBytes` bytes.
      limit: maxBytes,
      text: "",
      more: false,
    };
    (response.locals as { [WATCH]?: Watch })[WATCH] = watch;
    keepResponseText(response, watch);
    // Node keeps the peer's address once read: `request.ip` still has it after the socket closed.
    void request.socket.remoteAddress;
    // 'close' follows 'finish' on every response (Node ≥ 16), and comes alone when the client hung up.
    response.on("close", onClose);
    next();
  };
}
