/**
 * Report jobs (issue 19): admission — an identical request gets the operation queued, running or
 * freshly succeeded, a bound refuses — claims with heartbeats and takeover after the lease (rows
 * of the dead owner gone, never duplicated), writes fenced by the owner, and the purge of
 * expired operations in bounded batches.
 */
import { expect } from "vitest";
import type { Operation, ReportAdmission, ReportRow } from "@scimkit/server";
import {
  analyticsConformanceTest,
  type AnalyticsConformanceContext,
  type AnalyticsConformanceSuite,
} from "../analytics-conformance-test.js";
import { ALL, addOrganization, newId, readAllRows, time } from "./helpers.js";

/** Admission at minute `minute`: a 5-minute freshness window, roomy bounds unless given. */
function admission(minute: number, overrides: Partial<ReportAdmission> = {}): ReportAdmission {
  return { now: time(minute), freshSince: time(minute - 5), maxActive: 10, maxStoredRows: 1_000_000, ...overrides };
}

function request(orgId: string, requestKey: string, minute: number, overrides: Partial<Operation> = {}): Operation {
  return {
    id: newId(),
    kind: "campaign-users-report",
    orgId,
    subjectId: newId(),
    status: "queued",
    progress: { done: 0 },
    createdAt: time(minute),
    requestKey,
    expiresAt: time(minute + 24 * 60),
    ...overrides,
  };
}

function rows(from: number, count: number, tag = "row"): ReportRow[] {
  return Array.from({ length: count }, (_, offset) => ({ index: from + offset, tag }));
}

async function created(context: AnalyticsConformanceContext, operation: Operation, at = admission(0)): Promise<Operation> {
  const start = await context.analytics.startOperation(operation, at);
  expect(start.outcome).toBe("created");
  return operation;
}

/** Claim at minute `minute` with a 1-minute lease. */
function claimAt(ownerId: string, minute: number, id?: string) {
  return { ownerId, now: time(minute), staleBefore: time(minute - 1), ...(id === undefined ? {} : { id }) };
}

export const reportJobsSuite: AnalyticsConformanceSuite = {
  title: "report jobs: dedupe, bounds, claims, purge",
  tests: [
    analyticsConformanceTest(
      "startOperation reuses an identical queued or running operation, never another request's or organization's",
      async (context) => {
        const acme = await addOrganization(context);
        const globex = await addOrganization(context);
        const first = await created(context, request(acme.id, "key-a", 0));
        const again = await context.analytics.startOperation(request(acme.id, "key-a", 1), admission(1));
        expect(again).toEqual({ outcome: "reused", operation: first });
        await context.analytics.updateOperation(first.id, { status: "running", startedAt: time(1) });
        const whileRunning = await context.analytics.startOperation(request(acme.id, "key-a", 2), admission(2));
        expect(whileRunning.outcome === "reused" && whileRunning.operation.id).toBe(first.id);
        // Another request key, another organization: each its own operation.
        await created(context, request(acme.id, "key-b", 2), admission(2));
        await created(context, request(globex.id, "key-a", 2), admission(2));
        // No key: never reused.
        const { requestKey: _key, ...keyless } = request(acme.id, "key-a", 3);
        await created(context, keyless, admission(3));
        await created(context, { ...keyless, id: newId() }, admission(3));
      },
    ),

    analyticsConformanceTest(
      "startOperation reuses a succeeded operation within the freshness window only, and never a failed or expired one",
      async (context) => {
        const acme = await addOrganization(context);
        const done = await created(context, request(acme.id, "key", 0));
        await context.analytics.updateOperation(done.id, { status: "succeeded", finishedAt: time(2), progress: { done: 3, total: 3 } });
        const fresh = await context.analytics.startOperation(request(acme.id, "key", 6), admission(6));
        expect(fresh.outcome === "reused" && fresh.operation.id).toBe(done.id);
        // Finished 2, window from 3 on: stale, so a new one.
        const stale = await created(context, request(acme.id, "key", 8), admission(8));
        await context.analytics.updateOperation(stale.id, { status: "failed", finishedAt: time(9), error: "broken" });
        const afterFailure = await context.analytics.startOperation(request(acme.id, "key", 9), admission(9));
        expect(afterFailure.outcome).toBe("created");
        // A queued one that expired is not reused either.
        const short = await created(context, request(acme.id, "short-lived", 10, { expiresAt: time(11) }), admission(10));
        const afterExpiry = await context.analytics.startOperation(request(acme.id, "short-lived", 11), admission(11));
        expect(afterExpiry.outcome === "created" && afterExpiry.operation.id).not.toBe(short.id);
      },
    ),

    analyticsConformanceTest(
      "startOperation refuses at the active bound and at the stored-rows bound, counting only unexpired operations",
      async (context) => {
        const acme = await addOrganization(context);
        const other = await addOrganization(context);
        const bounds = { maxActive: 2, maxStoredRows: 100 };
        await created(context, request(acme.id, "a", 0), admission(0, bounds));
        const second = await created(context, request(acme.id, "b", 0), admission(0, bounds));
        expect(await context.analytics.startOperation(request(acme.id, "c", 0), admission(0, bounds))).toEqual({
          outcome: "refused",
          bound: "active",
        });
        // Another organization has bounds of its own; and an identical request is still answered.
        await created(context, request(other.id, "c", 0), admission(0, bounds));
        expect((await context.analytics.startOperation(request(acme.id, "a", 0), admission(0, bounds))).outcome).toBe("reused");
        // One finishes with 100 rows: room for a job, none for rows; retry when those expire.
        await context.analytics.updateOperation(second.id, {
          status: "succeeded",
          finishedAt: time(1),
          progress: { done: 100, total: 100 },
        });
        expect(await context.analytics.startOperation(request(acme.id, "c", 1), admission(1, bounds))).toEqual({
          outcome: "refused",
          bound: "rows",
          retryAt: second.expiresAt,
        });
        // Once they expired (purged or not), they count for nothing.
        expect(
          (await context.analytics.startOperation(request(acme.id, "c", 24 * 60 + 1), admission(24 * 60 + 1, { ...bounds, maxActive: 10 })))
            .outcome,
        ).toBe("created");
      },
    ),

    analyticsConformanceTest(
      "a claim holds until its lease runs out; a takeover starts from zero, and the old owner's writes are refused",
      async (context) => {
        const acme = await addOrganization(context);
        const operation = await created(context, request(acme.id, "key", 0));
        const claimed = await context.analytics.claimOperation(claimAt("host-a", 0));
        expect(claimed).toMatchObject({ id: operation.id, ownerId: "host-a", heartbeatAt: time(0), attempts: 1 });
        expect(await context.analytics.claimOperation(claimAt("host-b", 0))).toBeUndefined();
        expect(await context.analytics.updateOperation(operation.id, { status: "running", startedAt: time(0) }, "host-a")).toBe(true);
        expect(await context.analytics.appendReportRows(operation.id, rows(0, 3, "a"), "host-a")).toBe(true);
        expect(await context.analytics.updateOperation(operation.id, { progress: { done: 3 } }, "host-a")).toBe(true);
        // A heartbeat keeps the claim: at minute 1.5 with a 1-minute lease, a heartbeat at 1 is fresh.
        expect(await context.analytics.heartbeatOperation(operation.id, "host-a", time(1))).toBe(true);
        expect(await context.analytics.claimOperation({ ownerId: "host-b", now: time(1.5), staleBefore: time(0.5) })).toBeUndefined();
        // host-a dies: no heartbeat after minute 1; at minute 3 the lease ran out.
        const taken = await context.analytics.claimOperation(claimAt("host-b", 3));
        expect(taken).toMatchObject({
          id: operation.id,
          ownerId: "host-b",
          heartbeatAt: time(3),
          attempts: 2,
          status: "running",
          progress: { done: 0 },
        });
        expect((await readAllRows(context, operation.id)).rows).toEqual([]);
        // host-a wakes up: nothing it writes lands.
        expect(await context.analytics.appendReportRows(operation.id, rows(3, 2, "a"), "host-a")).toBe(false);
        expect(await context.analytics.updateOperation(operation.id, { status: "succeeded", finishedAt: time(4) }, "host-a")).toBe(false);
        expect(await context.analytics.heartbeatOperation(operation.id, "host-a", time(4))).toBe(false);
        expect(await context.analytics.appendReportRows(operation.id, rows(0, 3, "b"), "host-b")).toBe(true);
        expect(
          await context.analytics.updateOperation(
            operation.id,
            { status: "succeeded", finishedAt: time(4), progress: { done: 3, total: 3 } },
            "host-b",
          ),
        ).toBe(true);
        expect((await readAllRows(context, operation.id)).rows).toEqual(rows(0, 3, "b"));
        expect(await context.analytics.getOperation(ALL, operation.id)).toMatchObject({
          status: "succeeded",
          ownerId: "host-b",
          progress: { done: 3, total: 3 },
        });
        // Finished: never claimed again.
        expect(await context.analytics.claimOperation(claimAt("host-c", 60))).toBeUndefined();
      },
    ),

    analyticsConformanceTest(
      "claims take the oldest first, or only the one named; never an expired or finished one; a running one without a heartbeat at once",
      async (context) => {
        const acme = await addOrganization(context);
        const older = await created(context, request(acme.id, "older", 0));
        const newer = await created(context, request(acme.id, "newer", 1), admission(1));
        const expired = await created(context, request(acme.id, "expired", 0, { expiresAt: time(2) }));
        const orphan = await created(context, request(acme.id, "orphan", 0, { status: "running", startedAt: time(0) }));
        const finished = await created(context, request(acme.id, "finished", 0, { status: "failed", finishedAt: time(0) }));
        expect((await context.analytics.claimOperation(claimAt("w", 3, newer.id)))?.id).toBe(newer.id);
        expect(await context.analytics.claimOperation(claimAt("w", 3, expired.id))).toBeUndefined();
        expect(await context.analytics.claimOperation(claimAt("w", 3, finished.id))).toBeUndefined();
        const claimed = new Set<string>();
        for (let round = 0; round < 5; round += 1) {
          const next = await context.analytics.claimOperation(claimAt("w", 3));
          if (next !== undefined) claimed.add(next.id);
        }
        expect(claimed).toEqual(new Set([older.id, orphan.id]));
      },
    ),

    analyticsConformanceTest(
      "releaseOperation makes a job claimable at once, by anyone, and uncounted in attempts; another owner cannot release it",
      async (context) => {
        const acme = await addOrganization(context);
        const operation = await created(context, request(acme.id, "key", 0));
        expect((await context.analytics.claimOperation(claimAt("host-a", 0)))?.id).toBe(operation.id);
        await context.analytics.releaseOperation(operation.id, "host-b");
        expect(await context.analytics.claimOperation(claimAt("host-b", 0))).toBeUndefined();
        await context.analytics.releaseOperation(operation.id, "host-a");
        expect(await context.analytics.claimOperation(claimAt("host-b", 0))).toMatchObject({
          id: operation.id,
          ownerId: "host-b",
          attempts: 1,
        });
      },
    ),

    analyticsConformanceTest("two claimers at once never get the same operation", async (context) => {
      const acme = await addOrganization(context);
      const operations: Operation[] = [];
      for (let index = 0; index < 6; index += 1) operations.push(await created(context, request(acme.id, `key-${index}`, 0)));
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, index) => context.analytics.claimOperation(claimAt(`host-${index}`, 0))),
      );
      const ids = claims.flatMap((claim) => (claim === undefined ? [] : [claim.id]));
      expect(new Set(ids).size).toBe(ids.length);
      // Whatever a claimer skipped (locked by another) is there for the next poll: all six in the end.
      for (;;) {
        const next = await context.analytics.claimOperation(claimAt("late", 0));
        if (next === undefined) break;
        ids.push(next.id);
      }
      expect(new Set(ids)).toEqual(new Set(operations.map((operation) => operation.id)));
      expect(ids).toHaveLength(6);
    }),

    analyticsConformanceTest(
      "purgeExpiredOperations deletes expired operations and their rows in bounded batches and nothing else",
      async (context) => {
        const acme = await addOrganization(context);
        const big = await created(context, request(acme.id, "big", 0, { expiresAt: time(10) }));
        const small = await created(context, request(acme.id, "small", 0, { expiresAt: time(10) }));
        const kept = await created(context, request(acme.id, "kept", 0, { expiresAt: time(100) }));
        await context.analytics.appendReportRows(big.id, rows(0, 25));
        await context.analytics.appendReportRows(small.id, rows(0, 2));
        await context.analytics.appendReportRows(kept.id, rows(0, 4));
        expect(await context.analytics.purgeExpiredOperations(time(9), 10)).toBe(0);
        const batches: number[] = [];
        for (;;) {
          const deleted = await context.analytics.purgeExpiredOperations(time(10), 10);
          if (deleted === 0) break;
          expect(deleted).toBeLessThanOrEqual(11);
          batches.push(deleted);
        }
        // 27 rows and 2 operations, at most about 10 a call.
        expect(batches.reduce((sum, deleted) => sum + deleted, 0)).toBe(29);
        expect(batches.length).toBeGreaterThanOrEqual(3);
        expect(await context.analytics.getOperation(ALL, big.id)).toBeUndefined();
        expect(await context.analytics.getOperation(ALL, small.id)).toBeUndefined();
        expect((await readAllRows(context, big.id)).rows).toEqual([]);
        expect((await context.analytics.getOperation(ALL, kept.id))?.id).toBe(kept.id);
        expect((await readAllRows(context, kept.id)).rows).toEqual(rows(0, 4));
      },
    ),
  ],
};
