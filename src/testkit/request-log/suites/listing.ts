/**
 * Listing: an organization's entries come back as they were recorded, newest first, filtered by
 * every member of `RequestLogQuery`, in cursor pages, and never another organization's.
 */
import { expect } from "vitest";
import type { RequestLogQuery } from "../../../request-log/readable-request-log.js";
import { type RequestLogConformanceSuite, requestLogConformanceTest } from "../request-log-conformance-test.js";
import { allEntries, KIT_EPOCH, logEntry, newestFirst, newOrgId, recordAll } from "./request-log-helpers.js";

export const listingSuite: RequestLogConformanceSuite = {
  title: "listing",
  tests: [
    requestLogConformanceTest("lists entries newest first with every member as recorded", async (context) => {
      const orgId = newOrgId();
      const entries = [
        logEntry(orgId, 1),
        logEntry(orgId, 2, {}, true),
        logEntry(orgId, 3, { authenticated: false, status: 401, identityProvider: "other" }, true),
        logEntry(orgId, 4, {
          requestBodyTruncated: true,
          requestBodyRefused: "invalidJson",
          responseBodyTruncated: false,
          durationMs: 0.123,
        }),
      ];
      await recordAll(context, entries);
      const listed = (await context.log.list(orgId)).entries;
      expect(listed).toEqual(newestFirst(entries));
      // Absent optional members stay absent: not null, not undefined-valued keys.
      expect(Object.keys(listed[1] ?? {}).sort()).toEqual(Object.keys(entries[2] ?? {}).sort());
    }),

    requestLogConformanceTest("never shows another organization's entries, whatever the query", async (context) => {
      const acme = newOrgId();
      const globex = newOrgId();
      const mine = [logEntry(acme, 1), logEntry(acme, 2)];
      const theirs = [logEntry(globex, 3, { resourceId: "shared-id" }), logEntry(globex, 4)];
      await recordAll(
        context,
        [mine[0], theirs[0], mine[1], theirs[1]].filter((entry) => entry !== undefined),
      );
      expect(await allEntries(context, acme)).toEqual(newestFirst(mine));
      expect(await allEntries(context, globex)).toEqual(newestFirst(theirs));
      expect((await context.log.list(newOrgId())).entries).toEqual([]);
      const theirRequestId = theirs[0]?.requestId ?? "";
      expect((await context.log.list(acme, { requestId: theirRequestId })).entries).toEqual([]);
      expect((await context.log.list(acme, { resourceId: "shared-id" })).entries).toEqual([]);
      // A cursor from another organization's page only ever continues in the organization asked for.
      const theirPage = await context.log.list(globex, { limit: 1 });
      expect(theirPage.nextCursor).toBeDefined();
      const continued = await context.log.list(acme, { cursor: theirPage.nextCursor ?? "" });
      for (const entry of continued.entries) expect(entry.orgId).toBe(acme);
      // Organization ids are exact: no prefix, case or pattern match.
      expect((await context.log.list(acme.toUpperCase())).entries).toEqual([]);
      expect((await context.log.list(acme.slice(0, -1))).entries).toEqual([]);
      expect((await context.log.list(`${acme.slice(0, -1)}%`)).entries).toEqual([]);
    }),

    requestLogConformanceTest("filters by time range, status class, resource id, identity provider and request id", async (context) => {
      const orgId = newOrgId();
      const ok = logEntry(orgId, 1, { status: 200, resourceId: "u1", identityProvider: "okta" });
      const notFound = logEntry(orgId, 2, { status: 404, resourceId: "u2", identityProvider: "entra" });
      const conflict = logEntry(orgId, 3, { status: 409, resourceId: "u1", identityProvider: "entra" });
      const failed = logEntry(orgId, 4, { status: 503, identityProvider: "google" }, true);
      const redirect = logEntry(orgId, 5, { status: 304, requestId: ok.requestId, identityProvider: "ping" }, true);
      await recordAll(context, [ok, notFound, conflict, failed, redirect]);
      const list = async (query: RequestLogQuery) => (await context.log.list(orgId, query)).entries;
      expect(await list({ statusClass: 4 })).toEqual([conflict, notFound]);
      expect(await list({ statusClass: 2 })).toEqual([ok]);
      expect(await list({ statusClass: 3 })).toEqual([redirect]);
      expect(await list({ statusClass: 5 })).toEqual([failed]);
      expect(await list({ statusClass: 1 })).toEqual([]);
      expect(await list({ resourceId: "u1" })).toEqual([conflict, ok]);
      expect(await list({ resourceId: "u" })).toEqual([]);
      expect(await list({ identityProvider: "entra" })).toEqual([conflict, notFound]);
      expect(await list({ identityProvider: "entra", resourceId: "u1" })).toEqual([conflict]);
      expect(await list({ identityProvider: "onelogin" })).toEqual([]);
      // A client may reuse its request ids: every entry carrying it.
      expect(await list({ requestId: ok.requestId })).toEqual([redirect, ok]);
      expect(await list({ requestId: notFound.requestId })).toEqual([notFound]);
      // `from` includes its instant, `to` excludes its own; any ISO 8601 form of a time works.
      expect(await list({ from: notFound.at })).toEqual([redirect, failed, conflict, notFound]);
      expect(await list({ to: notFound.at })).toEqual([ok]);
      expect(await list({ from: notFound.at, to: failed.at })).toEqual([conflict, notFound]);
      const offset = new Date(KIT_EPOCH + 2000).toISOString().replace("Z", "+00:00");
      expect(await list({ from: offset, to: offset })).toEqual([]);
      expect(await list({ from: offset, statusClass: 4, identityProvider: "entra", resourceId: "u1" })).toEqual([conflict]);
    }),

    requestLogConformanceTest("pages with cursors, continuing after the previous page's last entry", async (context) => {
      const orgId = newOrgId();
      const entries = Array.from({ length: 7 }, (_, index) => logEntry(orgId, index));
      await recordAll(context, entries);
      const newest = newestFirst(entries);
      const first = await context.log.list(orgId, { limit: 3 });
      expect(first.entries).toEqual(newest.slice(0, 3));
      expect(typeof first.nextCursor).toBe("string");
      const second = await context.log.list(orgId, { limit: 3, cursor: first.nextCursor ?? "" });
      expect(second.entries).toEqual(newest.slice(3, 6));
      const third = await context.log.list(orgId, { limit: 3, cursor: second.nextCursor ?? "" });
      expect(third).toEqual({ entries: newest.slice(6) });
      // A page that ends exactly at the last match gives no cursor.
      expect(await context.log.list(orgId, { limit: 7 })).toEqual({ entries: newest });
      // Filters and cursors together: the 4xx among them, two by two.
      const failures = [logEntry(orgId, 10, { status: 404 }), logEntry(orgId, 11, { status: 200 }), logEntry(orgId, 12, { status: 409 })];
      const more = [logEntry(orgId, 13, { status: 400 }), logEntry(orgId, 14, { status: 201 })];
      await recordAll(context, [...failures, ...more]);
      const firstFailures = await context.log.list(orgId, { statusClass: 4, limit: 2 });
      expect(firstFailures.entries).toEqual([more[0], failures[2]]);
      const lastFailures = await context.log.list(orgId, { statusClass: 4, limit: 2, cursor: firstFailures.nextCursor ?? "" });
      expect(lastFailures).toEqual({ entries: [failures[0]] });
    }),

    requestLogConformanceTest("pages through a filter, and keeps a page stable while newer entries arrive", async (context) => {
      const orgId = newOrgId();
      const entries = [
        logEntry(orgId, 1, { status: 200 }),
        logEntry(orgId, 2, { status: 500 }),
        logEntry(orgId, 3, { status: 201 }),
        logEntry(orgId, 4, { status: 503 }),
      ];
      await recordAll(context, entries);
      const first = await context.log.list(orgId, { statusClass: 5, limit: 1 });
      expect(first.entries).toEqual([entries[3]]);
      await recordAll(context, [logEntry(orgId, 5, { status: 502 })]);
      const second = await context.log.list(orgId, { statusClass: 5, limit: 1, cursor: first.nextCursor ?? "" });
      expect(second).toEqual({ entries: [entries[1]] });
    }),

    requestLogConformanceTest("gives 100 entries by default and up to 1,000 when asked", async (context) => {
      const orgId = newOrgId();
      const entries = Array.from({ length: 105 }, (_, index) => logEntry(orgId, index, {}, true));
      await recordAll(context, entries);
      const first = await context.log.list(orgId);
      expect(first.entries).toEqual(newestFirst(entries).slice(0, 100));
      expect(first.nextCursor).toBeDefined();
      expect((await context.log.list(orgId, { cursor: first.nextCursor ?? "" })).entries).toEqual(newestFirst(entries).slice(100));
      expect((await context.log.list(orgId, { limit: 1000 })).entries).toHaveLength(105);
    }),

    requestLogConformanceTest("refuses a malformed query with a RangeError naming the member", async (context) => {
      const orgId = newOrgId();
      await recordAll(context, [logEntry(orgId, 1)]);
      const refused: readonly (readonly [RequestLogQuery, RegExp])[] = [
        [{ limit: 0 }, /limit/],
        [{ limit: 1001 }, /limit/],
        [{ limit: 2.5 }, /limit/],
        [{ limit: Number.NaN }, /limit/],
        [{ cursor: "abc" }, /cursor/],
        [{ cursor: "" }, /cursor/],
        [{ cursor: "' or 1=1 --" }, /cursor/],
        [{ from: "yesterday" }, /from/],
        [{ to: "2026-13-45T99:00:00Z" }, /to/],
        [{ statusClass: 7 as 5 }, /statusClass/],
        [{ statusClass: 0 as 1 }, /statusClass/],
        [{ identityProvider: "myspace" as "okta" }, /identityProvider/],
      ];
      for (const [query, member] of refused) {
        const failure = await context.log.list(orgId, query).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(failure, JSON.stringify(query)).toBeInstanceOf(RangeError);
        expect((failure as Error).message, JSON.stringify(query)).toMatch(member);
      }
    }),
  ],
};
