/**
 * Retention: a sweep deletes entries older than `maxAgeMs` by the log's clock, and each
 * organization's entries beyond its newest `maxEntriesPerOrg`, and nothing else.
 */
import { expect } from "vitest";
import { type RequestLogConformanceSuite, requestLogConformanceTest } from "../request-log-conformance-test.js";
import { allEntries, KIT_EPOCH, logEntry, newestFirst, newOrgId, recordAll, requireHandle } from "./request-log-helpers.js";

export const retentionSuite: RequestLogConformanceSuite = {
  title: "retention",
  tests: [
    requestLogConformanceTest("deletes entries older than maxAgeMs by the log's clock, in every organization", async (context) => {
      const enforce = requireHandle(context.enforceRetention, "enforceRetention");
      const { maxAgeMs } = context.settings;
      const acme = newOrgId();
      const globex = newOrgId();
      // Times in seconds after the kit's epoch; the clock is put at 1,000 s.
      const ageSeconds = maxAgeMs / 1000;
      const old = [logEntry(acme, 1000 - ageSeconds - 5), logEntry(globex, 1000 - ageSeconds - 1)];
      const young = [logEntry(acme, 1000 - ageSeconds + 1), logEntry(globex, 999), logEntry(acme, 1000)];
      await recordAll(
        context,
        [old[0], young[0], old[1], young[1], young[2]].filter((entry) => entry !== undefined),
      );
      context.setNow(KIT_EPOCH + 1000 * 1000);
      await enforce();
      expect(await allEntries(context, acme)).toEqual([young[2], young[0]]);
      expect(await allEntries(context, globex)).toEqual([young[1]]);
      // Time passes: what was young ages out too.
      context.setNow(KIT_EPOCH + 1000 * 1000 + maxAgeMs);
      await enforce();
      expect(await allEntries(context, acme)).toEqual([young[2]]);
      expect(await allEntries(context, globex)).toEqual([]);
    }),

    requestLogConformanceTest("keeps each organization's newest maxEntriesPerOrg entries, sweep after sweep", async (context) => {
      const enforce = requireHandle(context.enforceRetention, "enforceRetention");
      const { maxEntriesPerOrg } = context.settings;
      const busy = newOrgId();
      const quiet = newOrgId();
      // Every entry younger than maxAgeMs (a minute): only the count deletes.
      context.setNow(KIT_EPOCH + 1000 * 1000);
      const busyEntries = Array.from({ length: maxEntriesPerOrg + 3 }, (_, index) => logEntry(busy, 970 + index));
      const quietEntries = Array.from({ length: maxEntriesPerOrg - 1 }, (_, index) => logEntry(quiet, 970 + index));
      await recordAll(context, [...busyEntries, ...quietEntries]);
      await enforce();
      expect(await allEntries(context, busy)).toEqual(newestFirst(busyEntries).slice(0, maxEntriesPerOrg));
      expect(await allEntries(context, quiet)).toEqual(newestFirst(quietEntries));
      // Written since the last sweep: the next one trims again, and still leaves the quiet one alone.
      const laterBusy = [logEntry(busy, 990), logEntry(busy, 991)];
      const laterQuiet = [logEntry(quiet, 992), logEntry(quiet, 993)];
      await recordAll(context, [...laterBusy, ...laterQuiet]);
      await enforce();
      expect(await allEntries(context, busy)).toEqual(newestFirst([...busyEntries, ...laterBusy]).slice(0, maxEntriesPerOrg));
      expect(await allEntries(context, quiet)).toEqual(newestFirst([...quietEntries, ...laterQuiet]).slice(0, maxEntriesPerOrg));
    }),
  ],
};
