/**
 * What a provisioning log keeps of a request without a verified token (issue 27): the members of
 * `UnauthenticatedRequestLogEntry` only, each text cut, so the space an outsider can fill is
 * bounded per entry as well as in entries.
 */
import type { UnauthenticatedRequestLogEntry } from "./request-log.js";

/** The most UTF-16 characters kept of each text member of an unauthenticated entry. */
export const UNAUTHENTICATED_TEXT_LIMITS = {
  requestId: 128,
  orgId: 128,
  at: 40,
  method: 16,
  path: 512,
  scimType: 64,
  detail: 512,
  clientAddress: 64,
  userAgent: 256,
} as const;

const cut = (text: string, limit: number): string => {
  const kept = text.length > limit ? text.slice(0, limit) : text;
  // Never half a surrogate pair: it could not be stored as UTF-8.
  return /[\uD800-\uDBFF]$/.test(kept) ? kept.slice(0, -1) : kept;
};

/**
 * `entry` as a log keeps it: only the members of `UnauthenticatedRequestLogEntry` (whatever else
 * the object holds, bodies included, is left out), each text cut at `UNAUTHENTICATED_TEXT_LIMITS`. Frozen.
 *
 * @example boundUnauthenticatedEntry({ ...entry, path: "/x".repeat(9000) }).path.length // 512
 */
export function boundUnauthenticatedEntry(entry: UnauthenticatedRequestLogEntry): UnauthenticatedRequestLogEntry {
  const limits = UNAUTHENTICATED_TEXT_LIMITS;
  const optional = (name: "scimType" | "detail" | "clientAddress" | "userAgent"): Partial<UnauthenticatedRequestLogEntry> => {
    const value = entry[name];
    return typeof value === "string" ? { [name]: cut(value, limits[name]) } : {};
  };
  return Object.freeze({
    requestId: cut(String(entry.requestId), limits.requestId),
    orgId: cut(String(entry.orgId), limits.orgId),
    at: cut(String(entry.at), limits.at),
    method: cut(String(entry.method), limits.method),
    path: cut(String(entry.path), limits.path),
    status: Number(entry.status),
    ...optional("scimType"),
    ...optional("detail"),
    durationMs: Number(entry.durationMs),
    ...optional("clientAddress"),
    ...optional("userAgent"),
    identityProvider: entry.identityProvider,
  });
}
