/**
 * An `AuditSink` that can be read back: what the reference sinks (`memoryAuditTrail`,
 * `sqlAuditTrail`) implement, so an operator can answer "who changed this user, and when".
 */
import type { AuditEntry, AuditSink } from "./audit-sink.js";

/** A kept entry, with the id the trail gave it. */
export interface AuditRecord extends AuditEntry {
  /** A UUID v7, unique in the trail; ids order the entries of one trail by the time they were kept. */
  readonly id: string;
}

/** Which entries of an organization `AuditTrail.list` returns. */
export interface AuditQuery {
  /** Most entries to return. Default 100, at most 1,000. */
  readonly limit?: number;
  /** Only entries kept before the one with this id: the next page after a previous list's last entry. */
  readonly before?: string;
}

/**
 * Keeps audit entries and lists them per organization, newest first.
 *
 * @example
 * const trail = memoryAuditTrail();
 * app.use("/scim/Organizations/:orgId/v2", createScimRouter({ store, auth, onAudit: trail }));
 * const latest = await trail.list("acme", { limit: 20 });
 * const older = await trail.list("acme", { limit: 20, before: latest.at(-1)?.id });
 */
export interface AuditTrail extends AuditSink {
  /**
   * The entries of `orgId`, newest first, `query.limit` at most, before `query.before` when given.
   * Another organization's entries never appear, whatever the query.
   */
  list(orgId: string, query?: AuditQuery): Promise<readonly AuditRecord[]>;
}

/** The page size `list` uses: the default, or the asked one within 1 and 1,000. */
export function auditPageSize(query: AuditQuery | undefined): number {
  const limit = query?.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`audit trail: limit must be a positive integer; got ${String(query?.limit)}.`);
  return Math.min(limit, 1000);
}
