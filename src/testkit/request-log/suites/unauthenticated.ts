/**
 * The space for requests without a verified token (issue 27): anyone can send them, for any
 * organization id, so they never reach an organization's entries nor push them out; the log keeps
 * a sample of them (per minute, capped in all), each text cut, and counts what it left out.
 */
import { expect } from "vitest";
import type { ReadableRequestLog, UnauthenticatedRequestLogPage } from "../../../request-log/readable-request-log.js";
import type { UnauthenticatedRequestLogEntry } from "../../../request-log/request-log.js";
import {
  type RequestLogConformanceContext,
  type RequestLogConformanceSuite,
  requestLogConformanceTest,
} from "../request-log-conformance-test.js";
import { allEntries, KIT_EPOCH, logEntry, newestFirst, newOrgId, recordAll, requireHandle } from "./request-log-helpers.js";

let counter = 0;

/** A request without a verified token that claimed `orgId`, `seconds` after `KIT_EPOCH`. */
function knock(orgId: string, seconds: number, overrides: Partial<UnauthenticatedRequestLogEntry> = {}): UnauthenticatedRequestLogEntry {
  counter += 1;
  return {
    requestId: `knock-${counter}`,
    orgId,
    at: new Date(KIT_EPOCH + seconds * 1000).toISOString(),
    method: "GET",
    path: `/scim/Organizations/${orgId}/v2/Users`,
    status: 401,
    detail: "The bearer token is missing, unknown or expired.",
    durationMs: 1.5,
    clientAddress: "198.51.100.9",
    userAgent: "curl/8.0",
    identityProvider: "other",
    ...overrides,
  };
}

function handles(context: RequestLogConformanceContext): {
  readonly record: (entry: UnauthenticatedRequestLogEntry) => Promise<void>;
  readonly list: NonNullable<ReadableRequestLog["listUnauthenticated"]>;
} {
  const { log } = context;
  const record = requireHandle(log.recordUnauthenticated?.bind(log), "log.recordUnauthenticated");
  const list = requireHandle(log.listUnauthenticated?.bind(log), "log.listUnauthenticated");
  return { record: async (entry) => void (await record(entry)), list };
}

/** Every unauthenticated entry kept, newest first, over as many pages as it takes; and the last page's count. */
async function everyKnock(
  list: NonNullable<ReadableRequestLog["listUnauthenticated"]>,
  orgId?: string,
): Promise<{ readonly entries: UnauthenticatedRequestLogEntry[]; readonly last: UnauthenticatedRequestLogPage }> {
  const entries: UnauthenticatedRequestLogEntry[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const last = await list({ limit: 3, ...(orgId === undefined ? {} : { orgId }), ...(cursor === undefined ? {} : { cursor }) });
    entries.push(...last.entries);
    if (last.nextCursor === undefined) return { entries, last };
    cursor = last.nextCursor;
  }
  throw new Error("the log kept giving cursors");
}

export const unauthenticatedSuite: RequestLogConformanceSuite = {
  title: "requests without a verified token",
  tests: [
    requestLogConformanceTest("never files them under an organization, nor lets them push its entries out", async (context) => {
      const { record, list } = handles(context);
      const real = newOrgId();
      const madeUp = newOrgId();
      const entries = Array.from({ length: context.settings.maxEntriesPerOrg }, (_, index) => logEntry(real, index));
      await recordAll(context, entries);
      // Far more than every capacity the kit gave, claiming the real organization and made-up ones.
      for (let index = 0; index < 1001; index++) await record(knock(index % 2 === 0 ? real : `${madeUp}-${index}`, 100 + index));
      await context.flush?.();
      expect(await allEntries(context, real)).toEqual(newestFirst(entries));
      expect(await allEntries(context, madeUp)).toEqual([]);
      expect(await allEntries(context, `${madeUp}-1`)).toEqual([]);
      const kept = (await list({ limit: 1000 })).entries;
      expect(kept.length).toBeGreaterThan(0);
      expect(kept.length).toBeLessThanOrEqual(context.settings.unauthenticatedCapacity);
    }),

    requestLogConformanceTest(
      "keeps unauthenticatedPerMinute a minute of its clock and unauthenticatedCapacity in all, newest first, and counts the rest",
      async (context) => {
        const { record, list } = handles(context);
        const { unauthenticatedPerMinute: perMinute, unauthenticatedCapacity: capacity } = context.settings;
        const start = Math.ceil(context.settings.now() / 60_000) * 60_000;
        const sent: UnauthenticatedRequestLogEntry[] = [];
        const admitted: UnauthenticatedRequestLogEntry[] = [];
        const minutes = Math.ceil(capacity / perMinute) + 1;
        for (let minute = 0; minute < minutes; minute++) {
          context.setNow(start + minute * 60_000 + 1000);
          for (let index = 0; index < perMinute + 3; index++) {
            const entry = knock(newOrgId(), minute * 60 + index);
            sent.push(entry);
            if (index < perMinute) admitted.push(entry);
            await record(entry);
          }
          await context.flush?.();
        }
        const { entries, last } = await everyKnock(list);
        expect(entries).toEqual(admitted.slice(-capacity).reverse());
        expect(last.dropped).toBe(sent.length - admitted.length);
        expect(Date.parse(last.droppedSince)).toBeLessThanOrEqual(start);
        const one = admitted.at(-1);
        expect((await everyKnock(list, one?.orgId)).entries).toEqual([one]);
      },
    ),

    requestLogConformanceTest("keeps only the members of an unauthenticated entry, each text cut", async (context) => {
      const { record, list } = handles(context);
      const orgId = newOrgId();
      const long = knock(orgId, 5, {
        path: `/scim/Organizations/${orgId}/v2/Users/${"x".repeat(20_000)}`,
        userAgent: "A".repeat(5000),
        detail: "d".repeat(5000),
      });
      // Whatever else a caller hands over (bodies, a token id) is not kept either.
      await record({ ...long, requestBody: "{}", tokenId: "t-1", responseBody: "{}" } as UnauthenticatedRequestLogEntry);
      await context.flush?.();
      const [kept] = (await list({ orgId })).entries;
      expect(kept?.path).toBe(long.path.slice(0, 512));
      expect(kept?.userAgent).toBe(long.userAgent?.slice(0, 256));
      expect(kept?.detail).toBe(long.detail?.slice(0, 512));
      expect(Object.keys(kept ?? {}).sort()).toEqual(Object.keys(long).sort());
      await expect(list({ limit: 0 })).rejects.toThrow(RangeError);
      await expect(list({ cursor: "not-a-cursor" })).rejects.toThrow(RangeError);
    }),
  ],
};
