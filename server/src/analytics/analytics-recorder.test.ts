import { validate as isUuid, version as uuidVersion } from "uuid";
import { afterEach, describe, expect, it } from "vitest";
import { createTokenStore } from "scimkit";
import { memoryStore } from "scimkit/memory";
import { sqlStore } from "scimkit/sql";
import { AnalyticsProblem, ProblemType } from "./analytics-problem.js";
import { analyticsRecorder, type AnalyticsRecorder } from "./analytics-recorder.js";
import type { AnalyticsStore } from "./analytics-store.js";
import { memoryAnalyticsStore } from "./memory/memory-analytics-store.js";
import { sqlAnalyticsStore } from "./sql/sql-analytics-store.js";

const START = "2025-03-01T09:00:00.000Z";
const ALL = { all: true } as const;
const PAGE = { limit: 100 };

interface Fixture {
  readonly store: AnalyticsStore;
  readonly recorder: AnalyticsRecorder;
  /** Moves the recorder's clock forward. */
  advance(milliseconds: number): void;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** The stores the recorder is checked on: memory, and SQLite (its values round-trip through SQL). */
const STORES: readonly (readonly [string, () => Promise<AnalyticsStore>])[] = [
  ["memory", async () => memoryAnalyticsStore({ resources: memoryStore(), tokens: createTokenStore() })],
  [
    "SQLite",
    async () => {
      const sql = await sqlStore({ sqlite: ":memory:" });
      closers.push(() => sql.close());
      return sqlAnalyticsStore(sql);
    },
  ],
];

async function fixtureOn(openStore: () => Promise<AnalyticsStore>): Promise<Fixture> {
  const store = await openStore();
  await store.createOrganization({ id: "acme", name: "Acme", status: "active", createdAt: START, updatedAt: START });
  let clock = Date.parse(START);
  return {
    store,
    recorder: analyticsRecorder({ store, now: () => new Date(clock) }),
    advance: (milliseconds) => {
      clock += milliseconds;
    },
  };
}

/** The problem a call rejected with; fails the test when it resolved or threw something else. */
async function problemOf(call: Promise<unknown>): Promise<AnalyticsProblem> {
  const outcome = await call.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(AnalyticsProblem);
  return outcome as AnalyticsProblem;
}

/** The fields an invalid-request problem names, after checking its type and status. */
async function invalidFields(call: Promise<unknown>): Promise<string[]> {
  const problem = await problemOf(call);
  expect(problem.type).toBe(ProblemType.invalidRequest);
  expect(problem.status).toBe(400);
  return (problem.errors ?? []).map((error) => error.field);
}

async function expectNotFound(call: Promise<unknown>): Promise<void> {
  const problem = await problemOf(call);
  expect(problem).toMatchObject({ type: ProblemType.notFound, status: 404 });
}

describe.each(STORES)("analyticsRecorder on the %s analytics store", (_name, open) => {
  const fixture = (): Promise<Fixture> => fixtureOn(open);

  describe("analyticsRecorder: campaigns", () => {
    it("creates a campaign with a UUID v7 id, UTC times and a trimmed name, readable from the store", async () => {
      const { store, recorder } = await fixture();
      const campaign = await recorder.createCampaign("acme", {
        name: "  Security basics  ",
        description: "Passwords, phishing, reporting.",
        startsAt: "2025-03-03T08:00:00+01:00",
        dueAt: new Date("2025-03-31T22:00:00Z"),
      });
      expect(isUuid(campaign.id) && uuidVersion(campaign.id)).toBe(7);
      expect(campaign).toEqual({
        id: campaign.id,
        orgId: "acme",
        name: "Security basics",
        description: "Passwords, phishing, reporting.",
        startsAt: "2025-03-03T07:00:00.000Z",
        dueAt: "2025-03-31T22:00:00.000Z",
        createdAt: START,
      });
      expect(await store.getCampaign(ALL, campaign.id)).toEqual(campaign);
    });

    it("names every invalid field at once and stores nothing", async () => {
      const { store, recorder } = await fixture();
      const fields = await invalidFields(
        recorder.createCampaign("acme", { name: " ", description: "x".repeat(2001), startsAt: "2025-03-01", dueAt: "tomorrow" }),
      );
      expect(fields).toEqual(["name", "description", "startsAt", "dueAt"]);
      expect((await store.listCampaigns(ALL, PAGE)).items).toEqual([]);
    });

    it("refuses a due date before the start, a time without a zone and a day the month does not have", async () => {
      const { recorder } = await fixture();
      expect(await invalidFields(recorder.createCampaign("acme", { name: "A", startsAt: START, dueAt: "2025-02-28T00:00:00Z" }))).toEqual([
        "dueAt",
      ]);
      expect(await invalidFields(recorder.createCampaign("acme", { name: "A", startsAt: "2025-03-01T09:00:00" }))).toEqual(["startsAt"]);
      expect(await invalidFields(recorder.createCampaign("acme", { name: "A", startsAt: "2025-02-30T09:00:00Z" }))).toEqual(["startsAt"]);
      expect(await invalidFields(recorder.createCampaign("acme", { name: "A", startsAt: new Date(Number.NaN) }))).toEqual(["startsAt"]);
    });

    it("refuses a name over 200 characters and input of the wrong type, as a JavaScript host may send it", async () => {
      const { recorder } = await fixture();
      expect(await invalidFields(recorder.createCampaign("acme", { name: "n".repeat(201), startsAt: START }))).toEqual(["name"]);
      const untyped = { name: 42, startsAt: 1_740_000_000 } as unknown as Parameters<AnalyticsRecorder["createCampaign"]>[1];
      expect(await invalidFields(recorder.createCampaign("acme", untyped))).toEqual(["name", "startsAt"]);
    });

    it("answers not-found for an organization the analytics store does not know", async () => {
      const { store, recorder } = await fixture();
      await expectNotFound(recorder.createCampaign("globex", { name: "A", startsAt: START }));
      expect((await store.listCampaigns(ALL, PAGE)).items).toEqual([]);
    });
  });

  describe("analyticsRecorder: enrolments and progress", () => {
    async function withCampaign(dueAt?: string): Promise<Fixture & { readonly campaignId: string }> {
      const context = await fixture();
      const campaign = await context.recorder.createCampaign("acme", { name: "Basics", startsAt: START, ...(dueAt ? { dueAt } : {}) });
      return { ...context, campaignId: campaign.id };
    }

    it("enrols a learner not started, and enrolling again keeps its progress", async () => {
      const { store, recorder, campaignId, advance } = await withCampaign();
      const enrolment = await recorder.enrol(campaignId, "u1");
      expect(enrolment).toEqual({
        campaignId,
        userId: "u1",
        status: "not_started",
        progressPercent: 0,
        enrolledAt: START,
        updatedAt: START,
      });
      advance(60_000);
      await recorder.recordProgress(campaignId, "u1", { progressPercent: 30 });
      advance(60_000);
      const again = await recorder.enrol(campaignId, "u1");
      expect(again).toMatchObject({ status: "in_progress", progressPercent: 30, enrolledAt: START });
      expect(again).not.toHaveProperty("learner");
      expect((await store.getEnrolment(campaignId, "u1", START))?.progressPercent).toBe(30);
    });

    it("derives the status from the progress and sets startedAt and completedAt once", async () => {
      const { recorder, campaignId, advance } = await withCampaign();
      await recorder.enrol(campaignId, "u1");
      expect(await recorder.recordProgress(campaignId, "u1", { progressPercent: 0 })).toMatchObject({ status: "not_started" });
      advance(1000);
      const started = await recorder.recordProgress(campaignId, "u1", { progressPercent: 1 });
      expect(started).toMatchObject({ status: "in_progress", startedAt: "2025-03-01T09:00:01.000Z" });
      expect(started).not.toHaveProperty("completedAt");
      advance(1000);
      const halfway = await recorder.recordProgress(campaignId, "u1", { progressPercent: 99 });
      expect(halfway).toMatchObject({
        status: "in_progress",
        startedAt: "2025-03-01T09:00:01.000Z",
        updatedAt: "2025-03-01T09:00:02.000Z",
      });
      advance(1000);
      const done = await recorder.recordProgress(campaignId, "u1", { progressPercent: 100, score: 87.5 });
      expect(done).toMatchObject({
        status: "completed",
        score: 87.5,
        startedAt: "2025-03-01T09:00:01.000Z",
        completedAt: "2025-03-01T09:00:03.000Z",
      });
      advance(1000);
      const repeated = await recorder.recordProgress(campaignId, "u1", { progressPercent: 100 });
      expect(repeated).toMatchObject({
        status: "completed",
        score: 87.5,
        completedAt: "2025-03-01T09:00:03.000Z",
        updatedAt: "2025-03-01T09:00:04.000Z",
      });
    });

    it("clears the time of a state a reset leaves, so the times describe the current status", async () => {
      const { recorder, campaignId } = await withCampaign();
      await recorder.enrol(campaignId, "u1");
      await recorder.recordProgress(campaignId, "u1", { progressPercent: 100, score: 90 });
      const retake = await recorder.recordProgress(campaignId, "u1", { progressPercent: 20 });
      expect(retake).toMatchObject({ status: "in_progress", score: 90, startedAt: START });
      expect(retake).not.toHaveProperty("completedAt");
      const reset = await recorder.recordProgress(campaignId, "u1", { progressPercent: 0 });
      expect(reset.status).toBe("not_started");
      expect(reset).not.toHaveProperty("startedAt");
    });

    it("refuses progress outside 0–100, fractional progress and a score outside 0–100, naming the field", async () => {
      const { recorder, campaignId } = await withCampaign();
      await recorder.enrol(campaignId, "u1");
      expect(await invalidFields(recorder.recordProgress(campaignId, "u1", { progressPercent: -1 }))).toEqual(["progressPercent"]);
      expect(await invalidFields(recorder.recordProgress(campaignId, "u1", { progressPercent: 101 }))).toEqual(["progressPercent"]);
      expect(await invalidFields(recorder.recordProgress(campaignId, "u1", { progressPercent: 50.5 }))).toEqual(["progressPercent"]);
      expect(await invalidFields(recorder.recordProgress(campaignId, "u1", { progressPercent: "50" as unknown as number }))).toEqual([
        "progressPercent",
      ]);
      expect(await invalidFields(recorder.recordProgress(campaignId, "u1", { progressPercent: 100, score: 100.5 }))).toEqual(["score"]);
      expect(await invalidFields(recorder.recordProgress(campaignId, "u1", { progressPercent: 100, score: Number.NaN }))).toEqual([
        "score",
      ]);
    });

    it("answers not-found for an unknown campaign and for a learner who is not enrolled", async () => {
      const { recorder, campaignId } = await withCampaign();
      await expectNotFound(recorder.enrol("0195a0a0-0000-7000-8000-000000000000", "u1"));
      await expectNotFound(recorder.recordProgress("0195a0a0-0000-7000-8000-000000000000", "u1", { progressPercent: 10 }));
      await expectNotFound(recorder.recordProgress(campaignId, "never-enrolled", { progressPercent: 10 }));
    });

    it("refuses an empty user id", async () => {
      const { recorder, campaignId } = await withCampaign();
      expect(await invalidFields(recorder.enrol(campaignId, ""))).toEqual(["userId"]);
    });

    it("feeds the campaign summary: every state, overdue past the due date, completion rate and average score", async () => {
      const { store, recorder, campaignId } = await withCampaign("2025-03-10T00:00:00Z");
      for (const user of ["a", "b", "c", "d"]) await recorder.enrol(campaignId, user);
      await recorder.recordProgress(campaignId, "b", { progressPercent: 50, score: 60 });
      await recorder.recordProgress(campaignId, "c", { progressPercent: 100, score: 80 });
      await recorder.recordProgress(campaignId, "d", { progressPercent: 100, score: 95 });
      const summary = await store.campaignSummary(campaignId, "2025-03-11T00:00:00.000Z");
      expect(summary).toMatchObject({
        enrolled: 4,
        notStarted: 1,
        inProgress: 1,
        completed: 2,
        overdue: 2,
        completionRate: 0.5,
        averageScore: 78.33,
      });
    });
  });

  describe("analyticsRecorder: attack simulations", () => {
    async function withSimulation(): Promise<Fixture & { readonly simulationId: string }> {
      const context = await fixture();
      const simulation = await context.recorder.createSimulation("acme", {
        name: "Parcel notice",
        template: "courier-delivery",
        launchedAt: START,
      });
      return { ...context, simulationId: simulation.id };
    }

    it("creates a simulation readable from the store", async () => {
      const { store, recorder } = await fixture();
      const simulation = await recorder.createSimulation("acme", { name: "Invoice", launchedAt: "2025-03-01T10:00:00+01:00" });
      expect(simulation).toEqual({ id: simulation.id, orgId: "acme", name: "Invoice", launchedAt: START, createdAt: START });
      expect(await store.getSimulation(ALL, simulation.id)).toEqual(simulation);
    });

    it("records events at the given time or now, keeping the earliest of each kind", async () => {
      const { store, recorder, simulationId, advance } = await withSimulation();
      await recorder.recordSimulationEvent(simulationId, "u1", "sent");
      await recorder.recordSimulationEvent(simulationId, "u1", "clicked", "2025-03-01T09:30:00Z");
      await recorder.recordSimulationEvent(simulationId, "u1", "clicked", "2025-03-01T09:20:00Z");
      advance(3_600_000);
      await recorder.recordSimulationEvent(simulationId, "u1", "clicked");
      expect(await store.getRecipient(simulationId, "u1")).toMatchObject({ sentAt: START, clickedAt: "2025-03-01T09:20:00.000Z" });
    });

    it("feeds the simulation summary", async () => {
      const { store, recorder, simulationId } = await withSimulation();
      for (const user of ["a", "b", "c", "d"]) {
        await recorder.recordSimulationEvent(simulationId, user, "sent");
        await recorder.recordSimulationEvent(simulationId, user, "delivered");
      }
      await recorder.recordSimulationEvent(simulationId, "a", "opened");
      await recorder.recordSimulationEvent(simulationId, "a", "clicked");
      await recorder.recordSimulationEvent(simulationId, "a", "submitted_data");
      await recorder.recordSimulationEvent(simulationId, "b", "reported");
      expect(await store.simulationSummary(simulationId)).toMatchObject({
        sent: 4,
        delivered: 4,
        opened: 1,
        clicked: 1,
        submittedData: 1,
        reported: 1,
        rates: { delivered: 1, opened: 0.25, clicked: 0.25, submittedData: 0.25, reported: 0.25 },
      });
    });

    it("refuses an unknown event type and a bad time, and answers not-found for an unknown simulation or organization", async () => {
      const { recorder, simulationId } = await withSimulation();
      expect(await invalidFields(recorder.recordSimulationEvent(simulationId, "u1", "forwarded" as "sent"))).toEqual(["type"]);
      expect(await invalidFields(recorder.recordSimulationEvent(simulationId, "u1", "opened", "yesterday"))).toEqual(["at"]);
      expect(await invalidFields(recorder.createSimulation("acme", { name: "", launchedAt: "soon" }))).toEqual(["name", "launchedAt"]);
      await expectNotFound(recorder.recordSimulationEvent("0195a0a0-0000-7000-8000-000000000000", "u1", "sent"));
      await expectNotFound(recorder.createSimulation("globex", { name: "X", launchedAt: START }));
    });
  });

  describe("analyticsRecorder: feedback", () => {
    it("stores feedback on a campaign and on a simulation, each listed under its subject", async () => {
      const { store, recorder } = await fixture();
      const campaign = await recorder.createCampaign("acme", { name: "Basics", startsAt: START });
      const simulation = await recorder.createSimulation("acme", { name: "Invoice", launchedAt: START });
      const onCampaign = await recorder.addFeedback({ kind: "campaign", id: campaign.id }, "u1", {
        comment: "Clear and short.",
        rating: 5,
      });
      const onSimulation = await recorder.addFeedback({ kind: "simulation", id: simulation.id }, "u2", { comment: "I almost clicked." });
      expect(onCampaign).toEqual({
        id: onCampaign.id,
        subject: { kind: "campaign", id: campaign.id },
        userId: "u1",
        rating: 5,
        comment: "Clear and short.",
        createdAt: START,
      });
      expect((await store.listFeedback({ kind: "campaign", id: campaign.id }, PAGE)).items).toEqual([onCampaign]);
      expect((await store.listFeedback({ kind: "simulation", id: simulation.id }, PAGE)).items).toEqual([onSimulation]);
    });

    it("refuses a rating outside 1–5 or fractional, an empty or over-long comment and an unknown kind", async () => {
      const { recorder } = await fixture();
      const campaign = await recorder.createCampaign("acme", { name: "Basics", startsAt: START });
      const subject = { kind: "campaign", id: campaign.id } as const;
      expect(await invalidFields(recorder.addFeedback(subject, "u1", { comment: "ok", rating: 0 }))).toEqual(["rating"]);
      expect(await invalidFields(recorder.addFeedback(subject, "u1", { comment: "ok", rating: 6 }))).toEqual(["rating"]);
      expect(await invalidFields(recorder.addFeedback(subject, "u1", { comment: "ok", rating: 2.5 }))).toEqual(["rating"]);
      expect(await invalidFields(recorder.addFeedback(subject, "u1", { comment: "" }))).toEqual(["comment"]);
      expect(await invalidFields(recorder.addFeedback(subject, "u1", { comment: "x".repeat(4001) }))).toEqual(["comment"]);
      const course = { kind: "course", id: campaign.id } as unknown as typeof subject;
      expect(await invalidFields(recorder.addFeedback(course, "u1", { comment: "ok" }))).toEqual(["subject.kind"]);
    });

    it("answers not-found for feedback on an unknown campaign or simulation", async () => {
      const { recorder } = await fixture();
      await expectNotFound(recorder.addFeedback({ kind: "campaign", id: "0195a0a0-0000-7000-8000-000000000000" }, "u1", { comment: "ok" }));
      await expectNotFound(
        recorder.addFeedback({ kind: "simulation", id: "0195a0a0-0000-7000-8000-000000000000" }, "u1", { comment: "ok" }),
      );
    });
  });
});
