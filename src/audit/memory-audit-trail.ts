/**
 * `memoryAuditTrail`: the audit trail in process memory, for tests, development and hosts on the
 * memory store. Bounded per organization, so a long-running process does not grow without end.
 */
import { v7 as uuidv7 } from "uuid";
import type { AuditEntry } from "./audit-sink.js";
import { auditPageSize, type AuditRecord, type AuditTrail } from "./audit-trail.js";

/** Options of `memoryAuditTrail`. */
export interface MemoryAuditTrailOptions {
  /** Entries kept per organization; the oldest go first. Default 10,000. */
  readonly maxEntriesPerOrganization?: number;
}

/**
 * An `AuditTrail` in memory, lost on restart.
 *
 * @example
 * const trail = memoryAuditTrail();
 * createScimRouter({ store, auth, onAudit: trail });
 */
export function memoryAuditTrail(options: MemoryAuditTrailOptions = {}): AuditTrail {
  const cap = options.maxEntriesPerOrganization ?? 10_000;
  if (!Number.isInteger(cap) || cap < 1)
    throw new Error(`memoryAuditTrail: maxEntriesPerOrganization must be a positive integer; got ${String(cap)}.`);
  // Oldest first per organization; ids are UUID v7, so they increase along each list.
  const byOrg = new Map<string, AuditRecord[]>();

  return {
    async record(entry: AuditEntry): Promise<void> {
      const kept: AuditRecord = Object.freeze({ ...entry, id: uuidv7() });
      let entries = byOrg.get(entry.orgId);
      if (entries === undefined) {
        entries = [];
        byOrg.set(entry.orgId, entries);
      }
      entries.push(kept);
      // Trimmed in batches of a quarter of the cap: amortized O(1) per entry.
      if (entries.length > cap + Math.ceil(cap / 4)) entries.splice(0, entries.length - cap);
    },

    async list(orgId, query) {
      const limit = auditPageSize(query);
      const entries = byOrg.get(orgId) ?? [];
      const visible = entries.length > cap ? entries.slice(entries.length - cap) : entries;
      let end = visible.length;
      if (query?.before !== undefined) {
        // The first entry not before `before`, by binary search over the increasing ids.
        const before = query.before;
        let low = 0;
        while (low < end) {
          const middle = (low + end) >>> 1;
          if ((visible[middle] as AuditRecord).id < before) low = middle + 1;
          else end = middle;
        }
      }
      return visible.slice(Math.max(0, end - limit), end).reverse();
    },
  };
}
