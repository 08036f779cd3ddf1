/**
 * `sqlRateLimiter` (issue 19): hosts sharing one database hold one limit between them, within 10%
 * at N = 3, without a write per request — on SQLite (one file, three stores) and PostgreSQL.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RateDecision, RateLimiter } from "scimkit/rate-limit";
import { createTestSchema, describePostgres, type TestSchema } from "./postgres-test-database.fixture.js";
import { sqlRateLimiter, type SqlRateLimiterOptions } from "./sql-rate-limiter.js";
import { sqlStore, type SqlStore } from "./sql-store.js";

/** A host: its own store on the shared database, its limiter, and how many leases it wrote. */
interface TestHost {
  readonly limiter: RateLimiter;
  readonly leases: () => number;
}

function rateLimiterChecks(open: () => Promise<SqlStore>): void {
  const opened: SqlStore[] = [];
  let clock = Date.parse("2026-11-24T12:00:00.000Z");
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  /** A host on the shared database, on the test's clock; its lease transactions counted. */
  const host = async (options: Omit<SqlRateLimiterOptions, "now">): Promise<TestHost> => {
    const store = await open();
    opened.push(store);
    let leases = 0;
    const dialect = {
      ...store.dialect,
      writeTransaction: ((db, work) => {
        leases += 1;
        return store.dialect.writeTransaction(db, work);
      }) as typeof store.dialect.writeTransaction,
    };
    return { limiter: sqlRateLimiter({ db: store.db, dialect }, { ...options, now: () => clock }), leases: () => leases };
  };

  it("holds one limit across three hosts within 10%, with a write per lease, not per request", { timeout: 120_000 }, async () => {
    const namespace = `three-${clock}`;
    const hosts = await Promise.all([1, 2, 3].map(() => host({ requestsPerSecond: 100, burst: 100, namespace })));
    let allowed = 0;
    let offered = 0;
    // Ten seconds in 10 ms steps; each host is sent one request per step: 300 a second, three
    // times the limit. The most the limit lets through is the burst plus ten seconds' refill.
    for (let step = 0; step < 1000; step++) {
      const decisions = await Promise.all(hosts.map((h) => h.limiter.take("acme")));
      offered += decisions.length;
      allowed += decisions.filter((decision) => decision.allowed).length;
      clock += 10;
    }
    const ceiling = 100 + 100 * 10;
    expect(offered).toBe(3000);
    expect(allowed).toBeLessThanOrEqual(ceiling);
    expect(allowed).toBeGreaterThanOrEqual(0.9 * ceiling);
    const writes = hosts.reduce((sum, h) => sum + h.leases(), 0);
    // Leases of 5 (100/20), and a host that found the bucket short waits until a whole lease has
    // refilled before it asks again: fewer writes than requests allowed, a fifth of those offered.
    expect(writes).toBeLessThan(allowed);
    expect(writes).toBeLessThanOrEqual(offered / 5);
    // Another organization has a bucket of its own.
    expect((await hosts[0]?.limiter.take("globex"))?.allowed).toBe(true);
  });

  it("refuses with Retry-After without spending allowance, and allows again once the bucket refilled", { timeout: 30_000 }, async () => {
    const namespace = `refill-${clock}`;
    const [a, b] = await Promise.all([1, 2].map(() => host({ requestsPerSecond: 1, burst: 2, namespace })));
    if (a === undefined || b === undefined) throw new Error("two hosts were opened");
    expect((await a.limiter.take("acme")).allowed).toBe(true);
    expect((await b.limiter.take("acme")).allowed).toBe(true);
    const refused: RateDecision[] = [];
    for (let attempt = 0; attempt < 20; attempt++) refused.push(await a.limiter.take("acme"), await b.limiter.take("acme"));
    expect(refused.every((decision) => !decision.allowed && decision.retryAfterSeconds === 1)).toBe(true);
    // Three writes in all: the two leases that were granted, and the one by which the first host
    // found the bucket empty; the forty refusals after them were each answered locally.
    expect(a.leases() + b.leases()).toBe(3);
    clock += 1000;
    const next = await Promise.all([a.limiter.take("acme"), b.limiter.take("acme")]);
    expect(next.filter((decision) => decision.allowed)).toHaveLength(1);
  });

  it("keeps only the keys seen within one refill: a new key deletes its namespace's full buckets", { timeout: 30_000 }, async () => {
    const namespace = `prune-${clock}`;
    const store = await open();
    opened.push(store);
    const limiter = sqlRateLimiter(store, { requestsPerSecond: 1, burst: 10, namespace, now: () => clock });
    const other = sqlRateLimiter(store, { requestsPerSecond: 1, burst: 10, namespace: `${namespace}x`, now: () => clock });
    const rows = async (prefix: string) =>
      (await store.db.selectFrom("scimkit_rate_buckets").select("key").execute())
        .map((row) => row.key)
        .filter((key) => key.startsWith(prefix))
        .sort();
    for (let key = 0; key < 50; key++) await limiter.take(`made-up-${key}`);
    await other.take("kept");
    expect(await rows(`${namespace}:`)).toHaveLength(50);
    // Nine seconds on, one key is touched; ten seconds after the others (a whole refill), a new key comes.
    clock += 9000;
    await limiter.take("made-up-0");
    clock += 1000;
    await limiter.take("new");
    expect(await rows(`${namespace}:`)).toEqual([`${namespace}:made-up-0`, `${namespace}:new`]);
    // Another namespace's rows, even one whose name starts with this one's, are left alone.
    expect(await rows(`${namespace}x:`)).toEqual([`${namespace}x:kept`]);
  });

  it("refuses bad options with the option named", async () => {
    const store = await open();
    opened.push(store);
    expect(() => sqlRateLimiter(store, { requestsPerSecond: 0 })).toThrow(/requestsPerSecond/);
    expect(() => sqlRateLimiter(store, { requestsPerSecond: 10, leaseSize: 0.5 })).toThrow(/leaseSize/);
    expect(() => sqlRateLimiter(store, { requestsPerSecond: 10, burst: 0 })).toThrow(/burst/);
  });
}

describe("sqlRateLimiter on SQLite", () => {
  let directory = "";
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), "scimkit-rate-"));
  });
  afterAll(() => {
    rmSync(directory, { recursive: true, force: true });
  });
  // In threads: each store's writer waits for the file's lock in its own thread, as separate processes would.
  rateLimiterChecks(() => sqlStore({ sqlite: join(directory, "rate.db"), threads: { readers: 1 } }));
});

describePostgres("sqlRateLimiter on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(async () => {
    await schema?.drop();
  });
  rateLimiterChecks(() => {
    if (!schema) throw new Error("the test schema was not created (see beforeAll)");
    return sqlStore({ postgres: schema.pool() });
  });
});
