/**
 * The demo data a newcomer meets on the first `npm start`, on the memory store and on SQLite:
 * the figures the seed promises are the figures the stores compute.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AnalyticsStore, Page } from "@scimkit/server";
import { demoSeed } from "./demo-seed.js";
import { openHostStore, type HostStore } from "./open-host-store.js";

const NOW = new Date("2025-06-15T12:00:00.000Z");
const ALL = { all: true } as const;
const EVERYONE = { limit: 1000 };

let opened: HostStore | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

async function seeded(
  databaseUrl: string,
): Promise<{ readonly database: HostStore; readonly result: Awaited<ReturnType<typeof demoSeed>> }> {
  const database = await openHostStore(databaseUrl);
  opened = database;
  await database.analytics.createOrganization({
    id: "demo",
    name: "Demo organization",
    status: "active",
    createdAt: NOW.toISOString(),
    updatedAt: NOW.toISOString(),
  });
  const result = await demoSeed({ resources: database.store, analytics: database.analytics, orgId: "demo", now: NOW });
  return { database, result };
}

async function all<T>(read: (page: { limit: number; after?: string }) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  let after: string | undefined;
  do {
    const page = await read(after === undefined ? EVERYONE : { ...EVERYONE, after });
    items.push(...page.items);
    after = page.next;
  } while (after !== undefined);
  return items;
}

describe.each([
  ["memory", "memory:"],
  ["SQLite", "sqlite::memory:"],
])("the demo seed on the %s store", (_name, databaseUrl) => {
  it("provisions fifty SCIM learners in six departments, three of them deactivated", async () => {
    const { database, result } = await seeded(databaseUrl);
    const analytics: AnalyticsStore = database.analytics;
    const learners = await all((page) => analytics.listLearners(ALL, { orgId: "demo" }, page));
    expect(result.learners).toBe(50);
    expect(learners).toHaveLength(50);
    expect(new Set(learners.map((learner) => learner.userName)).size).toBe(50);
    expect(new Set(learners.map((learner) => learner.department)).size).toBe(6);
    expect(learners.filter((learner) => !learner.active)).toHaveLength(3);
    expect(learners.every((learner) => learner.email === learner.userName && learner.userName.endsWith("@demo.example"))).toBe(true);

    const stored = await database.store.get({ orgId: "demo", resourceType: "User", id: learners[0]?.id as string, members: false });
    expect(stored?.attributes).toMatchObject({
      name: { givenName: expect.any(String), familyName: expect.any(String) },
      emails: [{ type: "work" }],
    });
  });

  it("records two campaigns whose summaries show every state, overdue only past the due date", async () => {
    const { database, result } = await seeded(databaseUrl);
    const [essentials, phishing] = result.campaigns;
    const asOf = NOW.toISOString();
    const first = await database.analytics.campaignSummary(essentials?.id as string, asOf);
    expect(first).toMatchObject({ enrolled: 50, notStarted: 8, inProgress: 12, completed: 30, overdue: 20, completionRate: 0.6 });
    expect(first.averageScore).toBeGreaterThanOrEqual(62);
    expect(first.averageScore).toBeLessThanOrEqual(100);
    const second = await database.analytics.campaignSummary(phishing?.id as string, asOf);
    expect(second).toMatchObject({ enrolled: 40, notStarted: 15, inProgress: 15, completed: 10, overdue: 0, completionRate: 0.25 });

    const listed = await all((page) => database.analytics.listCampaigns(ALL, page, { orgId: "demo" }));
    expect(listed.map((campaign) => campaign.name).sort()).toEqual(["Security awareness essentials", "Spotting phishing"]);
    const enrolments = await all((page) => database.analytics.listEnrolments(essentials?.id as string, {}, asOf, page));
    // Every recorded time lies in the past, and a completion follows its start.
    for (const enrolment of enrolments) {
      expect(enrolment.updatedAt <= asOf).toBe(true);
      if (enrolment.completedAt !== undefined)
        expect(enrolment.startedAt !== undefined && enrolment.startedAt < enrolment.completedAt).toBe(true);
    }
  });

  it("records a simulation whose funnel narrows stage by stage", async () => {
    const { database, result } = await seeded(databaseUrl);
    const summary = await database.analytics.simulationSummary(result.simulation.id);
    expect(summary).toMatchObject({ sent: 50, delivered: 48, opened: 31, clicked: 12, submittedData: 5, reported: 14 });
    expect(summary.rates).toEqual({ delivered: 0.96, opened: 0.62, clicked: 0.24, submittedData: 0.1, reported: 0.28 });
    const recipients = await all((page) => database.analytics.listRecipients(result.simulation.id, {}, page));
    for (const recipient of recipients) {
      if (recipient.clickedAt !== undefined)
        expect(recipient.openedAt !== undefined && recipient.openedAt < recipient.clickedAt).toBe(true);
      if (recipient.openedAt !== undefined) expect(recipient.deliveredAt).toBeDefined();
    }
  });

  it("records feedback on both campaigns and on the simulation", async () => {
    const { database, result } = await seeded(databaseUrl);
    const [essentials, phishing] = result.campaigns;
    const count = async (subject: { kind: "campaign" | "simulation"; id: string }): Promise<number> =>
      (await all((page) => database.analytics.listFeedback(subject, page))).length;
    expect(await count({ kind: "campaign", id: essentials?.id as string })).toBe(3);
    expect(await count({ kind: "campaign", id: phishing?.id as string })).toBe(1);
    expect(await count({ kind: "simulation", id: result.simulation.id })).toBe(2);
    expect(result.feedbackComments).toBe(6);
  });

  it("creates two divisions under demo, EMEA holding ten of the company's people again by work e-mail", async () => {
    const { database, result } = await seeded(databaseUrl);
    expect(result.divisions.map((division) => division.id)).toEqual(["demo-emea", "demo-americas"]);
    const children = await all((page) => database.analytics.listOrganizations(ALL, page, { parentId: "demo" }));
    expect(children.map((organization) => [organization.id, organization.name, organization.status])).toEqual([
      ["demo-americas", "Demo Americas", "active"],
      ["demo-emea", "Demo EMEA", "active"],
    ]);
    expect(await database.analytics.listSubtreeIds(["demo"])).toEqual(["demo", "demo-americas", "demo-emea"]);
    const emails = async (orgId: string): Promise<Set<string>> =>
      new Set((await all((page) => database.analytics.listLearners(ALL, { orgId }, page))).map((learner) => learner.email ?? ""));
    const [company, emea, americas] = [await emails("demo"), await emails("demo-emea"), await emails("demo-americas")];
    expect([emea.size, americas.size]).toEqual([10, 10]);
    expect([...emea].every((email) => company.has(email))).toBe(true);
    expect([...americas].some((email) => company.has(email) || emea.has(email))).toBe(false);
    // The figures docs/analytics.md shows for GET /organizations/demo/summary?subtree=true&people=true.
    const summary = await database.analytics.treeSummary(ALL, "demo", { asOf: NOW.toISOString(), people: true });
    expect(summary?.organizations.map((row) => [row.orgId, row.learners, row.activeLearners])).toEqual([
      ["demo", 50, 47],
      ["demo-americas", 10, 10],
      ["demo-emea", 10, 9],
    ]);
    expect(summary?.totals).toEqual({
      learners: 70,
      activeLearners: 66,
      enrolled: 90,
      completed: 40,
      overdue: 20,
      sent: 50,
      clicked: 12,
      reported: 14,
    });
    expect(summary?.people).toEqual({ learners: 60, activeLearners: 57 });
  });
});
