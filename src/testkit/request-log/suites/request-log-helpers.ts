/**
 * Entries for the request-log checks: complete ones (every optional member set) and bare ones,
 * each in a random organization of the check's own, at times one second apart from a fixed start.
 */
import { randomUUID } from "node:crypto";
import type { RequestLogEntry } from "../../../request-log/request-log.js";
import type { RequestLogConformanceContext } from "../request-log-conformance-test.js";

/** 2026-01-01T00:00:00Z: the kit's first `at`; the clock starts a day after it. */
export const KIT_EPOCH = Date.UTC(2026, 0, 1);

/** A new random organization id. */
export function newOrgId(): string {
  return `org-${randomUUID()}`;
}

let counter = 0;

/** An entry of `orgId`, `seconds` after `KIT_EPOCH`, with every member set unless `bare`. */
export function logEntry(orgId: string, seconds: number, overrides: Partial<RequestLogEntry> = {}, bare = false): RequestLogEntry {
  counter += 1;
  const base: RequestLogEntry = {
    requestId: `req-${counter}-${randomUUID()}`,
    orgId,
    at: new Date(KIT_EPOCH + seconds * 1000).toISOString(),
    method: "POST",
    path: `/scim/Organizations/${orgId}/v2/Users?attributes=userName`,
    status: 201,
    durationMs: 12.5,
    authenticated: true,
    identityProvider: "okta",
  };
  if (bare) return { ...base, ...overrides };
  return {
    ...base,
    scimType: "uniqueness",
    detail: "userName \"ünïcödé\" is taken — 'quoted', with a newline\nand a tab\t",
    tokenId: `tok-${counter}`,
    clientAddress: "203.0.113.7",
    userAgent: "Okta SCIM Client 1.0.0",
    resourceType: "User",
    resourceId: `user-${counter}`,
    bulkOperations: 3,
    requestBody: JSON.stringify({ userName: "alice", password: "[redacted]", emoji: "🎉" }),
    requestBodyTruncated: false,
    responseBody: JSON.stringify({ id: `user-${counter}` }),
    responseBodyTruncated: true,
    ...overrides,
  };
}

/** Records `entries` in order, writing them as often as the log's buffer needs, then writes the rest. */
export async function recordAll(context: RequestLogConformanceContext, entries: readonly RequestLogEntry[]): Promise<void> {
  for (const [index, entry] of entries.entries()) {
    await context.log.record(entry);
    if ((index + 1) % context.settings.bufferCapacity === 0) await context.flush?.();
  }
  await context.flush?.();
}

/** Every entry of `orgId` matching nothing but the organization, newest first, over as many pages as it takes. */
export async function allEntries(context: RequestLogConformanceContext, orgId: string): Promise<RequestLogEntry[]> {
  const entries: RequestLogEntry[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const result = await context.log.list(orgId, { limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
    entries.push(...result.entries);
    if (result.nextCursor === undefined) return entries;
    cursor = result.nextCursor;
  }
  throw new Error("the log kept giving cursors");
}

/** `entries` newest first (the reverse of the order they were recorded in). */
export function newestFirst(entries: readonly RequestLogEntry[]): RequestLogEntry[] {
  return [...entries].reverse();
}

/** What a handle the kit needs is missing: say which, and how to skip. */
export function requireHandle<T>(value: T | undefined, handle: string): T {
  if (value === undefined)
    throw new Error(`the factory gave no ${handle}(): give one, or skip this check by name with the reason the log has none`);
  return value;
}
