/**
 * A `RequestLog` that can be read back: what the reference logs implement, so an integrator can
 * answer "what exactly did the identity provider send, and what did we answer?".
 */
import type { IdentityProvider } from "./identity-provider-of.js";
import type { RequestLog, RequestLogEntry, UnauthenticatedRequestLogEntry } from "./request-log.js";

/** The first digit of an HTTP status: `2` for 2xx, … `5` for 5xx. */
export type StatusClass = 1 | 2 | 3 | 4 | 5;

/** Which entries of an organization `ReadableRequestLog.list` returns; every member narrows. */
export interface RequestLogQuery {
  /** Only entries that arrived at or after this ISO 8601 time. */
  readonly from?: string;
  /** Only entries that arrived before this ISO 8601 time. */
  readonly to?: string;
  /** Only entries whose status is of this class (`4` for every 4xx). */
  readonly statusClass?: StatusClass;
  /** Only entries about this resource id. */
  readonly resourceId?: string;
  /** Only entries from this identity provider. */
  readonly identityProvider?: IdentityProvider;
  /** Only the entry (or entries: a client may reuse its ids) with this `X-Request-Id`. */
  readonly requestId?: string;
  /** Most entries in the page. Default 100, at most 1,000. */
  readonly limit?: number;
  /** `nextCursor` of the previous page: the page continues after its last entry. */
  readonly cursor?: string;
}

/** One page of entries, newest first. */
export interface RequestLogPage {
  readonly entries: readonly RequestLogEntry[];
  /** Present when older matching entries may follow: pass it as `cursor` for the next page. */
  readonly nextCursor?: string;
}

/** Which unauthenticated entries `ReadableRequestLog.listUnauthenticated` returns. */
export interface UnauthenticatedRequestLogQuery {
  /** Only entries whose path claimed this organization id (which may not exist). */
  readonly orgId?: string;
  /** Most entries in the page. Default 100, at most 1,000. */
  readonly limit?: number;
  /** `nextCursor` of the previous page: the page continues after its last entry. */
  readonly cursor?: string;
}

/** One page of unauthenticated entries, newest first, and how many such requests were not kept. */
export interface UnauthenticatedRequestLogPage {
  readonly entries: readonly UnauthenticatedRequestLogEntry[];
  /** Present when older matching entries may follow: pass it as `cursor` for the next page. */
  readonly nextCursor?: string;
  /**
   * Unauthenticated requests the sample left out (past its budget per window) since `droppedSince`,
   * whatever organization they claimed: the size of the noise the entries are a sample of.
   */
  readonly dropped: number;
  /** ISO 8601 time from which `dropped` counts: the log's start, or the oldest time its retention keeps. */
  readonly droppedSince: string;
}

/**
 * Keeps request-log entries and lists them per organization, newest first.
 *
 * @example
 * const log = memoryRequestLog({ capacity: 10_000 });
 * const failures = await log.list("acme", { statusClass: 4, limit: 20 });
 * const older = await log.list("acme", { statusClass: 4, limit: 20, cursor: failures.nextCursor });
 */
export interface ReadableRequestLog extends RequestLog {
  /**
   * The entries of `orgId` matching `query`, newest first. Another organization's entries never
   * appear, whatever the query. Throws a `RangeError` naming the member for a malformed query
   * (an unparsable time, a limit outside 1–1,000, a cursor this log did not give).
   */
  list(orgId: string, query?: RequestLogQuery): Promise<RequestLogPage>;
  /**
   * Optional, with `recordUnauthenticated`. The unauthenticated entries kept (every claimed
   * organization together, or the one `query.orgId` names), newest first, and the count of those
   * not kept. For the host's operator only: they are outsiders' requests and may name any
   * organization. Throws a `RangeError` naming the member for a malformed query.
   */
  listUnauthenticated?(query?: UnauthenticatedRequestLogQuery): Promise<UnauthenticatedRequestLogPage>;
}
