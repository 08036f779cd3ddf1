/**
 * What the SQL analytics store promises beyond the conformance kit, checked the same way on
 * SQLite and PostgreSQL: an organization delete is one transaction; the hot lookups read their
 * indexes (the plans the database chooses, for the queries the store really sends); a summary
 * over 100,000 enrolments is exact; and values reach the database as bound parameters only.
 */
import { randomBytes } from "node:crypto";
import { CompiledQuery, sql, type Kysely } from "kysely";
import { expect, it } from "vitest";
import { v7 } from "uuid";
import { sqlRateLimiter, sqlRequestLog, type SqlStore } from "scimkit/sql";
import { uniqueKeys, userAttributes } from "../scim-attributes.fixture.js";
import type { AnalyticsStore, Enrolment } from "../analytics-store.js";
import type { AnalyticsDatabase, AnalyticsTables } from "./analytics-tables.js";
import { enrolmentValues } from "./campaign-queries.js";
import { sqlAnalyticsStore } from "./sql-analytics-store.js";

/** A store whose every statement is recorded, as compiled (SQL text and parameters). */
export interface RecordingStore {
  readonly store: SqlStore;
  /** Every statement run so far, oldest first; the test may empty it. */
  readonly queries: CompiledQuery[];
  close(): Promise<void>;
}

/** The dialect-specific parts of the checks. */
export interface AnalyticsBehaviourOptions {
  /** Opens a migrated store over Kysely that appends every statement to `queries`. */
  open(queries: CompiledQuery[]): Promise<RecordingStore>;
  /** The plan of `query` as text, one line per plan node (`EXPLAIN QUERY PLAN` / `EXPLAIN`). */
  explain(db: Kysely<AnalyticsDatabase>, query: CompiledQuery): Promise<string>;
  /** Makes every later delete from `scimkit_organizations` fail, as a broken statement would. */
  refuseOrganizationDeletes(db: Kysely<AnalyticsDatabase>): Promise<void>;
  /** Undoes `refuseOrganizationDeletes`. */
  allowOrganizationDeletes(db: Kysely<AnalyticsDatabase>): Promise<void>;
  /** Refreshes the planner's statistics after a bulk load. */
  analyze(db: Kysely<AnalyticsDatabase>): Promise<void>;
}

/** The store's Kysely instance with the analytics tables in view. */
const analyticsDb = (store: SqlStore): Kysely<AnalyticsDatabase> => store.db.withTables<AnalyticsTables>();

const T0 = Date.UTC(2024, 0, 1);
const at = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

/** Rows per multi-row insert when seeding: 11 columns, well under both databases' parameter limits. */
const SEED_CHUNK = 1000;

/** Inserts `count` enrolments of one campaign straight into the table, `SEED_CHUNK` rows a statement. */
async function seedEnrolments(
  db: Kysely<AnalyticsDatabase>,
  orgId: string,
  campaignId: string,
  count: number,
  enrolmentOf: (index: number) => Enrolment,
): Promise<void> {
  for (let start = 0; start < count; start += SEED_CHUNK) {
    const rows = Array.from({ length: Math.min(SEED_CHUNK, count - start) }, (_, offset) => {
      const enrolment = enrolmentOf(start + offset);
      return { campaign_id: campaignId, user_id: enrolment.userId, ...enrolmentValues(orgId, enrolment) };
    });
    await db.insertInto("scimkit_enrolments").values(rows).execute();
  }
}

/** A user id that sorts as its index does. */
const userIdOf = (index: number): string => `user-${String(index).padStart(6, "0")}`;

/**
 * The enrolment of learner `index` in the 100,000 check: three in ten not started, three in
 * progress (every other one scored), four completed (scored 50–100).
 */
function mixedEnrolment(campaignId: string, index: number): Enrolment {
  const base = { campaignId, userId: userIdOf(index), enrolledAt: at(1), updatedAt: at(1) };
  const bucket = index % 10;
  if (bucket < 3) return { ...base, status: "not_started", progressPercent: 0 };
  if (bucket < 6)
    return { ...base, status: "in_progress", progressPercent: 50, ...(index % 2 === 0 ? { score: index % 101 } : {}), startedAt: at(2) };
  return { ...base, status: "completed", progressPercent: 100, score: 50 + (index % 51), startedAt: at(2), completedAt: at(3) };
}

/** How many rows of `orgId` each table holds. */
async function rowsOf(db: Kysely<AnalyticsDatabase>, orgId: string): Promise<Record<string, number>> {
  const count = async (query: { executeTakeFirstOrThrow(): Promise<{ n: number | string | bigint }> }) =>
    Number((await query.executeTakeFirstOrThrow()).n);
  const byOrg = [
    "scimkit_resources",
    "scimkit_members",
    "scimkit_unique_keys",
    "scimkit_tokens",
    "scimkit_campaigns",
    "scimkit_enrolments",
    "scimkit_simulations",
    "scimkit_simulation_recipients",
    "scimkit_feedback",
    "scimkit_operations",
    "scimkit_admin_user_organizations",
    "scimkit_request_log",
  ] as const;
  const counts: Record<string, number> = {};
  for (const table of byOrg) {
    counts[table] = await count(
      db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as("n"))
        .where("org_id", "=", orgId),
    );
  }
  counts["scimkit_organizations"] = await count(
    db
      .selectFrom("scimkit_organizations")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("id", "=", orgId),
  );
  counts["scimkit_rate_buckets"] = await count(
    db
      .selectFrom("scimkit_rate_buckets")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("key", "=", `scim:${orgId}`),
  );
  counts["scimkit_report_rows"] = await count(
    db
      .selectFrom("scimkit_report_rows")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("operation_id", "in", (eb) => eb.selectFrom("scimkit_operations").select("id").where("org_id", "=", orgId)),
  );
  return counts;
}

/** An organization with a row in every table the delete touches. */
async function populate(store: SqlStore, analytics: AnalyticsStore): Promise<string> {
  const orgId = v7();
  await analytics.createOrganization({ id: orgId, name: "Doomed", status: "active", createdAt: at(0), updatedAt: at(0) });
  await store.tokens.issue(orgId, { label: "IdP" });
  const userIds: string[] = [];
  for (const userName of ["ada", "grace"]) {
    const attributes = userAttributes(userName);
    const id = v7();
    await store.create({
      orgId,
      resourceType: "User",
      id,
      now: at(1),
      attributes,
      uniqueKeys: uniqueKeys("User", attributes),
      unknownMembers: "ignore",
    });
    userIds.push(id);
  }
  const group = { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Everyone" };
  await store.create({
    orgId,
    resourceType: "Group",
    id: v7(),
    now: at(1),
    attributes: group,
    uniqueKeys: uniqueKeys("Group", group),
    members: userIds,
    unknownMembers: "ignore",
  });
  const campaignId = v7();
  await analytics.createCampaign({ id: campaignId, orgId, name: "Basics", startsAt: at(0), createdAt: at(0) });
  for (const userId of userIds) {
    await analytics.putEnrolment(orgId, {
      campaignId,
      userId,
      status: "not_started",
      progressPercent: 0,
      enrolledAt: at(1),
      updatedAt: at(1),
    });
  }
  const simulationId = v7();
  await analytics.createSimulation({ id: simulationId, orgId, name: "Parcel", launchedAt: at(0), createdAt: at(0) });
  await analytics.recordSimulationEvent(orgId, { simulationId, userId: userIds[0] ?? "", type: "clicked", at: at(2) });
  await analytics.addFeedback(orgId, {
    id: v7(),
    subject: { kind: "campaign", id: campaignId },
    userId: userIds[0] ?? "",
    comment: "Fine",
    createdAt: at(3),
  });
  const operationId = v7();
  await analytics.createOperation({
    id: operationId,
    kind: "campaign-users-report",
    orgId,
    subjectId: campaignId,
    status: "succeeded",
    progress: { done: 1 },
    createdAt: at(4),
  });
  await analytics.appendReportRows(operationId, [{ userId: userIds[0] ?? "" }]);
  // What its requests left: a provisioning-log entry and a rate bucket.
  const log = sqlRequestLog(store);
  log.record({
    requestId: v7(),
    orgId,
    at: at(5),
    method: "GET",
    path: `/scim/Organizations/${orgId}/v2/Users`,
    status: 200,
    durationMs: 1,
    authenticated: true,
    identityProvider: "other",
  });
  await log.close();
  await sqlRateLimiter(store, { requestsPerSecond: 10 }).take(orgId);
  const adminId = v7();
  await analytics.createAdminUser(
    {
      id: adminId,
      email: `${adminId}@example.test`,
      role: "admin",
      organizationIds: [orgId],
      status: "invited",
      invitedAt: at(0),
      updatedAt: at(0),
    },
    { codeHash: randomBytes(32).toString("hex"), expiresAt: at(100) },
  );
  return orgId;
}

/** Registers the checks; `options` supply the database. */
export function sqlAnalyticsStoreBehaviour(options: AnalyticsBehaviourOptions): void {
  const withStore = (name: string, body: (opened: RecordingStore, analytics: AnalyticsStore) => Promise<void>, timeout?: number) =>
    it(
      name,
      async () => {
        const opened = await options.open([]);
        try {
          await body(opened, await sqlAnalyticsStore(opened.store));
        } finally {
          await opened.close();
        }
      },
      timeout,
    );

  withStore(
    "deleteOrganization is one transaction: when its last statement fails, nothing of the organization is gone",
    async ({ store }, analytics) => {
      const orgId = await populate(store, analytics);
      const before = await rowsOf(analyticsDb(store), orgId);
      expect(Object.entries(before).filter(([, count]) => count === 0)).toEqual([]);
      await options.refuseOrganizationDeletes(analyticsDb(store));
      try {
        await expect(analytics.deleteOrganization({ all: true }, orgId)).rejects.toThrow(/refused by the test/);
      } finally {
        await options.allowOrganizationDeletes(analyticsDb(store));
      }
      expect(await rowsOf(analyticsDb(store), orgId)).toEqual(before);
      expect(await analytics.deleteOrganization({ all: true }, orgId)).toBe(true);
      const after = await rowsOf(analyticsDb(store), orgId);
      expect(Object.entries(after).filter(([, count]) => count !== 0)).toEqual([]);
    },
  );

  withStore(
    "the store's deleteOrganization (ResourceStore) empties one organization's SCIM tables and counts its resources",
    async ({ store }, analytics) => {
      const doomed = await populate(store, analytics);
      const kept = await populate(store, analytics);
      const keptBefore = await rowsOf(analyticsDb(store), kept);
      expect(await store.deleteOrganization?.(doomed)).toBe(3);
      const left = await rowsOf(analyticsDb(store), doomed);
      expect([left["scimkit_resources"], left["scimkit_members"], left["scimkit_unique_keys"]]).toEqual([0, 0, 0]);
      // The analytics side and the tokens are not the ResourceStore's.
      expect(left["scimkit_organizations"]).toBe(1);
      expect(left["scimkit_tokens"]).toBe(1);
      expect(await rowsOf(analyticsDb(store), kept)).toEqual(keptBefore);
      expect(await store.deleteOrganization?.(doomed)).toBe(0);
    },
  );

  withStore("an API key is found by one probe of the unique digest index", async ({ store, queries }, analytics) => {
    const keys = Array.from({ length: 2000 }, (_, index) => ({
      id: v7(),
      hash: index.toString(16).padStart(64, "0"),
      subject_kind: "operator",
      admin_user_id: null,
      created_at: at(0),
    }));
    for (let start = 0; start < keys.length; start += SEED_CHUNK)
      await analyticsDb(store)
        .insertInto("scimkit_api_keys")
        .values(keys.slice(start, start + SEED_CHUNK))
        .execute();
    await options.analyze(analyticsDb(store));
    queries.length = 0;
    const found = await analytics.findApiKeyByHash(keys[1234]?.hash ?? "");
    expect(found?.id).toBe(keys[1234]?.id);
    const [lookup] = queries;
    if (!lookup) throw new Error("the lookup ran no statement");
    expect(await options.explain(analyticsDb(store), lookup)).toMatch(/scimkit_api_keys_hash/);
  });

  withStore(
    "a campaign's users are read along the enrolments' primary key, and a summary over 100,000 enrolments is exact",
    async ({ store, queries }, analytics) => {
      const orgId = v7();
      await analytics.createOrganization({ id: orgId, name: "Big", status: "active", createdAt: at(0), updatedAt: at(0) });
      const campaignId = v7();
      await analytics.createCampaign({ id: campaignId, orgId, name: "Everyone", startsAt: at(0), dueAt: at(10), createdAt: at(0) });
      const total = 100_000;
      await seedEnrolments(analyticsDb(store), orgId, campaignId, total, (index) => mixedEnrolment(campaignId, index));
      // Other campaigns, so one campaign's users are a range of the table and not all of it.
      for (let other = 0; other < 5; other += 1) {
        const otherId = v7();
        await analytics.createCampaign({ id: otherId, orgId, name: `Other ${other}`, startsAt: at(0), createdAt: at(0) });
        await seedEnrolments(analyticsDb(store), orgId, otherId, 2000, (index) => mixedEnrolment(otherId, index));
      }
      await options.analyze(analyticsDb(store));

      // The oracle: the same rule, counted here one enrolment at a time.
      const expected = { notStarted: 0, inProgress: 0, completed: 0, scores: 0, scored: 0 };
      for (let index = 0; index < total; index += 1) {
        const enrolment = mixedEnrolment(campaignId, index);
        if (enrolment.status === "not_started") expected.notStarted += 1;
        if (enrolment.status === "in_progress") expected.inProgress += 1;
        if (enrolment.status === "completed") expected.completed += 1;
        if (enrolment.score !== undefined) {
          expected.scores += enrolment.score;
          expected.scored += 1;
        }
      }
      queries.length = 0;
      const summary = await analytics.campaignSummary(campaignId, at(20));
      expect(queries, "one aggregate query").toHaveLength(1);
      expect(summary).toEqual({
        campaignId,
        enrolled: total,
        notStarted: expected.notStarted,
        inProgress: expected.inProgress,
        completed: expected.completed,
        overdue: expected.notStarted + expected.inProgress,
        completionRate: Math.round((expected.completed / total) * 10_000) / 10_000,
        averageScore: Math.round((expected.scores / expected.scored) * 100) / 100,
        asOf: at(20),
      });
      // Before the due time nothing is overdue.
      expect((await analytics.campaignSummary(campaignId, at(5))).overdue).toBe(0);

      queries.length = 0;
      const page = await analytics.listEnrolments(campaignId, { status: "completed" }, at(20), { limit: 3, after: userIdOf(99_990) });
      expect(page.items.map((view) => [view.userId, view.status, view.overdue])).toEqual([
        [userIdOf(99_996), "completed", false],
        [userIdOf(99_997), "completed", false],
        [userIdOf(99_998), "completed", false],
      ]);
      expect(page.next).toBe(userIdOf(99_998));
      const [list] = queries;
      if (!list) throw new Error("the list ran no statement");
      const plan = await options.explain(analyticsDb(store), list);
      expect(plan).toMatch(/scimkit_enrolments_pk|sqlite_autoindex_scimkit_enrolments_1/);
      // Read in key order: no sort of the campaign's 100,000 rows for a page of three.
      expect(plan).not.toMatch(/TEMP B-TREE|Sort/);
    },
    120_000,
  );

  withStore(
    "a deep page of learners starts at its position in an index, for every organization or one",
    async ({ store, queries }, analytics) => {
      const orgIds = [v7(), v7()];
      for (const orgId of orgIds) {
        await analytics.createOrganization({ id: orgId, name: "Many", status: "active", createdAt: at(0), updatedAt: at(0) });
        const users = Array.from({ length: 4000 }, (_, index) => ({
          org_id: orgId,
          id: userIdOf(index),
          resource_type: index % 4 === 3 ? "Group" : "User",
          version: 1,
          created: at(1),
          last_modified: at(1),
          external_id: null,
          attributes: JSON.stringify({ userName: `u${index}` }),
          member_seq: null,
        }));
        for (let start = 0; start < users.length; start += SEED_CHUNK)
          await analyticsDb(store)
            .insertInto("scimkit_resources")
            .values(users.slice(start, start + SEED_CHUNK))
            .execute();
      }
      await options.analyze(analyticsDb(store));
      const [first = "", second = ""] = orgIds;
      const reads = [
        () => analytics.listLearners({ all: true }, {}, { limit: 5, after: `${first}\n${userIdOf(3900)}` }),
        () => analytics.listLearners({ all: true }, { orgId: second }, { limit: 5, after: `${second}\n${userIdOf(3900)}` }),
        () => analytics.listLearners({ orgIds: [second] }, {}, { limit: 5, after: `${second}\n${userIdOf(3900)}` }),
      ];
      for (const read of reads) {
        queries.length = 0;
        const page = await read();
        expect(page.items).toHaveLength(5);
        expect(page.items[0]?.id).toBe(userIdOf(3901));
        const [list] = queries;
        if (!list) throw new Error("the list ran no statement");
        // A range that starts at the position: a row value, or the id within one organization.
        expect(await options.explain(analyticsDb(store), list)).toMatch(
          /\(org_id,id\)>\(\?,\?\)|ROW\(org_id, id\) > ROW|AND id>\?\)|\(id > /,
        );
      }
    },
  );

  withStore("filter values travel as bound parameters, never in the SQL text", async ({ store, queries }, analytics) => {
    const orgId = v7();
    await analytics.createOrganization({ id: orgId, name: "Quotes", status: "active", createdAt: at(0), updatedAt: at(0) });
    const department = "R&D 'Labs'; drop table scimkit_resources; --";
    const enterprise = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
    const attributes = userAttributes("ada", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", enterprise],
      [enterprise]: { department },
    });
    const id = v7();
    await store.create({
      orgId,
      resourceType: "User",
      id,
      now: at(1),
      attributes,
      uniqueKeys: uniqueKeys("User", attributes),
      unknownMembers: "ignore",
    });
    queries.length = 0;
    const page = await analytics.listLearners({ orgIds: [orgId] }, { department: department.toUpperCase(), active: true }, { limit: 10 });
    expect(page.items.map((learner) => [learner.id, learner.department])).toEqual([[id, department]]);
    const [list] = queries;
    expect(list?.sql).not.toMatch(/labs|drop table/i);
    expect(list?.parameters).toContain(department.toLowerCase());
    expect((await analytics.listLearners({ orgIds: [orgId] }, { department: "x' or '1'='1" }, { limit: 10 })).items).toEqual([]);
  });
}

/** `EXPLAIN` of a recorded statement with its own parameters. */
export function explainOf(prefix: string, query: CompiledQuery): CompiledQuery {
  return CompiledQuery.raw(`${prefix} ${query.sql}`, [...query.parameters]);
}

/** Runs raw DDL of a test; the statements are constants of the test, never input. */
export async function runStatements(db: Kysely<AnalyticsDatabase>, statements: readonly string[]): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
