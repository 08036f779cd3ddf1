/**
 * The provisioning-log extension point (issue 18): one entry per SCIM request, handed over after
 * its response has been sent, so an integrator can see what the identity provider sent and what
 * the service answered. scimkit ships `memoryRequestLog()`; send entries anywhere else (a log
 * pipeline, a database) by implementing this interface.
 */
import type { IdentityProvider } from "./identity-provider-of.js";

/**
 * One SCIM request and its answer. Bodies are JSON text with every secret replaced by
 * `"[redacted]"` (`redactBody`): `password`, any attribute the registry marks `returned: never`
 * or `writeOnly`, and any member named like a token or secret. The `Authorization` header is never
 * part of an entry, nor any other header but `User-Agent`.
 */
export interface RequestLogEntry {
  /** The request's `X-Request-Id`: the client's own when it sent a sane one, else ours (UUID v7). */
  readonly requestId: string;
  /**
   * The organization the request was addressed to (from its path). Verified in the organization's
   * own log; as claimed in an `UnauthenticatedRequestLogEntry`.
   */
  readonly orgId: string;
  /** ISO 8601 time the request arrived. */
  readonly at: string;
  /** The HTTP method. */
  readonly method: string;
  /**
   * Path and query from the app's root (`/scim/Organizations/acme/v2/Users?filter=…`), the query
   * redacted by `redactQuery`: the SCIM query parameters kept as sent (unless one names a secret),
   * every other parameter's value replaced by `[redacted]`.
   */
  readonly path: string;
  /** The HTTP status of the response. */
  readonly status: number;
  /** The RFC 7644 §3.12 `scimType` of an error response, when it had one. */
  readonly scimType?: string;
  /** The RFC 7644 §3.12 `detail` of an error response. */
  readonly detail?: string;
  /** Milliseconds from the request's arrival to the end of its response. */
  readonly durationMs: number;
  /**
   * Whether the bearer token was verified for `orgId`: always true in an organization's log. A
   * request without a verified token (a 401, the unauthenticated `/ServiceProviderConfig`) goes to
   * `RequestLog.recordUnauthenticated` instead, as an `UnauthenticatedRequestLogEntry`.
   */
  readonly authenticated: boolean;
  /** `Principal.tokenId` of the verified token, when the verifier gives one. Never the token nor its hash. */
  readonly tokenId?: string;
  /** The client's address as Express sees it (`request.ip`: honours the app's `trust proxy`). */
  readonly clientAddress?: string;
  /** The `User-Agent` header, at most 512 characters. */
  readonly userAgent?: string;
  /** The identity provider recognised from `userAgent` (`identityProviderOf`). */
  readonly identityProvider: IdentityProvider;
  /** The resource type the path names (`User`, `Group`, …), when it names one. */
  readonly resourceType?: string;
  /** The resource id the path names (at most 256 characters), or the id a create assigned. */
  readonly resourceId?: string;
  /** The number of operations of a `POST /Bulk` request. */
  readonly bulkOperations?: number;
  /**
   * The request body, redacted, as JSON text; absent when there was none, the request was
   * unauthenticated, or the body parser refused it (see `requestBodyRefused`) for any reason but
   * malformed JSON.
   */
  readonly requestBody?: string;
  /** Whether `requestBody` was cut at the log's `maxBodyBytes`. */
  readonly requestBodyTruncated?: boolean;
  /**
   * Why the body parser refused the request body, when it did. With `invalidJson`, `requestBody`
   * is the text as received (not JSON), its secrets masked by a tolerant scan of the text
   * (`"password": "[redacted]"`) since it could not be parsed, and it is absent when the scan found
   * a secret-like word it could not place. For the other reasons no body is kept: it was never
   * read (`tooLarge`, `unsupportedMediaType`) or never arrived whole (`incomplete`).
   */
  readonly requestBodyRefused?: RequestBodyRefusal;
  /** The response body, redacted, as JSON text; absent when there was none or the request was unauthenticated. */
  readonly responseBody?: string;
  /** Whether `responseBody` was cut at the log's `maxBodyBytes`. */
  readonly responseBodyTruncated?: boolean;
}

/**
 * A request that came without a verified token (a 401, or the unauthenticated
 * `/ServiceProviderConfig`), for any organization id, real or made up: who knocked, not what they
 * sent. No bodies, no token id. `orgId` is the one the path claimed. A log keeps these apart from
 * every organization's entries, in a small space of their own (`recordUnauthenticated`), with its
 * texts cut: `path` and `detail` at 512 characters, `userAgent` at 256, `orgId` and `requestId` at 128.
 */
export type UnauthenticatedRequestLogEntry = Pick<
  RequestLogEntry,
  | "requestId"
  | "orgId"
  | "at"
  | "method"
  | "path"
  | "status"
  | "scimType"
  | "detail"
  | "durationMs"
  | "clientAddress"
  | "userAgent"
  | "identityProvider"
>;

/**
 * Why the body parser refused a request body: `invalidJson` (400, malformed JSON), `tooLarge` (413,
 * over the router's `bodyLimit` or Bulk's `maxPayloadSize`), `unsupportedMediaType` (415, a
 * Content-Type, charset or Content-Encoding not read) or `incomplete` (400, the body ended before
 * its declared length).
 */
export type RequestBodyRefusal = "invalidJson" | "tooLarge" | "unsupportedMediaType" | "incomplete";

/**
 * Receives the provisioning log of a router (`ScimRouterOptions.requestLog`).
 *
 * @example
 * const log = memoryRequestLog({ capacity: 10_000 });
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth, requestLog: log }));
 */
export interface RequestLog {
  /**
   * Largest body, in UTF-8 bytes, an entry keeps of each of the request and the response; beyond
   * it the redacted text is cut and the entry says so. Default 65,536 (64 KiB): a user or a page of
   * 100 users fits, a 100,000-member group does not need to.
   */
  readonly maxBodyBytes?: number;
  /**
   * Keeps one entry.
   *
   * Contract:
   * - Called once per SCIM request with a token verified for its organization, after its
   *   response has finished (or its connection closed): the response never waits for the log.
   * - Never called for a request without a verified token (a 401, for a real organization or a
   *   made-up one): anyone could write those, so they never reach an organization's entries nor
   *   push them out (see `recordUnauthenticated`). Requests whose path names no possible
   *   organization are not logged at all.
   * - A throw or rejection never reaches the client (the response is gone); it goes to the
   *   router's `onError`.
   * - The entry is frozen; keep it as it is.
   *
   * @param entry The request and its answer.
   */
  record(entry: RequestLogEntry): void | Promise<void>;
  /**
   * Optional. Keeps one request that came without a verified token, in a space apart from every
   * organization's entries. A log without this method is never given such requests.
   *
   * Contract:
   * - Called once per such request after its response, as `record` is; the entry names the
   *   organization the path claimed, which may not exist.
   * - Anyone on the network decides how many of these arrive: the log must keep a bounded number
   *   (a small capacity, a sample per time window) and count what it did not keep, and must never
   *   let them evict an organization's entries.
   * - A throw or rejection goes to the router's `onError`. The entry is frozen.
   *
   * @param entry Who knocked, without bodies.
   */
  recordUnauthenticated?(entry: UnauthenticatedRequestLogEntry): void | Promise<void>;
}
