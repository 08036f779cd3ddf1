/**
 * Attack simulations: scoped reads, events folded into one recipient row per user keeping the
 * earliest time of each type, recipient lists with filters, and a summary of distinct recipients
 * with rates over those sent.
 */
import { expect } from "vitest";
import type { SimulationEventType, SimulationRecipientView } from "@scimkit/server";
import {
  analyticsConformanceTest,
  type AnalyticsConformanceContext,
  type AnalyticsConformanceSuite,
} from "../analytics-conformance-test.js";
import {
  ALL,
  addLearner,
  addLearners,
  addOrganization,
  addSimulation,
  byId,
  newId,
  only,
  rejectionOf,
  time,
  walkPages,
} from "./helpers.js";

const userIdsOf = (views: readonly SimulationRecipientView[]): string[] => views.map((view) => view.userId);

function recorder(context: AnalyticsConformanceContext, orgId: string, simulationId: string) {
  return (userId: string, type: SimulationEventType, minute: number) =>
    context.analytics.recordSimulationEvent(orgId, { simulationId, userId, type, at: time(minute) });
}

export const simulationsSuite: AnalyticsConformanceSuite = {
  title: "attack simulations",
  tests: [
    analyticsConformanceTest("createSimulation stores a simulation that getSimulation returns within the scope", async (context) => {
      const acme = await addOrganization(context);
      const globex = await addOrganization(context);
      const simulation = await addSimulation(context, acme.id, { launchedAt: time(30), createdAt: time(20) });
      const bare = await addSimulation(context, acme.id, { template: undefined });
      expect(await context.analytics.getSimulation(ALL, simulation.id)).toEqual(simulation);
      expect(await context.analytics.getSimulation(only(acme.id), simulation.id)).toEqual(simulation);
      expect((await context.analytics.getSimulation(ALL, bare.id))?.template).toBeUndefined();
      expect(await context.analytics.getSimulation(only(globex.id), simulation.id)).toBeUndefined();
      expect(await context.analytics.getSimulation(only(), simulation.id)).toBeUndefined();
      expect(await context.analytics.getSimulation(ALL, newId())).toBeUndefined();
      await rejectionOf(context.analytics.createSimulation({ ...simulation, name: "Again" }));
      expect(await context.analytics.getSimulation(ALL, simulation.id)).toEqual(simulation);
    }),

    analyticsConformanceTest("recordSimulationEvent keeps the earliest time of each type", async (context) => {
      const acme = await addOrganization(context);
      const simulation = await addSimulation(context, acme.id);
      const user = await addLearner(context, acme.id, "ada");
      const record = recorder(context, acme.id, simulation.id);
      await record(user.id, "sent", 10);
      await record(user.id, "opened", 50);
      await record(user.id, "opened", 30);
      await record(user.id, "opened", 70);
      await record(user.id, "delivered", 11);
      await record(user.id, "sent", 12);
      const recipient = await context.analytics.getRecipient(simulation.id, user.id);
      expect(recipient).toMatchObject({
        simulationId: simulation.id,
        userId: user.id,
        sentAt: time(10),
        deliveredAt: time(11),
        openedAt: time(30),
      });
      expect(recipient?.clickedAt).toBeUndefined();
      expect(recipient?.submittedDataAt).toBeUndefined();
      expect(recipient?.reportedAt).toBeUndefined();
      await record(user.id, "clicked", 40);
      await record(user.id, "submitted_data", 41);
      await record(user.id, "reported", 42);
      await record(user.id, "clicked", 45);
      expect(await context.analytics.getRecipient(simulation.id, user.id)).toMatchObject({
        sentAt: time(10),
        deliveredAt: time(11),
        openedAt: time(30),
        clickedAt: time(40),
        submittedDataAt: time(41),
        reportedAt: time(42),
      });
    }),

    analyticsConformanceTest("a recipient carries its learner while the SCIM user exists; no events, no recipient", async (context) => {
      const acme = await addOrganization(context);
      const simulation = await addSimulation(context, acme.id);
      const user = await addLearner(context, acme.id, "grace", { displayName: "Grace" }, { now: time(1) });
      await recorder(context, acme.id, simulation.id)(user.id, "sent", 5);
      const learner = {
        id: user.id,
        orgId: acme.id,
        userName: "grace",
        displayName: "Grace",
        active: true,
        createdAt: time(1),
        updatedAt: time(1),
      };
      expect(await context.analytics.getRecipient(simulation.id, user.id)).toEqual({
        simulationId: simulation.id,
        userId: user.id,
        sentAt: time(5),
        learner,
      });
      expect((await context.analytics.listRecipients(simulation.id, {}, { limit: 10 })).items).toEqual([
        { simulationId: simulation.id, userId: user.id, sentAt: time(5), learner },
      ]);
      expect(await context.analytics.getRecipient(simulation.id, newId())).toBeUndefined();
      expect(await context.analytics.getRecipient(newId(), user.id)).toBeUndefined();
      await context.resources.delete({ orgId: acme.id, resourceType: "User", id: user.id, now: time(6) });
      const orphan = await context.analytics.getRecipient(simulation.id, user.id);
      expect(orphan).toMatchObject({ simulationId: simulation.id, userId: user.id, sentAt: time(5) });
      expect(orphan?.learner).toBeUndefined();
    }),

    analyticsConformanceTest(
      "a recipient shows the learner of the simulation's organization, never another's with the same id",
      async (context) => {
        const acme = await addOrganization(context);
        const globex = await addOrganization(context);
        const id = newId();
        await addLearner(context, globex.id, "mallory", {}, { id });
        const simulation = await addSimulation(context, acme.id);
        await recorder(context, acme.id, simulation.id)(id, "sent", 1);
        expect((await context.analytics.getRecipient(simulation.id, id))?.learner).toBeUndefined();
        await addLearner(context, acme.id, "ada", {}, { id });
        expect((await context.analytics.getRecipient(simulation.id, id))?.learner).toMatchObject({ orgId: acme.id, userName: "ada" });
        const listed = await context.analytics.listRecipients(simulation.id, {}, { limit: 10 });
        expect(listed.items.map((view) => view.learner?.userName)).toEqual(["ada"]);
      },
    ),

    analyticsConformanceTest("listRecipients orders by user id, pages, and filters by what each did", async (context) => {
      const acme = await addOrganization(context);
      const simulation = await addSimulation(context, acme.id);
      const other = await addSimulation(context, acme.id);
      const record = recorder(context, acme.id, simulation.id);
      const ids = await addLearners(context, acme.id, 5);
      const [u0, u1, u2, u3, u4] = ids as [string, string, string, string, string];
      for (const id of ids) await record(id, "sent", 1);
      await record(u0, "opened", 2);
      await record(u0, "clicked", 3);
      await record(u0, "submitted_data", 4);
      await record(u1, "opened", 2);
      await record(u1, "reported", 5);
      await record(u2, "opened", 2);
      await record(u2, "clicked", 3);
      await record(u3, "reported", 6);
      await recorder(context, acme.id, other.id)(u4, "clicked", 9);
      for (const limit of [1, 2, 5]) {
        const walk = await walkPages(
          (page) => context.analytics.listRecipients(simulation.id, {}, page),
          limit,
          (view) => view.userId,
        );
        expect(userIdsOf(walk.items), `limit ${limit}`).toEqual(byId(ids));
        expect(walk.requests, `limit ${limit}`).toBe(Math.ceil(5 / limit));
      }
      const list = async (filter: Parameters<typeof context.analytics.listRecipients>[1]) =>
        userIdsOf((await context.analytics.listRecipients(simulation.id, filter, { limit: 10 })).items);
      expect(await list({ opened: true })).toEqual(byId([u0, u1, u2]));
      expect(await list({ opened: false })).toEqual(byId([u3, u4]));
      expect(await list({ clicked: true })).toEqual(byId([u0, u2]));
      expect(await list({ clicked: false })).toEqual(byId([u1, u3, u4]));
      expect(await list({ submittedData: true })).toEqual([u0]);
      expect(await list({ reported: true })).toEqual(byId([u1, u3]));
      expect(await list({ reported: false, opened: true })).toEqual(byId([u0, u2]));
      expect(await list({ clicked: true, reported: true })).toEqual([]);
      const walk = await walkPages(
        (page) => context.analytics.listRecipients(simulation.id, { opened: true }, page),
        2,
        (view) => view.userId,
      );
      expect(userIdsOf(walk.items)).toEqual(byId([u0, u1, u2]));
      expect(userIdsOf((await context.analytics.listRecipients(other.id, {}, { limit: 10 })).items)).toEqual([u4]);
      expect(await context.analytics.listRecipients(newId(), {}, { limit: 10 })).toEqual({ items: [] });
    }),

    analyticsConformanceTest("simulationSummary counts distinct recipients and rates over sent", async (context) => {
      const acme = await addOrganization(context);
      const simulation = await addSimulation(context, acme.id);
      const other = await addSimulation(context, acme.id);
      const record = recorder(context, acme.id, simulation.id);
      const ids = await addLearners(context, acme.id, 6);
      const [u0, u1, u2, u3, u4, u5] = ids as [string, string, string, string, string, string];
      for (const id of ids) await record(id, "sent", 1);
      for (const id of [u0, u1, u2, u3, u4]) await record(id, "delivered", 2);
      // Opening twice is still one recipient who opened.
      for (const id of [u0, u1, u2, u0]) await record(id, "opened", 3);
      for (const id of [u0, u1, u1]) await record(id, "clicked", 4);
      await record(u0, "submitted_data", 5);
      for (const id of [u3, u5]) await record(id, "reported", 6);
      await recorder(context, acme.id, other.id)(u0, "sent", 1);
      expect(await context.analytics.simulationSummary(simulation.id)).toEqual({
        simulationId: simulation.id,
        sent: 6,
        delivered: 5,
        opened: 3,
        clicked: 2,
        submittedData: 1,
        reported: 2,
        rates: { delivered: 0.8333, opened: 0.5, clicked: 0.3333, submittedData: 0.1667, reported: 0.3333 },
      });
      expect(await context.analytics.simulationSummary(other.id)).toEqual({
        simulationId: other.id,
        sent: 1,
        delivered: 0,
        opened: 0,
        clicked: 0,
        submittedData: 0,
        reported: 0,
        rates: { delivered: 0, opened: 0, clicked: 0, submittedData: 0, reported: 0 },
      });
    }),

    analyticsConformanceTest("simulationSummary with nothing sent: zeros and rates 0", async (context) => {
      const acme = await addOrganization(context);
      const simulation = await addSimulation(context, acme.id);
      expect(await context.analytics.simulationSummary(simulation.id)).toEqual({
        simulationId: simulation.id,
        sent: 0,
        delivered: 0,
        opened: 0,
        clicked: 0,
        submittedData: 0,
        reported: 0,
        rates: { delivered: 0, opened: 0, clicked: 0, submittedData: 0, reported: 0 },
      });
    }),
  ],
};
