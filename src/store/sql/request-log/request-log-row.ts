/**
 * A `RequestLogEntry` as a row of `scimkit_request_log` and back: every member in a column of its
 * own, an absent optional member as null, so a read gives back the entry that was recorded. The
 * columns an `UnauthenticatedRequestLogEntry` has are the same in `scimkit_unauthenticated_log`,
 * but for the organization's (`claimed_org_id` there).
 */
import type { Insertable, Selectable } from "kysely";
import type { IdentityProvider } from "../../../request-log/identity-provider-of.js";
import type { RequestBodyRefusal, RequestLogEntry, UnauthenticatedRequestLogEntry } from "../../../request-log/request-log.js";
import type { RequestLogTable, SharedLogColumns } from "../sql-tables.js";

/**
 * `value` as both databases store it. PostgreSQL cannot store U+0000 in text (a `detail` can echo
 * one a client sent in a filter): both get U+FFFD, so an entry reads back the same from either.
 */
export function text(value: string): string {
  return value.includes("\u0000") ? value.replaceAll("\u0000", "\uFFFD") : value;
}

function optionalText(value: string | undefined): string | null {
  return value === undefined ? null : text(value);
}

function flag(value: boolean | undefined): number | null {
  return value === undefined ? null : value ? 1 : 0;
}

/**
 * The columns of `entry` both log tables have (`SharedLogColumns`; the organization's is named
 * apart in each), recorded as `seq` at `recordedAt` (milliseconds; the time an entry whose `at`
 * does not parse is filed under).
 */
export function sharedLogColumnsOf(entry: UnauthenticatedRequestLogEntry, seq: string, recordedAt: number): Insertable<SharedLogColumns> {
  const at = Date.parse(entry.at);
  return {
    seq,
    request_id: text(entry.requestId),
    at: text(entry.at),
    at_ms: Number.isNaN(at) ? recordedAt : at,
    method: text(entry.method),
    path: text(entry.path),
    status: entry.status,
    scim_type: optionalText(entry.scimType),
    detail: optionalText(entry.detail),
    duration_ms: entry.durationMs,
    client_address: optionalText(entry.clientAddress),
    user_agent: optionalText(entry.userAgent),
    identity_provider: entry.identityProvider,
  };
}

/** The row of `entry`, recorded as `seq` at `recordedAt` (see `sharedLogColumnsOf`). */
export function requestLogRowOf(entry: RequestLogEntry, seq: string, recordedAt: number): Insertable<RequestLogTable> {
  return {
    ...sharedLogColumnsOf(entry, seq, recordedAt),
    org_id: text(entry.orgId),
    authenticated: entry.authenticated ? 1 : 0,
    token_id: optionalText(entry.tokenId),
    resource_type: optionalText(entry.resourceType),
    resource_id: optionalText(entry.resourceId),
    bulk_operations: entry.bulkOperations ?? null,
    request_body: optionalText(entry.requestBody),
    request_body_truncated: flag(entry.requestBodyTruncated),
    request_body_refused: optionalText(entry.requestBodyRefused),
    response_body: optionalText(entry.responseBody),
    response_body_truncated: flag(entry.responseBodyTruncated),
  };
}

/** The columns of `scimkit_request_log`, in the order `requestLogRowValues` gives their values. */
export const REQUEST_LOG_COLUMNS = [
  "org_id",
  "seq",
  "request_id",
  "at",
  "at_ms",
  "method",
  "path",
  "status",
  "scim_type",
  "detail",
  "duration_ms",
  "authenticated",
  "token_id",
  "client_address",
  "user_agent",
  "identity_provider",
  "resource_type",
  "resource_id",
  "bulk_operations",
  "request_body",
  "request_body_truncated",
  "request_body_refused",
  "response_body",
  "response_body_truncated",
] as const satisfies readonly (keyof RequestLogTable)[];

/**
 * `requestLogRowOf` as the parameters of one row of a multi-row insert, in `REQUEST_LOG_COLUMNS`
 * order: the log inserts them with a statement whose text is compiled once, not per batch.
 */
export function requestLogRowValues(entry: RequestLogEntry, seq: string, recordedAt: number): unknown[] {
  const row = requestLogRowOf(entry, seq, recordedAt);
  return REQUEST_LOG_COLUMNS.map((column) => row[column]);
}

/** The UTF-16 length of the text `entry` holds: what a buffered entry costs in memory, roughly. */
export function requestLogEntrySize(entry: RequestLogEntry): number {
  let size = 256;
  for (const value of Object.values(entry)) if (typeof value === "string") size += value.length * 2;
  return size;
}

/** The members of the columns both log tables have (`sharedLogColumnsOf` read back), not frozen. */
export function sharedLogMembersOf(row: Selectable<SharedLogColumns>): Omit<UnauthenticatedRequestLogEntry, "orgId"> {
  return {
    requestId: row.request_id,
    at: row.at,
    method: row.method,
    path: row.path,
    status: Number(row.status),
    ...(row.scim_type === null ? {} : { scimType: row.scim_type }),
    ...(row.detail === null ? {} : { detail: row.detail }),
    durationMs: Number(row.duration_ms),
    ...(row.client_address === null ? {} : { clientAddress: row.client_address }),
    ...(row.user_agent === null ? {} : { userAgent: row.user_agent }),
    identityProvider: row.identity_provider as IdentityProvider,
  };
}

/** The entry a row holds, frozen. */
export function requestLogEntryOf(row: Selectable<RequestLogTable>): RequestLogEntry {
  return Object.freeze({
    ...sharedLogMembersOf(row),
    orgId: row.org_id,
    authenticated: Number(row.authenticated) === 1,
    ...(row.token_id === null ? {} : { tokenId: row.token_id }),
    ...(row.resource_type === null ? {} : { resourceType: row.resource_type }),
    ...(row.resource_id === null ? {} : { resourceId: row.resource_id }),
    ...(row.bulk_operations === null ? {} : { bulkOperations: Number(row.bulk_operations) }),
    ...(row.request_body === null ? {} : { requestBody: row.request_body }),
    ...(row.request_body_truncated === null ? {} : { requestBodyTruncated: Number(row.request_body_truncated) === 1 }),
    ...(row.request_body_refused === null ? {} : { requestBodyRefused: row.request_body_refused as RequestBodyRefusal }),
    ...(row.response_body === null ? {} : { responseBody: row.response_body }),
    ...(row.response_body_truncated === null ? {} : { responseBodyTruncated: Number(row.response_body_truncated) === 1 }),
  });
}
