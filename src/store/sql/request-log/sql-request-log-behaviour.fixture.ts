/**
 * What `sqlRequestLog` promises beyond the conformance kit, checked on each database: `record`
 * never throws nor waits, a timer or a full batch writes the buffer, drops are reported at most
 * once per interval, a database that cannot be reached keeps the entries buffered, one entry the
 * database refuses costs that entry alone, and retention deletes in bounded statements.
 */
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import type { RequestLogEntry } from "../../../request-log/request-log.js";
import type { SqlStore } from "../sql-store.js";
import { RequestLogOverflowError } from "./request-log-overflow-error.js";
import { type SqlRequestLogOptions, sqlRequestLog } from "./sql-request-log.js";

function entry(orgId: string, overrides: Partial<RequestLogEntry> = {}): RequestLogEntry {
  return {
    requestId: randomUUID(),
    orgId,
    at: new Date().toISOString(),
    method: "GET",
    path: `/scim/Organizations/${orgId}/v2/Users`,
    status: 200,
    durationMs: 1.5,
    authenticated: true,
    identityProvider: "entra",
    ...overrides,
  };
}

async function rowCount(store: SqlStore, orgId: string): Promise<number> {
  const row = await store.db
    .selectFrom("scimkit_request_log")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("org_id", "=", orgId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let turn = 0; turn < 400; turn++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`never happened: ${what}`);
}

// The timers of a log a check makes are slow unless the check is about them.
const QUIET: SqlRequestLogOptions = { flushIntervalMs: 3_600_000, retentionIntervalMs: 3_600_000 };

/** Registers the checks with vitest, each on the store `storeOf` gives (open for the whole file). */
export function sqlRequestLogBehaviour(storeOf: () => SqlStore): void {
  it("writes the buffer on its timer, and at once when a batch is full, without list or flush", async () => {
    const store = storeOf();
    const timed = sqlRequestLog(store, { ...QUIET, flushIntervalMs: 10 });
    const orgId = `org-${randomUUID()}`;
    expect(timed.record(entry(orgId))).toBeUndefined();
    expect(timed.buffered).toBe(1);
    await eventually(async () => (await rowCount(store, orgId)) === 1, "the timer wrote the entry");
    await timed.close();

    const batched = sqlRequestLog(store, { ...QUIET, flushBatchSize: 3 });
    const other = `org-${randomUUID()}`;
    for (let index = 0; index < 3; index++) batched.record(entry(other));
    await eventually(async () => (await rowCount(store, other)) === 3, "the full batch was written");
    await batched.close();
  });

  it("reports drops to onError at the first flush after them, then at most once per dropReportIntervalMs", async () => {
    const store = storeOf();
    const reports: unknown[] = [];
    let now = 1_000_000;
    const log = sqlRequestLog(store, {
      ...QUIET,
      bufferCapacity: 2,
      dropReportIntervalMs: 60_000,
      now: () => now,
      onError: (error) => reports.push(error),
    });
    const orgId = `org-${randomUUID()}`;
    for (let index = 0; index < 5; index++) log.record(entry(orgId));
    expect(log.dropped).toBe(3);
    await log.flush();
    expect(reports).toHaveLength(1);
    expect(reports[0]).toBeInstanceOf(RequestLogOverflowError);
    expect(reports[0]).toMatchObject({ dropped: 3, droppedTotal: 3 });
    for (let index = 0; index < 4; index++) log.record(entry(orgId));
    await log.flush();
    expect(reports).toHaveLength(1);
    now += 60_000;
    await log.flush();
    expect(reports).toHaveLength(2);
    expect(reports[1]).toMatchObject({ dropped: 2, droppedTotal: 5 });
    expect(await rowCount(store, orgId)).toBe(4);
    // After close, entries are not kept, and are counted.
    await log.close();
    log.record(entry(orgId));
    expect(log.dropped).toBe(6);
    await log.close();
  });

  it("keeps the entries buffered while the database cannot be reached or is busy, and writes them once it can", async () => {
    const store = storeOf();
    let reachable = false;
    let failure: Error = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    const errors: unknown[] = [];
    const log = sqlRequestLog(
      {
        db: store.db,
        dialect: {
          ...store.dialect,
          writeTransaction: (db, work) => (reachable ? store.dialect.writeTransaction(db, work) : Promise.reject(failure)),
        },
      },
      { ...QUIET, onError: (error) => errors.push(error) },
    );
    const orgId = `org-${randomUUID()}`;
    const entries = [entry(orgId), entry(orgId), entry(orgId)];
    for (const each of entries) log.record(each);
    await expect(log.flush()).rejects.toThrow(/ECONNREFUSED/);
    expect(log.buffered).toBe(3);
    // Busy is no different: another process held SQLite's write lock past its timeout.
    failure = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    await expect(log.flush()).rejects.toThrow(/locked/);
    expect(log.buffered).toBe(3);
    expect(log.dropped).toBe(0);
    // list reports nothing itself (the background flush does) and answers from what is written.
    expect((await log.list(orgId)).entries).toEqual([]);
    reachable = true;
    await log.flush();
    expect(log.buffered).toBe(0);
    expect((await log.list(orgId)).entries).toEqual([...entries].reverse());
    expect(errors).toEqual([]);
    await log.close();
  });

  it("drops only the entry the database refuses, reports it, and writes the rest of its batch", async () => {
    const store = storeOf();
    const errors: unknown[] = [];
    const log = sqlRequestLog(store, { ...QUIET, onError: (error) => errors.push(error) });
    const orgId = `org-${randomUUID()}`;
    const good = [entry(orgId), entry(orgId)];
    // A method is required (NOT NULL): a sink of another producer may still hand over a broken entry.
    const broken = { ...entry(orgId), method: undefined } as unknown as RequestLogEntry;
    log.record(good[0] as RequestLogEntry);
    log.record(broken);
    log.record(good[1] as RequestLogEntry);
    await log.flush();
    expect(log.dropped).toBe(1);
    expect((await log.list(orgId)).entries).toEqual([...good].reverse());
    expect(errors.length).toBeGreaterThanOrEqual(1);
    await log.close();
    expect(errors.some((error) => error instanceof RequestLogOverflowError && error.dropped === 1)).toBe(true);
  });

  it("keeps text the database cannot hold as it can: U+0000 becomes U+FFFD", async () => {
    const store = storeOf();
    const log = sqlRequestLog(store, QUIET);
    const orgId = `org-${randomUUID()}`;
    log.record(entry(orgId, { status: 400, detail: 'bad filter "a\u0000b"', requestBody: '{"x":"\\u0000"}' }));
    const [kept] = (await log.list(orgId)).entries;
    expect(kept?.detail).toBe('bad filter "a\uFFFDb"');
    expect(kept?.requestBody).toBe('{"x":"\\u0000"}');
    await log.close();
  });

  it("enforces retention in statements of retentionBatchSize rows, and a sweep of nothing deletes nothing", async () => {
    const store = storeOf();
    // The first sweep of a log checks every organization's count: none but this check's.
    await store.db.deleteFrom("scimkit_request_log").execute();
    const now = Date.now();
    const log = sqlRequestLog(store, { ...QUIET, maxAgeMs: 60_000, maxEntriesPerOrg: 3, retentionBatchSize: 2, now: () => now });
    const orgId = `org-${randomUUID()}`;
    const old = new Date(now - 120_000).toISOString();
    for (let index = 0; index < 5; index++) log.record(entry(orgId, { at: old }));
    const young = Array.from({ length: 6 }, () => entry(orgId));
    for (const each of young) log.record(each);
    await log.flush();
    expect(await log.enforceRetention()).toEqual({ deletedByAge: 5, deletedByCount: 3 });
    expect((await log.list(orgId)).entries).toEqual(young.slice(3).reverse());
    expect(await log.enforceRetention()).toEqual({ deletedByAge: 0, deletedByCount: 0 });
    await log.close();
  });

  it("with both limits off, deletes nothing, sweep after sweep", async () => {
    const store = storeOf();
    const log = sqlRequestLog(store, {
      ...QUIET,
      maxAgeMs: Number.POSITIVE_INFINITY,
      maxEntriesPerOrg: Number.POSITIVE_INFINITY,
      now: () => Date.now() + 365 * 24 * 3600_000,
    });
    const orgId = `org-${randomUUID()}`;
    log.record(entry(orgId));
    await log.flush();
    expect(await log.enforceRetention()).toEqual({ deletedByAge: 0, deletedByCount: 0 });
    log.record(entry(orgId));
    await log.flush();
    expect(await log.enforceRetention()).toEqual({ deletedByAge: 0, deletedByCount: 0 });
    expect(await rowCount(store, orgId)).toBe(2);
    await log.close();
  });

  it("refuses options out of range, naming the option", () => {
    const store = storeOf();
    expect(() => sqlRequestLog(store, { bufferCapacity: 0 })).toThrow(/bufferCapacity/);
    expect(() => sqlRequestLog(store, { maxAgeMs: -1 })).toThrow(/maxAgeMs/);
    expect(() => sqlRequestLog(store, { maxEntriesPerOrg: 1.5 })).toThrow(/maxEntriesPerOrg/);
    expect(() => sqlRequestLog(store, { flushBatchSize: Number.NaN })).toThrow(/flushBatchSize/);
    expect(() => sqlRequestLog(store, { maxBodyBytes: 0 })).toThrow(/maxBodyBytes/);
    expect(() => sqlRequestLog(store, { flushIntervalMs: Number.POSITIVE_INFINITY })).toThrow(/flushIntervalMs/);
  });
}
