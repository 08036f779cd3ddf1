/**
 * `sqlRequestLog` as the request-log conformance kit wants it: on an emptied table of a store
 * the test file opened, with the kit's clock, limits and buffer, its timers too slow to fire
 * during a check (the kit flushes and sweeps when it means to).
 */
import type { RequestLogConformanceSettings, RequestLogUnderTest } from "../../../testkit/request-log/request-log-conformance-test.js";
import type { SqlStore } from "../sql-store.js";
import { RequestLogOverflowError } from "./request-log-overflow-error.js";
import { type SqlRequestLog, type SqlRequestLogOptions, sqlRequestLog } from "./sql-request-log.js";

/** The kit's log over `store`, after deleting every entry the previous check left. */
export async function sqlRequestLogUnderTest(
  store: SqlStore | undefined,
  settings: RequestLogConformanceSettings,
  options: SqlRequestLogOptions = {},
): Promise<RequestLogUnderTest> {
  if (!store) throw new Error("the store did not open (see beforeAll)");
  await store.db.deleteFrom("scimkit_request_log").execute();
  await store.db.deleteFrom("scimkit_unauthenticated_log").execute();
  await store.db.deleteFrom("scimkit_unauthenticated_drops").execute();
  const failures: unknown[] = [];
  const open = (): SqlRequestLog =>
    sqlRequestLog(store, {
      now: settings.now,
      maxAgeMs: settings.maxAgeMs,
      maxEntriesPerOrg: settings.maxEntriesPerOrg,
      bufferCapacity: settings.bufferCapacity,
      unauthenticatedCapacity: settings.unauthenticatedCapacity,
      unauthenticatedPerMinute: settings.unauthenticatedPerMinute,
      flushIntervalMs: 3_600_000,
      retentionIntervalMs: 3_600_000,
      // Small statements, so the sweeps of the kit's few rows take several.
      retentionBatchSize: 2,
      onError: (error) => {
        // Drops are what the overflow check makes; anything else fails the check at its close.
        if (!(error instanceof RequestLogOverflowError)) failures.push(error);
      },
      ...options,
    });
  let current = open();
  return {
    get log() {
      return current;
    },
    flush: () => current.flush(),
    enforceRetention: async () => {
      await current.enforceRetention();
    },
    dropped: () => current.dropped,
    async closeAndReopen() {
      await current.close();
      current = open();
      return current;
    },
    async close() {
      await current.close();
      if (failures.length > 0) throw new AggregateError(failures, "sqlRequestLog reported errors to onError");
    },
  };
}
