/**
 * Bulk reports bounded and durable (issue 19 items 1 and 4), over HTTP on memory, SQLite (the
 * `express5-sqlite` project) and PostgreSQL: a viewer looping the same report gets one operation;
 * operations expire (404) and are purged; an organization at its bounds gets 429 with
 * `Retry-After`; a job whose host died is taken over by another host's poller after the lease,
 * and one whose host stopped at once — its rows never duplicated.
 */
import request from "supertest";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { AnalyticsStore } from "../../src/analytics/analytics-store.js";
import { databaseUnavailableError } from "../../../src/store/sql/database-unavailable-error.js";
import { createTestSchema, describePostgres, type TestSchema } from "../../../src/store/sql/postgres-test-database.fixture.js";
import {
  eventually,
  POPULATED,
  UNKNOWN,
  createAnalyticsTestApp,
  expectProblem,
  settle,
  type AnalyticsTestApp,
  type Json,
  type TestAppOptions,
} from "./analytics-harness.js";
import { createWorld, type World } from "./analytics-world.js";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Every row of an operation, read from the store. */
async function storedRows(store: AnalyticsStore, operationId: string): Promise<Json[]> {
  const rows: Json[] = [];
  for await (const page of store.readReportRows(operationId)) rows.push(...(page as Json[]));
  return rows;
}

function operationOf(response: request.Response): Json {
  return (response.body as { operation: Json }).operation;
}

function reportCases(storage: () => Promise<TestAppOptions>): void {
  const apps: AnalyticsTestApp[] = [];
  afterEach(async () => {
    // Stop every router's worker, so no poll or purge outlives its test's store.
    await Promise.all(apps.splice(0).map((t) => t.router.close()));
  });

  async function world(router: TestAppOptions["router"] = {}): Promise<World> {
    const w = await createWorld({ ...(await storage()), router });
    apps.push(w.t);
    return w;
  }

  /** Another host on the same database: its own store instance on PostgreSQL, the same store otherwise; the world's clock. */
  async function secondHost(w: World, router: TestAppOptions["router"] = {}): Promise<AnalyticsTestApp> {
    const options = await storage();
    const shared = options.postgres === undefined ? { store: w.t.analytics } : {};
    const t = await createAnalyticsTestApp({ ...options, router: { ...shared, now: () => w.t.clock.now(), ...router } });
    apps.push(t);
    return t;
  }

  it("a viewer looping the same bulk-report gets ONE operation: 202 while it runs, 200 once done, a new one after the window", async () => {
    const w = await world();
    const path = `/campaigns/${w.campaignA.id}/users/bulk-report`;
    const ids = new Set<string>();
    const statuses = new Set<number>();
    for (let attempt = 0; attempt < 40; attempt += 1) {
      const response = await w.t.get(path, w.keys.viewerA);
      statuses.add(response.status);
      const operation = operationOf(response);
      ids.add(String(operation["id"]));
      expect(String(response.headers["location"])).toMatch(new RegExp(`/analytics/v1/operations/${String(operation["id"])}$`));
      expect(response.status).toBe(operation["status"] === "succeeded" ? 200 : 202);
    }
    expect(ids.size).toBe(1);
    const [id = ""] = [...ids];
    await settle(w.t, id, w.keys.viewerA);
    const again = await w.t.get(path, w.keys.viewerA);
    expect(again.status).toBe(200);
    expect(operationOf(again)).toMatchObject({
      id,
      status: "succeeded",
      links: { result: expect.stringContaining(`/operations/${id}/result`) },
    });
    expect(await storedRows(w.t.analytics, id)).toHaveLength(3);
    // The same scope through another key (A's admin sees what A's viewer sees): the same report.
    expect(operationOf(await w.t.get(path, w.keys.adminA))["id"]).toBe(id);
    // Another scope (the operator sees every organization): a report of its own.
    const operators = await w.t.get(path);
    expect(operators.status).toBe(202);
    expect(operationOf(operators)["id"]).not.toBe(id);
    // Past the freshness window (5 minutes by default), the figures are built afresh.
    w.t.clock.advance(5 * MINUTE + SECOND);
    const later = await w.t.get(path, w.keys.viewerA);
    expect(later.status).toBe(202);
    expect(operationOf(later)["id"]).not.toBe(id);
  });

  it("identical requests at the same moment get one operation, and never more than the bound", async () => {
    const w = await world({ reports: { maxActivePerOrganization: 2, concurrency: 0 } });
    const path = `/campaigns/${w.campaignA.id}/users/bulk-report`;
    const responses = await Promise.all(Array.from({ length: 10 }, () => w.t.get(path, w.keys.viewerA)));
    expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 10 }, () => 202));
    expect(new Set(responses.map((response) => operationOf(response)["id"])).size).toBe(1);
    // Two other reports at once with one place left (the bound is 2): one admitted, one refused;
    // and the identical request of A's admin (the viewer's scope) is the viewer's report, bound or not.
    const paths = [
      `/attack-simulations/${w.simulationA.id}/users/bulk-report`,
      `/organizations/${w.orgA.id}/users/bulk-report`,
      `/campaigns/${w.campaignA.id}/users/bulk-report`,
    ];
    const [simulation, organization, campaign] = await Promise.all(paths.map((other) => w.t.get(other, w.keys.adminA)));
    expect([simulation?.status, organization?.status].sort()).toEqual([202, 429]);
    expect(campaign?.status).toBe(202);
    expect(operationOf(campaign as request.Response)["id"]).toBe(operationOf(responses[0] as request.Response)["id"]);
  });

  it("an operation expires after reports.ttlMs: 404 like an unknown one, then purged with its rows", async () => {
    const w = await world({ reports: { ttlMs: HOUR } });
    const started = await w.t.get(`/attack-simulations/${w.simulationA.id}/users/bulk-report`, w.keys.adminA);
    const id = String(operationOf(started)["id"]);
    expect(operationOf(started)["createdAt"]).toBe(w.t.clock.now().toISOString());
    await settle(w.t, id, w.keys.adminA);
    expect((await w.t.get(`/operations/${id}/result`, w.keys.adminA)).status).toBe(200);
    w.t.clock.advance(HOUR - 1);
    expect((await w.t.get(`/operations/${id}`, w.keys.adminA)).status).toBe(200);
    w.t.clock.advance(1);
    const gone = expectProblem(await w.t.get(`/operations/${id}`, w.keys.adminA), 404, "not-found");
    expect(gone).toEqual(expectProblem(await w.t.get(`/operations/${UNKNOWN}`, w.keys.adminA), 404, "not-found"));
    expect(gone.detail).toContain("kept 1 hour after");
    expectProblem(await w.t.get(`/operations/${id}/result`, w.keys.adminA), 404, "not-found");
    // Not yet purged: the store still has it; the purge takes it and its rows.
    expect(await w.t.analytics.getOperation({ all: true }, id)).toBeDefined();
    expect(await w.t.router.reportWorker.purgeOnce()).toBeGreaterThanOrEqual(4);
    expect(await w.t.analytics.getOperation({ all: true }, id)).toBeUndefined();
    expect(await storedRows(w.t.analytics, id)).toEqual([]);
    expect(await w.t.router.reportWorker.purgeOnce()).toBe(0);
    // An identical request now starts a new report.
    const fresh = await w.t.get(`/attack-simulations/${w.simulationA.id}/users/bulk-report`, w.keys.adminA);
    expect(fresh.status).toBe(202);
    expect(operationOf(fresh)["id"]).not.toBe(id);
  });

  it("an organization at its bound of reports at once gets 429 report-limit with Retry-After; identical requests and other organizations do not", async () => {
    // concurrency 0: a host that only answers requests, so the first report stays queued.
    const w = await world({ reports: { maxActivePerOrganization: 1, concurrency: 0 } });
    const first = await w.t.get(`/campaigns/${w.campaignA.id}/users/bulk-report`, w.keys.adminA);
    expect(first.status).toBe(202);
    const refused = await w.t.get(`/attack-simulations/${w.simulationA.id}/users/bulk-report`, w.keys.adminA);
    const problem = expectProblem(refused, 429, "report-limit");
    expect(refused.headers["retry-after"]).toBe("10");
    expect(problem.detail).toContain(`Organization "${w.orgA.id}" already has 1 reports queued or running`);
    expect(problem.detail).toContain("retry in 10 seconds");
    expect(operationOf(await w.t.get(`/campaigns/${w.campaignA.id}/users/bulk-report`, w.keys.viewerA))["id"]).toBe(
      operationOf(first)["id"],
    );
    expect((await w.t.get(`/campaigns/${w.campaignB.id}/users/bulk-report`, w.keys.adminB)).status).toBe(202);
  });

  it("an organization at its bound of stored report rows gets 429 until its reports expire", async () => {
    const w = await world({ reports: { maxStoredRowsPerOrganization: 3 } });
    const first = await w.t.get(`/campaigns/${w.campaignA.id}/users/bulk-report`, w.keys.adminA);
    const id = String(operationOf(first)["id"]);
    await settle(w.t, id, w.keys.adminA);
    w.t.clock.advance(HOUR);
    const refused = await w.t.get(`/attack-simulations/${w.simulationA.id}/users/bulk-report`, w.keys.adminA);
    const problem = expectProblem(refused, 429, "report-limit");
    // The first report was requested an hour ago and lives 24: its rows go in 23 hours.
    expect(refused.headers["retry-after"]).toBe(String(23 * 3600));
    expect(problem.detail).toContain("keeps 3 report rows, the most it may keep");
    expect(problem.detail).toContain("Reports expire 24 hours after they were requested");
    // Another organization is not held back by A's rows.
    expect((await w.t.get(`/campaigns/${w.campaignB.id}/users/bulk-report`, w.keys.adminB)).status).toBe(202);
    w.t.clock.advance(23 * HOUR);
    expect((await w.t.get(`/attack-simulations/${w.simulationA.id}/users/bulk-report`, w.keys.adminA)).status).toBe(202);
  });

  it("a job whose host died is taken over by another host's poller after the lease, from zero: no row twice", async () => {
    const w = await world({ reports: { concurrency: 0 } });
    const started = await w.t.get(`/campaigns/${w.campaignA.id}/users/bulk-report`, w.keys.adminA);
    const id = String(operationOf(started)["id"]);
    // Host A claims the job, writes part of it, and dies: no heartbeat ever again.
    const claimed = await w.t.analytics.claimOperation({
      ownerId: "host-a",
      now: w.t.clock.now().toISOString(),
      staleBefore: new Date(w.t.clock.now().getTime() - 30 * SECOND).toISOString(),
      id,
    });
    expect(claimed?.ownerId).toBe("host-a");
    await w.t.analytics.updateOperation(
      id,
      { status: "running", startedAt: w.t.clock.now().toISOString(), progress: { done: 2 } },
      "host-a",
    );
    await w.t.analytics.appendReportRows(id, [{ userId: "partial-1" }, { userId: "partial-2" }], "host-a");
    const b = await secondHost(w, { reports: { workerId: "host-b", leaseMs: 30 * SECOND } });
    // Within the lease nothing is taken.
    w.t.clock.advance(30 * SECOND);
    expect(await b.router.reportWorker.pollOnce()).toBe(0);
    expect((await w.t.get(`/operations/${id}`, w.keys.adminA)).body).toMatchObject({ status: "running" });
    w.t.clock.advance(1);
    expect(await b.router.reportWorker.pollOnce()).toBe(1);
    await b.router.reportWorker.idle();
    expect(await settle(w.t, id, w.keys.adminA)).toMatchObject({ id, status: "succeeded", progress: { done: 3, total: 3 } });
    const rows = (await w.t.get(`/operations/${id}/result`, w.keys.adminA)).body as Json[];
    expect(rows.map((row) => row["userName"]).sort()).toEqual(["alice", "bob", "carol"]);
    expect((await w.t.analytics.getOperation({ all: true }, id))?.ownerId).toBe("host-b");
    // Host A wakes up: nothing it writes lands.
    expect(await w.t.analytics.appendReportRows(id, [{ userId: "late" }], "host-a")).toBe(false);
    expect(await storedRows(w.t.analytics, id)).toHaveLength(3);
  });

  it("a job whose hosts died three times is failed, saying so, instead of tried forever", async () => {
    const w = await world({ reports: { concurrency: 0, leaseMs: 30 * SECOND } });
    const started = await w.t.get(`/campaigns/${w.campaignA.id}/users/bulk-report`, w.keys.adminA);
    const id = String(operationOf(started)["id"]);
    for (const owner of ["host-1", "host-2", "host-3"]) {
      const now = w.t.clock.now();
      const claimed = await w.t.analytics.claimOperation({
        ownerId: owner,
        now: now.toISOString(),
        staleBefore: new Date(now.getTime() - 30 * SECOND).toISOString(),
      });
      expect(claimed?.id).toBe(id);
      w.t.clock.advance(31 * SECOND);
    }
    const b = await secondHost(w, { reports: { workerId: "host-4", leaseMs: 30 * SECOND } });
    expect(await b.router.reportWorker.pollOnce()).toBe(1);
    await b.router.reportWorker.idle();
    const failed = await settle(w.t, id, w.keys.adminA);
    expect(failed).toMatchObject({ status: "failed" });
    expect(String(failed["error"])).toContain("interrupted 3 times");
    expect(await storedRows(w.t.analytics, id)).toEqual([]);
    // Failed is never reused: asking again starts afresh.
    expect(operationOf(await w.t.get(`/campaigns/${w.campaignA.id}/users/bulk-report`, w.keys.adminA))["id"]).not.toBe(id);
  });

  it("a job that loses its database is given up, not failed, and built once the database answers again", async () => {
    const w = await world({ reports: { concurrency: 0 } });
    let outage = true;
    const flaky: AnalyticsStore = {
      ...w.t.analytics,
      async listEnrolments(...args) {
        if (outage) throw databaseUnavailableError(new Error("connection refused"));
        return w.t.analytics.listEnrolments(...args);
      },
    };
    const started = await w.t.get(`/campaigns/${w.campaignA.id}/users/bulk-report`, w.keys.adminA);
    const id = String(operationOf(started)["id"]);
    const b = await secondHost(w, { store: flaky, reports: { workerId: "host-b" } });
    expect(await b.router.reportWorker.pollOnce()).toBe(1);
    await b.router.reportWorker.idle();
    expect((await w.t.analytics.getOperation({ all: true }, id))?.status).not.toBe("failed");
    // The outage is the operator's to see in the database's logs, not an unexpected error.
    expect(b.errors).toEqual([]);
    outage = false;
    // The next poll gives it back and takes it again: no lease to wait out, and not counted as a host's death.
    expect(await b.router.reportWorker.pollOnce()).toBe(1);
    await b.router.reportWorker.idle();
    expect(await settle(w.t, id, w.keys.adminA)).toMatchObject({ status: "succeeded", progress: { done: 3, total: 3 } });
    expect(await storedRows(w.t.analytics, id)).toHaveLength(3);
    expect((await w.t.analytics.getOperation({ all: true }, id))?.attempts).toBe(1);
  });

  it("a host that stops mid-report gives the job up; another host's poller takes it at once and rebuilds it without duplicates", async () => {
    const w = await world();
    const org = w.orgA;
    const campaign = await w.t.recorder.createCampaign(org.id, { name: "Everyone", startsAt: "2026-01-01T00:00:00Z" });
    const count = 1001;
    const at = "2026-02-01T00:00:00.000Z";
    for (let index = 0; index < count; index += 1) {
      await w.t.analytics.putEnrolment(org.id, {
        campaignId: campaign.id,
        userId: `learner-${String(index).padStart(5, "0")}`,
        status: "not_started",
        progressPercent: 0,
        enrolledAt: at,
        updatedAt: at,
      });
    }
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const gated: AnalyticsStore = {
      ...w.t.analytics,
      async appendReportRows(operationId, rows, ownerId) {
        await gate;
        return w.t.analytics.appendReportRows(operationId, rows, ownerId);
      },
    };
    // Host A: the world's store behind a gate at the first append.
    const a = await createAnalyticsTestApp({ router: { store: gated, now: () => w.t.clock.now(), reports: { workerId: "host-a" } } });
    apps.push(a);
    const started = await request(a.app)
      .get(`/analytics/v1/campaigns/${campaign.id}/users/bulk-report`)
      .set("Authorization", `Bearer ${w.keys.adminA}`);
    expect(started.status).toBe(202);
    const id = (started.body as { operation: { id: string } }).operation.id;
    const running = await eventually(
      () => w.t.analytics.getOperation({ all: true }, id),
      (operation) => operation?.status === "running",
      "host A to start the job",
    );
    expect(running?.ownerId).toBe("host-a");
    // SIGTERM on host A: its router closes; the job stops after the page it is writing.
    const closing = a.router.close();
    release();
    await closing;
    const given = await w.t.analytics.getOperation({ all: true }, id);
    expect(given).toMatchObject({ status: "running", progress: { done: 1000 } });
    expect(given?.ownerId).toBeUndefined();
    // No lease to wait for: the world's own router (host B) claims it now.
    const b = w.t.router.reportWorker;
    await b.pollOnce();
    await b.idle();
    expect(await settle(w.t, id, w.keys.adminA)).toMatchObject({ status: "succeeded", progress: { done: count, total: count } });
    const rows = await storedRows(w.t.analytics, id);
    expect(rows).toHaveLength(count);
    expect(new Set(rows.map((row) => row["userId"])).size).toBe(count);
    // Given back, not died: the rebuild is the first counted attempt.
    expect((await w.t.analytics.getOperation({ all: true }, id))?.attempts).toBe(1);
  });
}

describe("bulk reports bounded and durable", POPULATED, () => {
  reportCases(async () => ({}));
});

describePostgres("bulk reports bounded and durable on PostgreSQL", (url) => {
  const schemas = new Map<string, TestSchema>();
  afterAll(async () => {
    for (const schema of schemas.values()) await schema.drop();
  });
  describe("cases", POPULATED, () => {
    reportCases(async () => {
      // A schema per test (the world's admin e-mails are fixed); a second host of the test opens the same one.
      const test = expect.getState().currentTestName ?? "";
      let schema = schemas.get(test);
      if (schema === undefined) {
        schema = await createTestSchema(url);
        schemas.set(test, schema);
      }
      return { postgres: { pool: schema.pool() } };
    });
  });
});
