/**
 * Handing audit entries to an `AuditSink` the way its contract asks of every writer — the SCIM
 * router, the analytics router, or an API of the host's sharing the same trail: entries frozen,
 * ids bounded, and a failing sink reported, never failing the request (the write is decided).
 */
import { isPossibleId } from "../is-possible-id.js";
import type { AuditEntry, AuditSink } from "./audit-sink.js";

/** Longest id an entry keeps: a server-assigned id is far shorter, a longer one names nothing. */
export const MAX_AUDITED_ID_LENGTH = 256;

/**
 * `value` as an entry's `resourceId` (or `bulkId`): a non-empty string of at most
 * `MAX_AUDITED_ID_LENGTH` characters that a store can hold (`isPossibleId`: no NUL, which
 * PostgreSQL refuses), else undefined, so a client cannot write megabytes into the trail through
 * a path, nor make the entry fail to be written.
 *
 * @example auditedId(request.params.id) // "2819c223…", or undefined for "" and for 300 characters
 */
export function auditedId(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 && value.length <= MAX_AUDITED_ID_LENGTH && isPossibleId(value) ? value : undefined;
}

/** Longest `AuditEntry.target` kept: longer than any URL a receiver registration accepts. */
export const MAX_AUDITED_TARGET_LENGTH = 2048;

/** `value` as an entry's `target`: a non-empty string cut to `MAX_AUDITED_TARGET_LENGTH`, else undefined. */
export function auditedTarget(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value.slice(0, MAX_AUDITED_TARGET_LENGTH) : undefined;
}

/**
 * Hands `entry`, frozen, to `sink`, and resolves once the sink has settled; a sink that throws or
 * rejects goes to `onError` instead (the `AuditSink` contract: a rejection never fails the
 * request). Await it before sending the response, so an acknowledged write has been handed over.
 *
 * @example await handToSink(sink, { orgId, operation: "billing.charge", at, outcome: "success", status: 201, via: "billing" }, report)
 */
export async function handToSink<Operation extends string>(
  sink: AuditSink,
  entry: AuditEntry<Operation>,
  onError: (error: unknown) => void,
): Promise<void> {
  try {
    await sink.record(Object.freeze(entry));
  } catch (error) {
    onError(error);
  }
}
