import {
  deleteBeyondCount,
  deleteOlderThan,
  type RequestLogRetentionResult,
  type RequestLogSweep,
  requestLogOrganizations,
} from "./request-log-retention.js";
import type { RequestLogBuffer } from "./request-log-buffer.js";
import { deleteUnauthenticatedBefore } from "./unauthenticated-log-rows.js";

/**
 * One retention sweep, or the one under way: entries past the age, then each organization's beyond
 * its count — those written to since the last sweep, every one on the first. A sweep that fails
 * leaves its organizations to the next.
 */
export function enforceRequestLogRetention(buffer: RequestLogBuffer): Promise<RequestLogRetentionResult> {
  if (buffer.sweeping) return buffer.sweeping;
  const { db, now } = buffer;
  const { maxAgeMs, maxEntriesPerOrg, unauthenticatedMaxAgeMs } = buffer.settings;
  const sweep: RequestLogSweep = { db, batchSize: buffer.settings.retentionBatchSize, stopped: () => buffer.closed };
  const organizations = buffer.written;
  buffer.written = new Set();
  const run = (async (): Promise<RequestLogRetentionResult> => {
    try {
      const deletedByAge = Number.isFinite(maxAgeMs) ? await deleteOlderThan(sweep, now() - maxAgeMs) : 0;
      await deleteUnauthenticatedBefore(db, now() - unauthenticatedMaxAgeMs);
      let deletedByCount = 0;
      if (Number.isFinite(maxEntriesPerOrg)) {
        const orgIds = buffer.sweptAll ? [...organizations] : await requestLogOrganizations(db);
        for (const orgId of orgIds) {
          if (buffer.closed) break;
          deletedByCount += await deleteBeyondCount(sweep, orgId, maxEntriesPerOrg);
        }
      }
      buffer.sweptAll = true;
      return { deletedByAge, deletedByCount };
    } catch (error) {
      for (const orgId of organizations) buffer.written.add(orgId);
      throw error;
    }
  })();
  buffer.sweeping = run;
  // Cleared once settled, never before it is set (a sweep with both limits off settles at once).
  const done = (): void => {
    if (buffer.sweeping === run) buffer.sweeping = undefined;
  };
  run.then(done, done);
  return run;
}
