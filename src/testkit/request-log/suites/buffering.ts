/**
 * Buffering: a log that buffers entries before writing them keeps its memory bounded by dropping
 * (and counting) what does not fit, and loses nothing it accepted when it is closed.
 */
import { expect } from "vitest";
import { type RequestLogConformanceSuite, requestLogConformanceTest } from "../request-log-conformance-test.js";
import { allEntries, logEntry, newestFirst, newOrgId, recordAll, requireHandle } from "./request-log-helpers.js";

export const bufferingSuite: RequestLogConformanceSuite = {
  title: "buffering",
  tests: [
    requestLogConformanceTest("drops and counts the entries recorded past bufferCapacity, and keeps the others", async (context) => {
      const dropped = requireHandle(context.dropped, "dropped");
      const { bufferCapacity } = context.settings;
      const orgId = newOrgId();
      const entries = Array.from({ length: bufferCapacity + 5 }, (_, index) => logEntry(orgId, index, {}, true));
      const before = dropped();
      // In one turn of the event loop: no background write can make room in between.
      for (const entry of entries) void context.log.record(entry);
      expect(dropped() - before).toBe(5);
      await context.flush?.();
      expect(await allEntries(context, orgId)).toEqual(newestFirst(entries.slice(0, bufferCapacity)));
      // Room again once written.
      await recordAll(
        context,
        [entries[0]].filter((entry) => entry !== undefined),
      );
      expect(dropped() - before).toBe(5);
    }),

    requestLogConformanceTest("writes every entry it accepted when it is closed", async (context) => {
      const closeAndReopen = requireHandle(context.closeAndReopen, "closeAndReopen");
      const acme = newOrgId();
      const globex = newOrgId();
      // As many as the buffer takes, none written before the close.
      const entries = Array.from({ length: context.settings.bufferCapacity }, (_, index) =>
        logEntry(index % 3 === 0 ? globex : acme, index),
      );
      for (const entry of entries) void context.log.record(entry);
      const reopened = await closeAndReopen();
      expect(context.dropped?.() ?? 0).toBe(0);
      const listed = (await reopened.list(acme, { limit: 1000 })).entries;
      expect(listed).toEqual(newestFirst(entries.filter((entry) => entry.orgId === acme)));
      expect((await reopened.list(globex, { limit: 1000 })).entries).toEqual(
        newestFirst(entries.filter((entry) => entry.orgId === globex)),
      );
    }),
  ],
};
