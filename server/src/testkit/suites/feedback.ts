/**
 * Feedback comments: kept per subject (a campaign or a simulation), listed by id — which, for
 * UUID v7 ids, is oldest first.
 */
import { expect } from "vitest";
import type { FeedbackComment } from "@scimkit/server";
import { analyticsConformanceTest, type AnalyticsConformanceSuite } from "../analytics-conformance-test.js";
import { addCampaign, addFeedback, addOrganization, addSimulation, byId, idsOf, newId, time, walkPages } from "./helpers.js";

export const feedbackSuite: AnalyticsConformanceSuite = {
  title: "feedback",
  tests: [
    analyticsConformanceTest("listFeedback returns a subject's comments by id, as stored, in pages", async (context) => {
      const acme = await addOrganization(context);
      const campaign = await addCampaign(context, acme.id);
      const subject = { kind: "campaign", id: campaign.id } as const;
      const comments: FeedbackComment[] = [];
      for (let index = 0; index < 5; index += 1) {
        comments.push(
          await addFeedback(context, acme.id, subject, newId(), {
            comment: `Comment ${index}: "quoted", with commas\nand a newline — and ünïcödé`,
            createdAt: time(index),
            ...(index % 2 === 0 ? { rating: index + 1 } : {}),
          }),
        );
      }
      const expected = byId(idsOf(comments)).map((id) => comments.find((comment) => comment.id === id));
      for (const limit of [1, 2, 5, 1000]) {
        const walk = await walkPages(
          (page) => context.analytics.listFeedback(subject, page),
          limit,
          (comment) => comment.id,
        );
        expect(walk.items, `limit ${limit}`).toEqual(expected);
        expect(walk.requests, `limit ${limit}`).toBe(Math.ceil(5 / limit));
      }
      const unrated = (await context.analytics.listFeedback(subject, { limit: 10 })).items.find(
        (comment) => comment.id === comments[1]?.id,
      );
      expect(unrated?.rating).toBeUndefined();
    }),

    analyticsConformanceTest("comments on one subject never appear under another", async (context) => {
      const acme = await addOrganization(context);
      const campaign = await addCampaign(context, acme.id);
      const otherCampaign = await addCampaign(context, acme.id);
      const simulation = await addSimulation(context, acme.id);
      const onCampaign = await addFeedback(context, acme.id, { kind: "campaign", id: campaign.id }, newId());
      const onOther = await addFeedback(context, acme.id, { kind: "campaign", id: otherCampaign.id }, newId());
      const onSimulation = await addFeedback(context, acme.id, { kind: "simulation", id: simulation.id }, newId(), { rating: 2 });
      expect((await context.analytics.listFeedback({ kind: "campaign", id: campaign.id }, { limit: 10 })).items).toEqual([onCampaign]);
      expect((await context.analytics.listFeedback({ kind: "campaign", id: otherCampaign.id }, { limit: 10 })).items).toEqual([onOther]);
      expect((await context.analytics.listFeedback({ kind: "simulation", id: simulation.id }, { limit: 10 })).items).toEqual([
        onSimulation,
      ]);
      // The kind is part of the subject: a campaign id asked for as a simulation finds nothing.
      expect(await context.analytics.listFeedback({ kind: "simulation", id: campaign.id }, { limit: 10 })).toEqual({ items: [] });
      expect(await context.analytics.listFeedback({ kind: "campaign", id: newId() }, { limit: 10 })).toEqual({ items: [] });
    }),
  ],
};
