/**
 * Issue 27, HIGH 3: outsiders used to write into the provisioning log without bound — every 401,
 * for any made-up organization id, was kept for 7 days under that id with its path and
 * User-Agent, and the same flood evicted a real organization's entries. Here, through a real
 * router on each reference log (memory, SQLite file, PostgreSQL): a real organization fills its
 * share of the log (200 requests, the log's cap per organization set to that), then five times as
 * many requests with long paths and User-Agents claim made-up organizations (1,000, against an
 * unauthenticated sample capped at 200) and 50 more claim the real one with a wrong token. Then
 * the stored rows are counted. The bounds are options, so the flood is scaled to them rather than
 * to the defaults (1,000 each): the same ratios, a fifth of the requests.
 */
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryRequestLog } from "../../src/request-log/memory-request-log.js";
import type { ReadableRequestLog } from "../../src/request-log/readable-request-log.js";
import type { RequestLogEntry, UnauthenticatedRequestLogEntry } from "../../src/request-log/request-log.js";
import type { ResourceStore } from "../../src/store/resource-store.js";
import { createTestSchema, describePostgres, type TestSchema } from "../../src/store/sql/postgres-test-database.fixture.js";
import { type SqlRequestLog, sqlRequestLog } from "../../src/store/sql/request-log/sql-request-log.js";
import { type SqlStore, sqlStore } from "../../src/store/sql/sql-store.js";
import { createTestApp } from "./harness.js";

const REAL_REQUESTS = 200;
const MADE_UP_REQUESTS = 1000;
const WRONG_TOKEN_REQUESTS = 50;
const UNAUTHENTICATED_CAPACITY = 200;

interface LogUnderTest {
  readonly log: ReadableRequestLog;
  readonly store?: ResourceStore;
  /** Writes what is buffered and runs retention, as the background would. */
  settle(): Promise<void>;
  /** What the database holds: rows of the organizations' table by org id, and of the unauthenticated table. Absent for memory. */
  rows?(): Promise<{ readonly byOrg: Readonly<Record<string, number>>; readonly unauthenticated: number; readonly longestText: number }>;
  close(): Promise<void>;
}

/** Sends `count` requests made by `request(index)`, 8 at a time, over one keep-alive client; resolves with their statuses. */
async function send(
  base: string,
  count: number,
  request: (index: number) => { path: string; headers: Record<string, string> },
): Promise<number[]> {
  const statuses: number[] = new Array<number>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      const { path, headers } = request(index);
      const response = await fetch(`${base}${path}`, { headers });
      await response.arrayBuffer();
      statuses[index] = response.status;
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return statuses;
}

async function everyEntry(log: ReadableRequestLog, orgId: string): Promise<RequestLogEntry[]> {
  const entries: RequestLogEntry[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const listed = await log.list(orgId, { limit: 100, ...(cursor === undefined ? {} : { cursor }) });
    entries.push(...listed.entries);
    if (listed.nextCursor === undefined) return entries;
    cursor = listed.nextCursor;
  }
  throw new Error("the log kept giving cursors");
}

function checkFlood(name: string, open: () => Promise<LogUnderTest>): void {
  it(`${name}: a flood of unauthenticated requests leaves the real organization's ${REAL_REQUESTS} entries and nothing under made-up ids, in a capped, counted sample`, async () => {
    const underTest = await open();
    let server: Server | undefined;
    try {
      const t = await createTestApp({ requestLog: underTest.log, ...(underTest.store === undefined ? {} : { store: underTest.store }) });
      server = t.app.listen(0, "127.0.0.1");
      await once(server, "listening");
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

      const real = await send(origin, REAL_REQUESTS, (index) => ({
        path: `${t.base()}/Users?count=1`,
        headers: { Authorization: `Bearer ${t.token.acme}`, "X-Request-Id": `real-${index}` },
      }));
      expect(new Set(real)).toEqual(new Set([200]));
      await underTest.settle();
      expect((await everyEntry(underTest.log, "acme")).length).toBe(REAL_REQUESTS);

      // Long, but within Node's 16 KiB of headers: the request line and the User-Agent are about 9 KB together.
      const longTail = "x".repeat(3000);
      // Every tenth one long, the others short: the machine is shared, and the bound is the point.
      const madeUp = await send(origin, MADE_UP_REQUESTS, (index) => {
        const tail = index % 10 === 0 ? longTail : "x";
        return {
          path: `${t.base(`made-up-${index}`)}/Users/${tail}?junk=${tail}`,
          headers: { "User-Agent": `flood/${tail}`, "X-Request-Id": `flood-${index}` },
        };
      });
      const wrongToken = await send(origin, WRONG_TOKEN_REQUESTS, (index) => ({
        path: `${t.base()}/Users`,
        headers: { Authorization: "Bearer not-a-token", "X-Request-Id": `wrong-${index}` },
      }));
      expect(new Set([...madeUp, ...wrongToken])).toEqual(new Set([401]));
      await underTest.settle();

      // The real organization's entries, every one, untouched: none evicted, none added.
      const kept = await everyEntry(underTest.log, "acme");
      expect(kept.map((entry) => entry.requestId).sort()).toEqual(
        Array.from({ length: REAL_REQUESTS }, (_, index) => `real-${index}`).sort(),
      );
      // Nothing under a made-up id.
      for (const index of [0, 1, MADE_UP_REQUESTS / 2 - 1, MADE_UP_REQUESTS - 1])
        expect((await underTest.log.list(`made-up-${index}`)).entries).toEqual([]);
      // A sample, capped, each text cut, and a count of the rest.
      const listUnauthenticated = underTest.log.listUnauthenticated?.bind(underTest.log);
      if (!listUnauthenticated) throw new Error("the log has no unauthenticated space");
      const sampled: UnauthenticatedRequestLogEntry[] = [];
      let page = await listUnauthenticated({ limit: 100 });
      sampled.push(...page.entries);
      while (page.nextCursor !== undefined) {
        page = await listUnauthenticated({ limit: 100, cursor: page.nextCursor });
        sampled.push(...page.entries);
      }
      expect(sampled.length).toBeGreaterThan(0);
      expect(sampled.length).toBeLessThanOrEqual(UNAUTHENTICATED_CAPACITY);
      expect(sampled.length + page.dropped).toBe(MADE_UP_REQUESTS + WRONG_TOKEN_REQUESTS);
      for (const entry of sampled) {
        expect(entry.path.length).toBeLessThanOrEqual(512);
        expect(entry.userAgent?.length ?? 0).toBeLessThanOrEqual(256);
        expect(entry).not.toHaveProperty("requestBody");
      }
      const rows = await underTest.rows?.();
      if (rows) {
        expect(rows.byOrg).toEqual({ acme: REAL_REQUESTS });
        expect(rows.unauthenticated).toBe(sampled.length);
        expect(rows.longestText).toBeLessThanOrEqual(512);
      }
    } finally {
      server?.close();
      await underTest.close();
    }
  }, 180_000);
}

/** The rows of both tables, counted. */
async function countRows(store: SqlStore): Promise<Awaited<ReturnType<NonNullable<LogUnderTest["rows"]>>>> {
  const byOrg = await sql<{
    org_id: string;
    n: number | string;
  }>`select org_id, count(*) as n from scimkit_request_log group by org_id`.execute(store.db);
  const unauthenticated = await sql<{ n: number | string; longest: number | string | null }>`
    select count(*) as n, max(case when length(path) > length(coalesce(user_agent, '')) then length(path) else length(user_agent) end) as longest
    from scimkit_unauthenticated_log`.execute(store.db);
  return {
    byOrg: Object.fromEntries(byOrg.rows.map((row) => [row.org_id, Number(row.n)])),
    unauthenticated: Number(unauthenticated.rows[0]?.n),
    longestText: Number(unauthenticated.rows[0]?.longest ?? 0),
  };
}

function sqlLogUnderTest(store: SqlStore): LogUnderTest {
  const log: SqlRequestLog = sqlRequestLog(store, {
    maxEntriesPerOrg: REAL_REQUESTS,
    unauthenticatedCapacity: UNAUTHENTICATED_CAPACITY,
    onError: (error) => expect.fail(String(error)),
  });
  return {
    log,
    store,
    settle: async () => {
      await log.flush();
      await log.enforceRetention();
    },
    rows: () => countRows(store),
    close: async () => {
      await log.close();
      await store.close();
    },
  };
}

describe("the provisioning log under a flood of unauthenticated requests (issue 27)", () => {
  checkFlood("memoryRequestLog", async () => ({
    // The whole ring is the real organization's: one unauthenticated request more than it holds used to wipe it.
    log: memoryRequestLog({ capacity: REAL_REQUESTS, unauthenticatedCapacity: UNAUTHENTICATED_CAPACITY }),
    settle: async () => {},
    close: async () => {},
  }));

  describe("on SQLite", () => {
    let directory = "";
    beforeAll(() => {
      directory = mkdtempSync(join(tmpdir(), "scimkit-unauthenticated-"));
    });
    afterAll(() => {
      rmSync(directory, { recursive: true, force: true });
    });
    checkFlood("sqlRequestLog (SQLite file)", async () => sqlLogUnderTest(await sqlStore({ sqlite: join(directory, "scim.db") })));
  });
});

describePostgres("the provisioning log under a flood of unauthenticated requests, on PostgreSQL (issue 27)", (url) => {
  let schema: TestSchema | undefined;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(async () => {
    await schema?.drop();
  });
  checkFlood("sqlRequestLog (PostgreSQL)", async () => {
    if (!schema) throw new Error("the schema was not made (see beforeAll)");
    return sqlLogUnderTest(await sqlStore({ postgres: schema.pool() }));
  });
});
