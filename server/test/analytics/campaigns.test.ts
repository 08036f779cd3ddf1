/**
 * Training campaigns (spec §4.6): list, summary, the learners with their progress (filtered by
 * status and overdue), one learner, feedback comments — each scoped to the caller's
 * organizations, with unknown and foreign ids answered 404 alike.
 */
import { describe, expect, it } from "vitest";
import { POPULATED, expectInvalidFields, expectProblem, UNKNOWN, type Json } from "./analytics-harness.js";
import { createWorld } from "./analytics-world.js";

function userIds(body: unknown): string[] {
  return (body as { data: Json[] }).data.map((item) => item["userId"] as string);
}

describe("GET /campaigns", POPULATED, () => {
  it("lists campaigns in scope, filtered by organization", async () => {
    const w = await createWorld();
    const all = await w.t.get("/campaigns");
    expect(all.status).toBe(200);
    const data = (all.body as { data: Json[] }).data;
    expect(data.map((campaign) => campaign["id"])).toEqual([w.campaignA.id, w.campaignB.id]);
    expect(data[0]).toEqual({
      id: w.campaignA.id,
      organizationId: w.orgA.id,
      name: "Phishing basics",
      description: "Spot a lure",
      startsAt: w.campaignA.startsAt,
      dueAt: w.campaignA.dueAt,
      createdAt: w.campaignA.createdAt,
    });
    expect(((await w.t.get("/campaigns", w.keys.adminB)).body as { data: Json[] }).data.map((campaign) => campaign["id"])).toEqual([
      w.campaignB.id,
    ]);
    expect(
      ((await w.t.get(`/campaigns?organizationId=${w.orgB.id}`)).body as { data: Json[] }).data.map((campaign) => campaign["id"]),
    ).toEqual([w.campaignB.id]);
    expect(((await w.t.get(`/campaigns?organizationId=${w.orgB.id}`, w.keys.adminA)).body as { data: Json[] }).data).toEqual([]);
    expectInvalidFields(await w.t.get("/campaigns?organizationId=&status=open"), ["organizationId", "status"]);
  });
});

describe("GET /campaigns/{id}/summary", POPULATED, () => {
  it("gives the figures as of now", async () => {
    const w = await createWorld();
    const response = await w.t.get(`/campaigns/${w.campaignA.id}/summary`, w.keys.viewerA);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      campaignId: w.campaignA.id,
      enrolled: 3,
      notStarted: 1,
      inProgress: 1,
      completed: 1,
      overdue: 2,
      completionRate: 0.3333,
      averageScore: 90,
      asOf: "2026-03-01T09:00:00.000Z",
    });
    const b = await w.t.get(`/campaigns/${w.campaignB.id}/summary`);
    expect(b.body).toMatchObject({ enrolled: 1, notStarted: 1, overdue: 0, completionRate: 0, averageScore: null });
  });

  it("answers 404 alike for another organization's, unknown and malformed ids", async () => {
    const w = await createWorld();
    const foreign = expectProblem(await w.t.get(`/campaigns/${w.campaignB.id}/summary`, w.keys.adminA), 404, "not-found");
    const unknown = expectProblem(await w.t.get(`/campaigns/${UNKNOWN}/summary`, w.keys.adminA), 404, "not-found");
    expect(foreign).toEqual(unknown);
    expectProblem(await w.t.get("/campaigns/phishing/summary"), 404, "not-found");
    expectProblem(await w.t.get(`/campaigns/${w.campaignA.id}/summary`, "scimkit_ak_wrong"), 401, "unauthorized");
  });
});

describe("GET /campaigns/{id}/users", POPULATED, () => {
  it("lists enrolments with learners, progress and overdue, filtered by status and overdue", async () => {
    const w = await createWorld();
    const response = await w.t.get(`/campaigns/${w.campaignA.id}/users`);
    expect(response.status).toBe(200);
    const data = (response.body as { data: Json[] }).data;
    expect(data.map((item) => item["userId"]).sort()).toEqual([w.users.alice, w.users.bob, w.users.carol].sort());
    const alice = data.find((item) => item["userId"] === w.users.alice);
    expect(alice).toMatchObject({
      campaignId: w.campaignA.id,
      status: "completed",
      progressPercent: 100,
      score: 90,
      overdue: false,
      user: { id: w.users.alice, userName: "alice", organizationId: w.orgA.id },
    });
    expect(userIds((await w.t.get(`/campaigns/${w.campaignA.id}/users?status=in_progress`)).body)).toEqual([w.users.bob]);
    expect(userIds((await w.t.get(`/campaigns/${w.campaignA.id}/users?overdue=true`)).body).sort()).toEqual(
      [w.users.bob, w.users.carol].sort(),
    );
    expect(userIds((await w.t.get(`/campaigns/${w.campaignA.id}/users?overdue=false`)).body)).toEqual([w.users.alice]);
    expect(userIds((await w.t.get(`/campaigns/${w.campaignA.id}/users?overdue=true&status=not_started`)).body)).toEqual([w.users.carol]);
  });

  it("keeps the enrolment of a learner deleted through SCIM, without the learner", async () => {
    const w = await createWorld();
    expect((await w.t.send("DELETE", `/scim/Organizations/${w.orgA.id}/v2/Users/${w.users.bob}`, { key: w.orgA.scim.token })).status).toBe(
      204,
    );
    const bob = await w.t.get(`/campaigns/${w.campaignA.id}/users/${w.users.bob}`);
    expect(bob.status).toBe(200);
    expect((bob.body as Json)["user"]).toBeUndefined();
    expect((bob.body as Json)["progressPercent"]).toBe(40);
  });

  it("refuses bad filters by name, and foreign or unknown campaigns with 404", async () => {
    const w = await createWorld();
    expectInvalidFields(await w.t.get(`/campaigns/${w.campaignA.id}/users?status=done&overdue=maybe&limit=0`), [
      "status",
      "overdue",
      "limit",
    ]);
    expectProblem(await w.t.get(`/campaigns/${w.campaignA.id}/users`, w.keys.adminB), 404, "not-found");
    expectProblem(await w.t.get(`/campaigns/${UNKNOWN}/users`), 404, "not-found");
  });
});

describe("GET /campaigns/{id}/users/{userId}", POPULATED, () => {
  it("gives one learner's progress; 404 when not enrolled or out of scope", async () => {
    const w = await createWorld();
    const response = await w.t.get(`/campaigns/${w.campaignA.id}/users/${w.users.bob}`, w.keys.viewerA);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      userId: w.users.bob,
      status: "in_progress",
      progressPercent: 40,
      overdue: true,
      user: { userName: "bob", active: false, department: "Engineering" },
    });
    expect((response.body as Json)["score"]).toBeUndefined();
    expectProblem(await w.t.get(`/campaigns/${w.campaignA.id}/users/${w.users.dave}`), 404, "not-found");
    expectProblem(await w.t.get(`/campaigns/${w.campaignA.id}/users/nobody`), 404, "not-found");
    expectProblem(await w.t.get(`/campaigns/${w.campaignA.id}/users/${w.users.bob}`, w.keys.adminB), 404, "not-found");
    expectProblem(await w.t.get(`/campaigns/${UNKNOWN}/users/${w.users.bob}`), 404, "not-found");
  });
});

describe("GET /campaigns/{id}/feedback-comments", POPULATED, () => {
  it("lists the comments oldest first; 404 out of scope", async () => {
    const w = await createWorld();
    const response = await w.t.get(`/campaigns/${w.campaignA.id}/feedback-comments`, w.keys.adminA);
    expect(response.status).toBe(200);
    const data = (response.body as { data: Json[] }).data;
    expect(data.map((comment) => comment["comment"])).toEqual(["Useful, =1+1 though", "Too long"]);
    expect(data[0]).toMatchObject({ subject: { kind: "campaign", id: w.campaignA.id }, userId: w.users.alice, rating: 5 });
    expect(data[1]?.["rating"]).toBeUndefined();
    expectProblem(await w.t.get(`/campaigns/${w.campaignB.id}/feedback-comments`, w.keys.adminA), 404, "not-found");
    expectInvalidFields(await w.t.get(`/campaigns/${w.campaignA.id}/feedback-comments?rating=5`), ["rating"]);
  });
});
