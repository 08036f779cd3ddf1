/**
 * Concurrency: calls that race — from several requests or processes sharing the storage — must
 * each take effect exactly as if they had run one after the other. A single-use code is used once,
 * a unique e-mail is taken once, and no recorded event or enrolment is lost.
 */
import { expect } from "vitest";
import type { SimulationEventType } from "@scimkit/server";
import { analyticsConformanceTest, type AnalyticsConformanceSuite } from "../analytics-conformance-test.js";
import { ALL, addAdminUser, addCampaign, addOrganization, addSimulation, apiKey, enrolment, newId, time } from "./helpers.js";

/** Awaits every promise and sorts the outcomes into values and rejections. */
async function settle<T>(promises: readonly Promise<T>[]): Promise<{ readonly values: T[]; readonly errors: unknown[] }> {
  const results = await Promise.allSettled(promises);
  return {
    values: results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : [])),
    errors: results.flatMap((result) => (result.status === "rejected" ? [result.reason] : [])),
  };
}

export const concurrencySuite: AnalyticsConformanceSuite = {
  title: "concurrency",
  tests: [
    analyticsConformanceTest("racing acceptInvitation calls with one code activate the user once and store one key", async (context) => {
      const { user, codeHash } = await addAdminUser(context, {}, { expiresAt: time(100) });
      const keys = Array.from({ length: 5 }, () => apiKey({ kind: "admin", adminUserId: user.id }, time(10)));
      const { values } = await settle(keys.map((key) => context.analytics.acceptInvitation(codeHash, time(10), key)));
      // A loser may find nothing or be refused by the storage; it must never succeed too.
      const accepted = values.filter((value) => value !== undefined);
      expect(accepted).toHaveLength(1);
      expect(accepted[0]?.status).toBe("active");
      const stored = [];
      for (const key of keys) stored.push(await context.analytics.findApiKeyByHash(key.hash));
      expect(stored.filter((key) => key !== undefined)).toHaveLength(1);
    }),

    analyticsConformanceTest("racing createAdminUser calls with one e-mail create one user; the rest conflict", async (context) => {
      const emails = ["race@example.test", "RACE@example.test", "Race@Example.test", "race@EXAMPLE.TEST"];
      const { values, errors } = await settle(emails.map((email) => addAdminUser(context, { email })));
      expect(values).toHaveLength(1);
      expect(errors).toHaveLength(emails.length - 1);
      for (const error of errors) expect((error as { readonly code?: unknown }).code).toBe("conflict");
      const listed = await context.analytics.listAdminUsers(ALL, { limit: 10 });
      expect(listed.items.map((user) => user.email)).toEqual(["race@example.test"]);
    }),

    analyticsConformanceTest("racing events of one recipient all take effect, each keeping its earliest time", async (context) => {
      const acme = await addOrganization(context);
      const simulation = await addSimulation(context, acme.id);
      const userId = newId();
      const types: readonly SimulationEventType[] = ["sent", "delivered", "opened", "clicked", "submitted_data", "reported"];
      const events = types.flatMap((type, index) =>
        [30, 10, 20].map((minute) => ({ simulationId: simulation.id, userId, type, at: time(minute + index) })),
      );
      await Promise.all(events.map((event) => context.analytics.recordSimulationEvent(acme.id, event)));
      expect(await context.analytics.getRecipient(simulation.id, userId)).toEqual({
        simulationId: simulation.id,
        userId,
        sentAt: time(10),
        deliveredAt: time(11),
        openedAt: time(12),
        clickedAt: time(13),
        submittedDataAt: time(14),
        reportedAt: time(15),
      });
      expect(await context.analytics.simulationSummary(simulation.id)).toMatchObject({
        sent: 1,
        delivered: 1,
        opened: 1,
        clicked: 1,
        submittedData: 1,
        reported: 1,
      });
    }),

    analyticsConformanceTest(
      "racing enrolments of many users all land, and racing writes of one user leave one enrolment",
      async (context) => {
        const acme = await addOrganization(context);
        const campaign = await addCampaign(context, acme.id);
        const userIds = Array.from({ length: 40 }, () => newId());
        await Promise.all(userIds.map((userId) => context.analytics.putEnrolment(acme.id, enrolment(campaign.id, userId))));
        const contested = userIds[0] ?? "";
        await Promise.all(
          [10, 20, 30, 40].map((progressPercent) =>
            context.analytics.putEnrolment(
              acme.id,
              enrolment(campaign.id, contested, { status: "in_progress", progressPercent, startedAt: time(2) }),
            ),
          ),
        );
        const summary = await context.analytics.campaignSummary(campaign.id, time(5));
        expect(summary).toMatchObject({ enrolled: 40, inProgress: 1, notStarted: 39 });
        const list = await context.analytics.listEnrolments(campaign.id, {}, time(5), { limit: 1000 });
        expect(list.items).toHaveLength(40);
        expect([10, 20, 30, 40]).toContain((await context.analytics.getEnrolment(campaign.id, contested, time(5)))?.progressPercent);
      },
    ),
  ],
};
