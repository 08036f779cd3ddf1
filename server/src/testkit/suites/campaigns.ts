/**
 * Training campaigns: scoped reads, enrolments as an upsert per (campaign, user), "overdue" as of a
 * given time, and summary figures checked to the exact number on a designed dataset.
 */
import { expect } from "vitest";
import type { Campaign, EnrolmentView } from "@scimkit/server";
import { analyticsConformanceTest, type AnalyticsConformanceSuite } from "../analytics-conformance-test.js";
import {
  ALL,
  addCampaign,
  addLearner,
  addLearners,
  addOrganization,
  byId,
  completed,
  enrolment,
  idsOf,
  inProgress,
  newId,
  only,
  rejectionOf,
  time,
  walkPages,
} from "./helpers.js";

const userIdsOf = (views: readonly EnrolmentView[]): string[] => views.map((view) => view.userId);

export const campaignsSuite: AnalyticsConformanceSuite = {
  title: "campaigns and enrolments",
  tests: [
    analyticsConformanceTest("createCampaign stores a campaign that getCampaign returns within the scope", async (context) => {
      const acme = await addOrganization(context);
      const globex = await addOrganization(context);
      const full = await addCampaign(context, acme.id, {
        description: "Spot the lure",
        dueAt: time(600),
        startsAt: time(10),
        createdAt: time(5),
      });
      const bare = await addCampaign(context, acme.id);
      expect(await context.analytics.getCampaign(ALL, full.id)).toEqual(full);
      expect(await context.analytics.getCampaign(only(acme.id), bare.id)).toEqual(bare);
      const read = await context.analytics.getCampaign(ALL, bare.id);
      expect(read?.description).toBeUndefined();
      expect(read?.dueAt).toBeUndefined();
      expect(await context.analytics.getCampaign(only(globex.id), full.id)).toBeUndefined();
      expect(await context.analytics.getCampaign(only(), full.id)).toBeUndefined();
      expect(await context.analytics.getCampaign(ALL, newId())).toBeUndefined();
    }),

    analyticsConformanceTest("createCampaign rejects an id that exists and keeps the first", async (context) => {
      const acme = await addOrganization(context);
      const campaign = await addCampaign(context, acme.id, { name: "First" });
      await rejectionOf(context.analytics.createCampaign({ ...campaign, name: "Second" }));
      expect(await context.analytics.getCampaign(ALL, campaign.id)).toEqual(campaign);
    }),

    analyticsConformanceTest("listCampaigns pages by id, filters by orgId and sees only the scope", async (context) => {
      const acme = await addOrganization(context);
      const globex = await addOrganization(context);
      const campaigns: Campaign[] = [];
      for (let index = 0; index < 4; index += 1) campaigns.push(await addCampaign(context, acme.id, { name: `Acme ${index}` }));
      const theirs = await addCampaign(context, globex.id);
      const all = byId([...idsOf(campaigns), theirs.id]);
      for (const limit of [1, 2, 5]) {
        const walk = await walkPages(
          (page) => context.analytics.listCampaigns(ALL, page),
          limit,
          (campaign) => campaign.id,
        );
        expect(idsOf(walk.items), `limit ${limit}`).toEqual(all);
        expect(walk.requests, `limit ${limit}`).toBe(Math.ceil(5 / limit));
      }
      const scoped = await walkPages(
        (page) => context.analytics.listCampaigns(only(acme.id), page),
        2,
        (campaign) => campaign.id,
      );
      expect(scoped.items).toEqual(byId(idsOf(campaigns)).map((id) => campaigns.find((campaign) => campaign.id === id)));
      expect(idsOf((await context.analytics.listCampaigns(ALL, { limit: 10 }, { orgId: globex.id })).items)).toEqual([theirs.id]);
      expect((await context.analytics.listCampaigns(only(acme.id), { limit: 10 }, { orgId: globex.id })).items).toEqual([]);
      expect(await context.analytics.listCampaigns(only(), { limit: 10 })).toEqual({ items: [] });
    }),

    analyticsConformanceTest("putEnrolment creates, then replaces, the enrolment of (campaign, user)", async (context) => {
      const acme = await addOrganization(context);
      const campaign = await addCampaign(context, acme.id);
      const user = await addLearner(context, acme.id, "ada");
      const first = enrolment(campaign.id, user.id);
      await context.analytics.putEnrolment(acme.id, first);
      expect(await context.analytics.getEnrolment(campaign.id, user.id, time(5))).toMatchObject({ ...first, overdue: false });
      const progressed = inProgress(campaign.id, user.id, 55);
      await context.analytics.putEnrolment(acme.id, progressed);
      const done = completed(campaign.id, user.id, 90);
      await context.analytics.putEnrolment(acme.id, done);
      const read = await context.analytics.getEnrolment(campaign.id, user.id, time(5));
      expect(read).toMatchObject({ ...done, overdue: false });
      const list = await context.analytics.listEnrolments(campaign.id, {}, time(5), { limit: 10 });
      expect(list.items).toHaveLength(1);
      expect(list.items[0]).toEqual(read);
      // A replacement drops what the new record does not have.
      await context.analytics.putEnrolment(acme.id, enrolment(campaign.id, user.id, { updatedAt: time(4) }));
      const reset = await context.analytics.getEnrolment(campaign.id, user.id, time(5));
      expect(reset).toMatchObject({ status: "not_started", progressPercent: 0, updatedAt: time(4) });
      expect(reset?.score).toBeUndefined();
      expect(reset?.startedAt).toBeUndefined();
      expect(reset?.completedAt).toBeUndefined();
      expect(await context.analytics.getEnrolment(campaign.id, newId(), time(5))).toBeUndefined();
      expect(await context.analytics.getEnrolment(newId(), user.id, time(5))).toBeUndefined();
    }),

    analyticsConformanceTest("an enrolment carries its learner while the SCIM user exists, and outlives it", async (context) => {
      const acme = await addOrganization(context);
      const campaign = await addCampaign(context, acme.id);
      const user = await addLearner(context, acme.id, "grace", { displayName: "Grace" }, { now: time(1) });
      await context.analytics.putEnrolment(acme.id, inProgress(campaign.id, user.id));
      const view = await context.analytics.getEnrolment(campaign.id, user.id, time(5));
      expect(view?.learner).toEqual({
        id: user.id,
        orgId: acme.id,
        userName: "grace",
        displayName: "Grace",
        active: true,
        createdAt: time(1),
        updatedAt: time(1),
      });
      expect((await context.analytics.listEnrolments(campaign.id, {}, time(5), { limit: 10 })).items[0]?.learner).toEqual(view?.learner);
      await context.resources.delete({ orgId: acme.id, resourceType: "User", id: user.id, now: time(6) });
      const orphan = await context.analytics.getEnrolment(campaign.id, user.id, time(7));
      expect(orphan).toBeDefined();
      expect(orphan?.learner).toBeUndefined();
      expect(orphan).toMatchObject(inProgress(campaign.id, user.id));
      const listed = await context.analytics.listEnrolments(campaign.id, {}, time(7), { limit: 10 });
      expect(listed.items).toHaveLength(1);
      expect(listed.items[0]?.learner).toBeUndefined();
    }),

    analyticsConformanceTest(
      "an enrolment shows the learner of the campaign's organization, never another's with the same id",
      async (context) => {
        const acme = await addOrganization(context);
        const globex = await addOrganization(context);
        const id = newId();
        await addLearner(context, globex.id, "mallory", {}, { id });
        const campaign = await addCampaign(context, acme.id);
        await context.analytics.putEnrolment(acme.id, enrolment(campaign.id, id));
        expect((await context.analytics.getEnrolment(campaign.id, id, time(5)))?.learner).toBeUndefined();
        await addLearner(context, acme.id, "ada", {}, { id });
        expect((await context.analytics.getEnrolment(campaign.id, id, time(5)))?.learner).toMatchObject({
          orgId: acme.id,
          userName: "ada",
        });
        const listed = await context.analytics.listEnrolments(campaign.id, {}, time(5), { limit: 10 });
        expect(listed.items.map((view) => view.learner?.userName)).toEqual(["ada"]);
      },
    ),

    analyticsConformanceTest("listEnrolments orders by user id, pages, and shows only its campaign", async (context) => {
      const acme = await addOrganization(context);
      const campaign = await addCampaign(context, acme.id);
      const other = await addCampaign(context, acme.id);
      const userIds: string[] = [];
      for (let index = 0; index < 5; index += 1) {
        const user = await addLearner(context, acme.id, `learner${index}`);
        userIds.push(user.id);
        await context.analytics.putEnrolment(acme.id, enrolment(campaign.id, user.id));
      }
      await context.analytics.putEnrolment(acme.id, enrolment(other.id, newId()));
      for (const limit of [1, 2, 5, 1000]) {
        const walk = await walkPages(
          (page) => context.analytics.listEnrolments(campaign.id, {}, time(5), page),
          limit,
          (view) => view.userId,
        );
        expect(userIdsOf(walk.items), `limit ${limit}`).toEqual(byId(userIds));
        expect(walk.requests, `limit ${limit}`).toBe(Math.ceil(5 / limit));
      }
      const first = await context.analytics.listEnrolments(campaign.id, {}, time(5), { limit: 2 });
      expect(first.next).toBe(byId(userIds)[1]);
      expect(await context.analytics.listEnrolments(newId(), {}, time(5), { limit: 10 })).toEqual({ items: [] });
    }),

    analyticsConformanceTest("overdue is as of asOf: not completed and past dueAt; without dueAt never", async (context) => {
      const acme = await addOrganization(context);
      const due = await addCampaign(context, acme.id, { dueAt: time(100) });
      const open = await addCampaign(context, acme.id);
      const [done, started, idle] = [
        await addLearner(context, acme.id, "done"),
        await addLearner(context, acme.id, "started"),
        await addLearner(context, acme.id, "idle"),
      ];
      for (const campaign of [due, open]) {
        await context.analytics.putEnrolment(acme.id, completed(campaign.id, done.id, 80));
        await context.analytics.putEnrolment(acme.id, inProgress(campaign.id, started.id));
        await context.analytics.putEnrolment(acme.id, enrolment(campaign.id, idle.id));
      }
      const overdueOf = async (campaignId: string, asOf: string) =>
        Object.fromEntries(
          (await context.analytics.listEnrolments(campaignId, {}, asOf, { limit: 10 })).items.map((view) => [view.userId, view.overdue]),
        );
      expect(await overdueOf(due.id, time(99))).toEqual({ [done.id]: false, [started.id]: false, [idle.id]: false });
      expect(await overdueOf(due.id, time(101))).toEqual({ [done.id]: false, [started.id]: true, [idle.id]: true });
      expect(await overdueOf(open.id, time(1_000_000))).toEqual({ [done.id]: false, [started.id]: false, [idle.id]: false });
      expect((await context.analytics.getEnrolment(due.id, idle.id, time(101)))?.overdue).toBe(true);
      expect((await context.analytics.getEnrolment(due.id, idle.id, time(99)))?.overdue).toBe(false);
      // Overdue once dueAt is before asOf: at the due time itself, not yet.
      expect((await context.analytics.getEnrolment(due.id, idle.id, time(100)))?.overdue).toBe(false);
      expect(await context.analytics.campaignSummary(due.id, time(100))).toMatchObject({ overdue: 0 });
      expect((await context.analytics.getEnrolment(due.id, done.id, time(101)))?.overdue).toBe(false);
    }),

    analyticsConformanceTest("listEnrolments filters by status and by overdue, combined", async (context) => {
      const acme = await addOrganization(context);
      const campaign = await addCampaign(context, acme.id, { dueAt: time(100) });
      const ids = await addLearners(context, acme.id, 6);
      const [u0, u1, u2, u3, u4, u5] = ids as [string, string, string, string, string, string];
      await context.analytics.putEnrolment(acme.id, completed(campaign.id, u0, 90));
      await context.analytics.putEnrolment(acme.id, completed(campaign.id, u1));
      await context.analytics.putEnrolment(acme.id, inProgress(campaign.id, u2, 40));
      await context.analytics.putEnrolment(acme.id, inProgress(campaign.id, u3));
      await context.analytics.putEnrolment(acme.id, enrolment(campaign.id, u4));
      await context.analytics.putEnrolment(acme.id, enrolment(campaign.id, u5));
      const list = async (filter: Parameters<typeof context.analytics.listEnrolments>[1], asOf = time(101)) =>
        userIdsOf((await context.analytics.listEnrolments(campaign.id, filter, asOf, { limit: 10 })).items);
      expect(await list({ status: "completed" })).toEqual(byId([u0, u1]));
      expect(await list({ status: "in_progress" })).toEqual(byId([u2, u3]));
      expect(await list({ status: "not_started" })).toEqual(byId([u4, u5]));
      expect(await list({ overdue: true })).toEqual(byId([u2, u3, u4, u5]));
      expect(await list({ overdue: false })).toEqual(byId([u0, u1]));
      expect(await list({ overdue: true }, time(99))).toEqual([]);
      expect(await list({ overdue: false }, time(99))).toEqual(byId(ids));
      expect(await list({ status: "not_started", overdue: true })).toEqual(byId([u4, u5]));
      expect(await list({ status: "completed", overdue: true })).toEqual([]);
      const walk = await walkPages(
        (page) => context.analytics.listEnrolments(campaign.id, { overdue: true }, time(101), page),
        3,
        (view) => view.userId,
      );
      expect(userIdsOf(walk.items)).toEqual(byId([u2, u3, u4, u5]));
    }),

    analyticsConformanceTest("campaignSummary gives the exact figures of a designed dataset", async (context) => {
      const acme = await addOrganization(context);
      const campaign = await addCampaign(context, acme.id, { dueAt: time(100) });
      const other = await addCampaign(context, acme.id, { dueAt: time(100) });
      const ids = await addLearners(context, acme.id, 6);
      const [u0, u1, u2, u3, u4, u5] = ids as [string, string, string, string, string, string];
      await context.analytics.putEnrolment(acme.id, completed(campaign.id, u0, 90));
      await context.analytics.putEnrolment(acme.id, completed(campaign.id, u1, 85));
      await context.analytics.putEnrolment(acme.id, inProgress(campaign.id, u2, 70));
      await context.analytics.putEnrolment(acme.id, inProgress(campaign.id, u3));
      await context.analytics.putEnrolment(acme.id, enrolment(campaign.id, u4));
      await context.analytics.putEnrolment(acme.id, enrolment(campaign.id, u5));
      // Another campaign's enrolments count for it alone.
      await context.analytics.putEnrolment(acme.id, completed(other.id, u0, 10));
      await context.analytics.putEnrolment(acme.id, enrolment(other.id, u1));
      expect(await context.analytics.campaignSummary(campaign.id, time(101))).toEqual({
        campaignId: campaign.id,
        enrolled: 6,
        notStarted: 2,
        inProgress: 2,
        completed: 2,
        overdue: 4,
        completionRate: 0.3333,
        averageScore: 81.67,
        asOf: time(101),
      });
      expect(await context.analytics.campaignSummary(campaign.id, time(99))).toMatchObject({ overdue: 0, asOf: time(99) });
      expect(await context.analytics.campaignSummary(other.id, time(101))).toEqual({
        campaignId: other.id,
        enrolled: 2,
        notStarted: 1,
        inProgress: 0,
        completed: 1,
        overdue: 1,
        completionRate: 0.5,
        averageScore: 10,
        asOf: time(101),
      });
    }),

    analyticsConformanceTest("campaignSummary rounds the rate to 4 decimals and the average score to 2", async (context) => {
      const acme = await addOrganization(context);
      const campaign = await addCampaign(context, acme.id);
      const ids = await addLearners(context, acme.id, 3);
      const [u0, u1, u2] = ids as [string, string, string];
      await context.analytics.putEnrolment(acme.id, completed(campaign.id, u0, 80));
      await context.analytics.putEnrolment(acme.id, completed(campaign.id, u1, 85));
      await context.analytics.putEnrolment(acme.id, inProgress(campaign.id, u2, 86));
      expect(await context.analytics.campaignSummary(campaign.id, time(5))).toEqual({
        campaignId: campaign.id,
        enrolled: 3,
        notStarted: 0,
        inProgress: 1,
        completed: 2,
        overdue: 0,
        completionRate: 0.6667,
        averageScore: 83.67,
        asOf: time(5),
      });
    }),

    analyticsConformanceTest("campaignSummary of a campaign nobody is enrolled in: zeros, rate 0, averageScore null", async (context) => {
      const acme = await addOrganization(context);
      const campaign = await addCampaign(context, acme.id, { dueAt: time(1) });
      expect(await context.analytics.campaignSummary(campaign.id, time(5))).toEqual({
        campaignId: campaign.id,
        enrolled: 0,
        notStarted: 0,
        inProgress: 0,
        completed: 0,
        overdue: 0,
        completionRate: 0,
        averageScore: null,
        asOf: time(5),
      });
      const user = await addLearner(context, acme.id, "unscored");
      await context.analytics.putEnrolment(acme.id, completed(campaign.id, user.id));
      expect(await context.analytics.campaignSummary(campaign.id, time(5))).toMatchObject({
        enrolled: 1,
        completed: 1,
        completionRate: 1,
        averageScore: null,
        overdue: 0,
      });
    }),
  ],
};
