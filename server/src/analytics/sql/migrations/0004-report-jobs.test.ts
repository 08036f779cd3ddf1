/**
 * Analytics migration 4 (report jobs) on SQLite and PostgreSQL: operations stored before it
 * expire 24 hours after they were created, so a database grown unbounded shrinks on the first
 * purges; a `running` one left by a process that died before heartbeats is claimable at once;
 * every other column of theirs is kept.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMigrations, type SqlStore, sqlStore } from "scimkit/sql";
import { createTestSchema, describePostgres, type TestSchema } from "../../../../../src/store/sql/postgres-test-database.fixture.js";
import type { AnalyticsTables } from "../analytics-tables.js";
import { sqlAnalyticsStore } from "../sql-analytics-store.js";
import { ANALYTICS_MIGRATIONS, analyticsMigrations } from "./analytics-migrations.js";

const CREATED = "2026-03-01T09:00:00.000Z";
const DAY_LATER = "2026-03-02T09:00:00.000Z";

function migrationChecks(open: () => Promise<SqlStore>): void {
  it("gives existing operations a 24-hour life, keeps their data, and leaves an orphaned running one claimable", async () => {
    const store = await open();
    try {
      const analyticsDb = store.db.withTables<AnalyticsTables>();
      expect(
        await runMigrations(
          store.db,
          store.dialect,
          analyticsMigrations.filter((migration) => migration.version <= 3),
          { namespace: ANALYTICS_MIGRATIONS },
        ),
      ).toEqual([1, 2, 3]);
      const legacy = (id: string, status: string) => ({
        id,
        org_id: "acme",
        kind: "campaign-users-report",
        subject_id: "c1",
        status,
        progress_done: 2,
        progress_total: 5,
        created_at: CREATED,
        started_at: CREATED,
        finished_at: null,
        error: null,
      });
      // Inserted as the code before version 4 did: without the new columns.
      await analyticsDb
        .insertInto("scimkit_operations")
        .values([legacy("op-running", "running"), legacy("op-done", "succeeded")])
        .execute();
      await analyticsDb.insertInto("scimkit_report_rows").values({ operation_id: "op-running", seq: 1, row: '{"a":1}' }).execute();

      const analytics = await sqlAnalyticsStore(store, { migrate: false });
      expect(await analytics.migrate()).toEqual(
        analyticsMigrations.filter((migration) => migration.version >= 4).map(({ version }) => version),
      );
      expect(await analytics.migrate()).toEqual([]);
      expect(await analytics.getOperation({ all: true }, "op-done")).toEqual({
        id: "op-done",
        kind: "campaign-users-report",
        orgId: "acme",
        subjectId: "c1",
        status: "succeeded",
        progress: { done: 2, total: 5 },
        createdAt: CREATED,
        startedAt: CREATED,
        expiresAt: DAY_LATER,
      });
      const claimed = await analytics.claimOperation({
        ownerId: "new-host",
        now: "2026-03-01T10:00:00.000Z",
        staleBefore: "2026-03-01T09:59:30.000Z",
      });
      expect(claimed).toMatchObject({ id: "op-running", ownerId: "new-host", attempts: 1, progress: { done: 0 } });
      const rows: unknown[] = [];
      for await (const page of analytics.readReportRows("op-running")) rows.push(...page);
      expect(rows).toEqual([]);
      expect(await analytics.purgeExpiredOperations(DAY_LATER, 100)).toBe(2);
      expect(await analytics.getOperation({ all: true }, "op-done")).toBeUndefined();
    } finally {
      await store.close();
    }
  });
}

describe("analytics migration 4 (report jobs) on SQLite", () => {
  migrationChecks(() => sqlStore({ sqlite: ":memory:" }));
});

describePostgres("analytics migration 4 (report jobs) on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(async () => {
    await schema?.drop();
  });
  migrationChecks(async () => {
    if (!schema) throw new Error("the test schema was not created (see beforeAll)");
    return sqlStore({ postgres: schema.pool() });
  });
});
