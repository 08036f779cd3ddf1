/**
 * Operations and report rows: an operation is visible through its organization, changes only in
 * the fields an update names, and its report rows come back in the order they were appended, a
 * page at a time — also for a report far larger than one page.
 */
import { expect } from "vitest";
import type { ReportRow } from "@scimkit/server";
import { analyticsConformanceTest, type AnalyticsConformanceSuite } from "../analytics-conformance-test.js";
import { ALL, addOperation, addOrganization, newId, only, readAllRows, time } from "./helpers.js";

function row(index: number): ReportRow {
  return {
    index,
    userId: `user-${String(index).padStart(6, "0")}`,
    displayName: index % 7 === 0 ? null : `Learner ${index}, "the ${index}th"\nsecond line`,
    active: index % 3 !== 0,
    score: index % 5 === 0 ? null : (index % 100) + 0.5,
  };
}

export const operationsSuite: AnalyticsConformanceSuite = {
  title: "operations and report rows",
  tests: [
    analyticsConformanceTest("getOperation returns an operation only when its organization is in scope", async (context) => {
      const acme = await addOrganization(context);
      const globex = await addOrganization(context);
      const operation = await addOperation(context, acme.id, newId(), { kind: "simulation-users-report", createdAt: time(3) });
      expect(await context.analytics.getOperation(ALL, operation.id)).toEqual(operation);
      expect(await context.analytics.getOperation(only(acme.id, globex.id), operation.id)).toEqual(operation);
      expect(await context.analytics.getOperation(only(globex.id), operation.id)).toBeUndefined();
      expect(await context.analytics.getOperation(only(), operation.id)).toBeUndefined();
      expect(await context.analytics.getOperation(ALL, newId())).toBeUndefined();
    }),

    analyticsConformanceTest("updateOperation applies the fields given and keeps the rest", async (context) => {
      const acme = await addOrganization(context);
      const operation = await addOperation(context, acme.id, newId());
      await context.analytics.updateOperation(operation.id, { status: "running", startedAt: time(1) });
      const running = { ...operation, status: "running", startedAt: time(1) };
      expect(await context.analytics.getOperation(ALL, operation.id)).toEqual(running);
      await context.analytics.updateOperation(operation.id, { progress: { done: 1000, total: 2500 } });
      expect(await context.analytics.getOperation(ALL, operation.id)).toEqual({ ...running, progress: { done: 1000, total: 2500 } });
      await context.analytics.updateOperation(operation.id, { status: "failed", finishedAt: time(2), error: "The campaign was deleted" });
      expect(await context.analytics.getOperation(ALL, operation.id)).toEqual({
        ...running,
        progress: { done: 1000, total: 2500 },
        status: "failed",
        finishedAt: time(2),
        error: "The campaign was deleted",
      });
      const other = await addOperation(context, acme.id, newId());
      await context.analytics.updateOperation(other.id, {
        status: "succeeded",
        progress: { done: 0, total: 0 },
        startedAt: time(4),
        finishedAt: time(5),
      });
      expect(await context.analytics.getOperation(ALL, other.id)).toEqual({
        ...other,
        status: "succeeded",
        progress: { done: 0, total: 0 },
        startedAt: time(4),
        finishedAt: time(5),
      });
      expect((await context.analytics.getOperation(ALL, operation.id))?.status).toBe("failed");
    }),

    analyticsConformanceTest("report rows appended in several batches read back in order, values intact", async (context) => {
      const acme = await addOrganization(context);
      const operation = await addOperation(context, acme.id, newId());
      const other = await addOperation(context, acme.id, newId());
      const edges: ReportRow = { empty: "", zero: 0, negative: -12.25, large: 2 ** 40, unicode: "Zoë 🎉 ß", falsy: false, nothing: null };
      const batches = [[row(0), row(1), row(2)], [row(3)], [], [row(4), row(5), edges, row(6), row(7), row(8), row(9)]];
      for (const batch of batches) {
        await context.analytics.appendReportRows(operation.id, batch);
        await context.analytics.appendReportRows(other.id, [
          { index: -1, userId: "interleaved", displayName: null, active: false, score: 0 },
        ]);
      }
      const { rows, pages } = await readAllRows(context, operation.id);
      expect(rows).toEqual(batches.flat());
      expect(pages).toBeGreaterThanOrEqual(1);
      expect((await readAllRows(context, other.id)).rows).toHaveLength(batches.length);
      // Reading twice gives the same rows: a read consumes nothing.
      expect((await readAllRows(context, operation.id)).rows).toEqual(batches.flat());
    }),

    analyticsConformanceTest("an operation without rows reads back no rows", async (context) => {
      const acme = await addOrganization(context);
      const operation = await addOperation(context, acme.id, newId());
      expect((await readAllRows(context, operation.id)).rows).toEqual([]);
      expect((await readAllRows(context, newId())).rows).toEqual([]);
    }),

    analyticsConformanceTest(
      "a 25,000-row report appended 1,000 rows at a time reads back fully, in order, in several pages",
      async (context) => {
        const acme = await addOrganization(context);
        const operation = await addOperation(context, acme.id, newId());
        const total = 25_000;
        for (let start = 0; start < total; start += 1000) {
          await context.analytics.appendReportRows(
            operation.id,
            Array.from({ length: 1000 }, (_, offset) => row(start + offset)),
          );
        }
        let count = 0;
        let pages = 0;
        let ordered = true;
        let intact = true;
        for await (const page of context.analytics.readReportRows(operation.id)) {
          pages += 1;
          for (const read of page) {
            if (read["index"] !== count) ordered = false;
            if (count % 997 === 0 && JSON.stringify(Object.entries(read).sort()) !== JSON.stringify(Object.entries(row(count)).sort()))
              intact = false;
            count += 1;
          }
        }
        expect(count).toBe(total);
        expect(ordered, "rows come back in the order they were appended").toBe(true);
        expect(intact, "sampled rows come back with every value").toBe(true);
        expect(pages, "a report this size is read a page at a time").toBeGreaterThan(1);
      },
      { timeoutMs: 120_000 },
    ),
  ],
};
