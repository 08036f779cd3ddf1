/**
 * Attack simulations (spec §4.6): summary with counts and rates, the recipients with what each
 * did (filtered by opened, clicked, submitted data, reported), one recipient, and feedback
 * comments — scoped to the caller's organizations.
 */
import { describe, expect, it } from "vitest";
import { POPULATED, expectInvalidFields, expectProblem, UNKNOWN, type Json } from "./analytics-harness.js";
import { createWorld } from "./analytics-world.js";

function userIds(body: unknown): string[] {
  return (body as { data: Json[] }).data.map((item) => item["userId"] as string).sort();
}

describe("GET /attack-simulations/{id}/summary", POPULATED, () => {
  it("counts distinct recipients per step and gives each as a rate of those sent", async () => {
    const w = await createWorld();
    const response = await w.t.get(`/attack-simulations/${w.simulationA.id}/summary`, w.keys.viewerA);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      simulationId: w.simulationA.id,
      sent: 3,
      delivered: 2,
      opened: 1,
      clicked: 1,
      submittedData: 0,
      reported: 1,
      rates: { delivered: 0.6667, opened: 0.3333, clicked: 0.3333, submittedData: 0, reported: 0.3333 },
    });
  });

  it("answers 404 alike for another organization's, unknown and malformed ids", async () => {
    const w = await createWorld();
    const foreign = expectProblem(await w.t.get(`/attack-simulations/${w.simulationB.id}/summary`, w.keys.adminA), 404, "not-found");
    const unknown = expectProblem(await w.t.get(`/attack-simulations/${UNKNOWN}/summary`, w.keys.adminA), 404, "not-found");
    expect(foreign).toEqual(unknown);
    expectProblem(await w.t.get("/attack-simulations/x/summary"), 404, "not-found");
  });
});

describe("GET /attack-simulations/{id}/users", POPULATED, () => {
  it("lists recipients with their learner and the time of each step", async () => {
    const w = await createWorld();
    const response = await w.t.get(`/attack-simulations/${w.simulationA.id}/users`);
    expect(response.status).toBe(200);
    const data = (response.body as { data: Json[] }).data;
    const alice = data.find((item) => item["userId"] === w.users.alice);
    const at = "2026-03-01T09:00:00.000Z";
    expect(alice).toEqual({
      simulationId: w.simulationA.id,
      userId: w.users.alice,
      user: expect.objectContaining({ userName: "alice" }) as unknown,
      sentAt: at,
      deliveredAt: at,
      openedAt: at,
      clickedAt: at,
    });
    expect(userIds(response.body)).toEqual([w.users.alice, w.users.bob, w.users.carol].sort());
  });

  it("filters by each step, done or not, combined", async () => {
    const w = await createWorld();
    const base = `/attack-simulations/${w.simulationA.id}/users`;
    expect(userIds((await w.t.get(`${base}?opened=true`)).body)).toEqual([w.users.alice]);
    expect(userIds((await w.t.get(`${base}?opened=false`)).body)).toEqual([w.users.bob, w.users.carol].sort());
    expect(userIds((await w.t.get(`${base}?clicked=true`)).body)).toEqual([w.users.alice]);
    expect(userIds((await w.t.get(`${base}?reported=true`)).body)).toEqual([w.users.bob]);
    expect(userIds((await w.t.get(`${base}?submittedData=true`)).body)).toEqual([]);
    expect(userIds((await w.t.get(`${base}?reported=false&opened=false`)).body)).toEqual([w.users.carol]);
  });

  it("refuses bad filters by name, and foreign or unknown simulations with 404", async () => {
    const w = await createWorld();
    expectInvalidFields(await w.t.get(`/attack-simulations/${w.simulationA.id}/users?opened=1&clicked=TRUE&status=sent`), [
      "opened",
      "clicked",
      "status",
    ]);
    expectProblem(await w.t.get(`/attack-simulations/${w.simulationA.id}/users`, w.keys.adminB), 404, "not-found");
    expectProblem(await w.t.get(`/attack-simulations/${UNKNOWN}/users`), 404, "not-found");
  });
});

describe("GET /attack-simulations/{id}/users/{userId}", POPULATED, () => {
  it("gives one recipient; 404 when not a recipient or out of scope", async () => {
    const w = await createWorld();
    const response = await w.t.get(`/attack-simulations/${w.simulationA.id}/users/${w.users.bob}`, w.keys.adminA);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ userId: w.users.bob, reportedAt: "2026-03-01T09:00:00.000Z", user: { userName: "bob" } });
    expect((response.body as Json)["openedAt"]).toBeUndefined();
    expectProblem(await w.t.get(`/attack-simulations/${w.simulationA.id}/users/${w.users.dave}`), 404, "not-found");
    expectProblem(await w.t.get(`/attack-simulations/${w.simulationA.id}/users/${w.users.bob}`, w.keys.adminB), 404, "not-found");
    expectProblem(await w.t.get(`/attack-simulations/${UNKNOWN}/users/${w.users.bob}`), 404, "not-found");
  });
});

describe("GET /attack-simulations/{id}/feedback-comments", POPULATED, () => {
  it("lists the comments; 404 out of scope", async () => {
    const w = await createWorld();
    const response = await w.t.get(`/attack-simulations/${w.simulationA.id}/feedback-comments`, w.keys.viewerA);
    expect(response.status).toBe(200);
    expect((response.body as { data: Json[] }).data).toEqual([
      expect.objectContaining({
        subject: { kind: "simulation", id: w.simulationA.id },
        userId: w.users.bob,
        comment: "Reported it at once",
        rating: 4,
      }),
    ]);
    expect(((await w.t.get(`/attack-simulations/${w.simulationB.id}/feedback-comments`)).body as { data: unknown[] }).data).toEqual([]);
    expectProblem(await w.t.get(`/attack-simulations/${w.simulationB.id}/feedback-comments`, w.keys.viewerA), 404, "not-found");
  });
});
