/**
 * Bulk reports as asynchronous operations (spec §4.6): 202 with `Location`, polling through
 * queued/running to succeeded or failed, and the download as a JSON array or RFC 4180 CSV —
 * quoting, formula-injection guard, content negotiation — over more rows than one page.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import type { AnalyticsStore } from "../../src/analytics/analytics-store.js";
import {
  eventually,
  POPULATED,
  createAnalyticsTestApp,
  expectProblem,
  settle,
  UNKNOWN,
  type AnalyticsTestApp,
  type Json,
} from "./analytics-harness.js";
import { createOrganization, createWorld, provision } from "./analytics-world.js";

/** An RFC 4180 reader for the tests: records of cells, quotes undone. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = "";
  let quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        cell += '"';
        index += 1;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") {
      record.push(cell);
      cell = "";
    } else if (char === "\r" && text[index + 1] === "\n") {
      record.push(cell);
      records.push(record);
      record = [];
      cell = "";
      index += 1;
    } else cell += char;
  }
  expect(cell === "" && record.length === 0, "the last record ends with CRLF").toBe(true);
  return records;
}

async function startReport(t: AnalyticsTestApp, path: string, key?: string): Promise<string> {
  const response = await t.get(path, key);
  expect(response.status).toBe(202);
  const operation = (response.body as { operation: Json }).operation;
  expect(response.headers["location"]).toBe(
    `${String(response.headers["location"]).split("/analytics/v1")[0] ?? ""}/analytics/v1/operations/${String(operation["id"])}`,
  );
  expect(operation).toMatchObject({ status: "queued", progress: { done: 0 } });
  return operation["id"] as string;
}

describe("a campaign report", POPULATED, () => {
  it("runs to succeeded and downloads as JSON and as CSV with the same rows", async () => {
    const w = await createWorld();
    const id = await startReport(w.t, `/campaigns/${w.campaignA.id}/users/bulk-report`, w.keys.viewerA);
    const done = await settle(w.t, id, w.keys.viewerA);
    expect(done).toMatchObject({
      id,
      kind: "campaign-users-report",
      organizationId: w.orgA.id,
      subjectId: w.campaignA.id,
      status: "succeeded",
      progress: { done: 3, total: 3 },
    });
    const links = done["links"] as { self: string; result: string; resultCsv: string };
    expect(links.result).toBe(`${links.self}/result`);
    expect(links.resultCsv).toBe(`${links.self}/result?format=csv`);

    const json = await w.t.get(`/operations/${id}/result`, w.keys.viewerA);
    expect(json.status).toBe(200);
    expect(json.headers["content-type"]).toMatch(/^application\/json/);
    expect(json.headers["content-disposition"]).toBe(`attachment; filename="campaign-users-report-${id}.json"`);
    const rows = json.body as Json[];
    expect(rows.map((row) => row["userName"]).sort()).toEqual(["alice", "bob", "carol"]);
    expect(rows.find((row) => row["userName"] === "alice")).toEqual({
      userId: w.users.alice,
      userName: "alice",
      displayName: "Learner alice",
      email: "alice@example.com",
      department: "Sales",
      active: true,
      status: "completed",
      progressPercent: 100,
      score: 90,
      enrolledAt: "2026-03-01T09:00:00.000Z",
      startedAt: "2026-03-01T09:00:00.000Z",
      completedAt: "2026-03-01T09:00:00.000Z",
      updatedAt: "2026-03-01T09:00:00.000Z",
      overdue: false,
    });

    const csv = await w.t.get(`/operations/${id}/result?format=csv`, w.keys.viewerA);
    expect(csv.status).toBe(200);
    expect(csv.headers["content-type"]).toBe("text/csv; charset=utf-8; header=present");
    expect(csv.headers["content-disposition"]).toBe(`attachment; filename="campaign-users-report-${id}.csv"`);
    const records = parseCsv(csv.text);
    expect(records[0]).toEqual(Object.keys(rows[0] ?? {}));
    expect(records.slice(1)).toEqual(rows.map((row) => Object.values(row).map((value) => (value === null ? "" : String(value)))));
  });

  it("negotiates CSV by Accept, and lets format win over Accept", async () => {
    const w = await createWorld();
    const id = await startReport(w.t, `/campaigns/${w.campaignA.id}/users/bulk-report`);
    await settle(w.t, id);
    const byAccept = await w.t.send("GET", `/operations/${id}/result`, { headers: { Accept: "text/csv" } });
    expect(byAccept.headers["content-type"]).toMatch(/^text\/csv/);
    const byFormat = await w.t.send("GET", `/operations/${id}/result?format=json`, { headers: { Accept: "text/csv" } });
    expect(byFormat.headers["content-type"]).toMatch(/^application\/json/);
    const neither = await w.t.send("GET", `/operations/${id}/result`, { headers: { Accept: "text/html" } });
    expect(neither.headers["content-type"]).toMatch(/^application\/json/);
    expect(neither.body).toHaveLength(3);
  });

  it("quotes per RFC 4180 and defuses cells a spreadsheet would run as formulas", async () => {
    const t = await createAnalyticsTestApp();
    const org = await createOrganization(t, "Quoting");
    const names = ['=HYPERLINK("http://evil.example","click")', 'Smith, "Jo"', "+1 call me", "-2", "@SUM(A1)", "two\r\nlines", "plain"];
    const campaign = await t.recorder.createCampaign(org.id, { name: "Edge cases", startsAt: "2026-01-01T00:00:00Z" });
    for (const [index, displayName] of names.entries()) {
      const id = await provision(t, org, `user${index}`, { displayName });
      await t.recorder.enrol(campaign.id, id);
    }
    const id = await startReport(t, `/campaigns/${campaign.id}/users/bulk-report`);
    await settle(t, id);
    const csv = await t.get(`/operations/${id}/result?format=csv`);
    expect(csv.text).toContain(`,"'=HYPERLINK(""http://evil.example"",""click"")",`);
    expect(csv.text).toContain(`,"Smith, ""Jo""",`);
    expect(csv.text).toContain(",'+1 call me,");
    expect(csv.text).toContain(",'-2,");
    expect(csv.text).toContain(",'@SUM(A1),");
    expect(csv.text).toContain(`,"two\r\nlines",`);
    const records = parseCsv(csv.text);
    const displayNames = records.slice(1).map((record) => record[2]);
    expect(displayNames.sort()).toEqual(
      ["'+1 call me", "'-2", '\'=HYPERLINK("http://evil.example","click")', "'@SUM(A1)", 'Smith, "Jo"', "plain", "two\r\nlines"].sort(),
    );
    // Numbers stay numbers: the progress column of a fresh enrolment is 0, not '0.
    expect(records.slice(1).every((record) => record[7] === "0")).toBe(true);
    // JSON keeps the values as they are.
    const json = await t.get(`/operations/${id}/result`);
    expect((json.body as Json[]).map((row) => row["displayName"]).sort()).toEqual([...names].sort());
  });

  it("pages a report of more rows than one page of the job and of the download", async () => {
    const t = await createAnalyticsTestApp();
    const org = await createOrganization(t, "Big");
    const campaign = await t.recorder.createCampaign(org.id, { name: "Everyone", startsAt: "2026-01-01T00:00:00Z" });
    const at = "2026-02-01T00:00:00.000Z";
    const count = 2345;
    for (let index = 0; index < count; index += 1) {
      const userId = `learner-${String(index).padStart(5, "0")}`;
      await t.analytics.putEnrolment(org.id, {
        campaignId: campaign.id,
        userId,
        status: "not_started",
        progressPercent: 0,
        enrolledAt: at,
        updatedAt: at,
      });
    }
    const id = await startReport(t, `/campaigns/${campaign.id}/users/bulk-report`);
    expect(await settle(t, id)).toMatchObject({ status: "succeeded", progress: { done: count, total: count } });
    const json = await t.get(`/operations/${id}/result`);
    const rows = json.body as Json[];
    expect(rows).toHaveLength(count);
    expect(new Set(rows.map((row) => row["userId"])).size).toBe(count);
    expect(rows[0]).toMatchObject({ userName: null, active: null, status: "not_started" });
    const csv = parseCsv((await t.get(`/operations/${id}/result?format=csv`)).text);
    expect(csv).toHaveLength(count + 1);
    expect(csv.slice(1).map((record) => record[0])).toEqual(rows.map((row) => row["userId"]));
  });
});

describe("a simulation report", POPULATED, () => {
  it("writes one row per recipient with the time of each step", async () => {
    const w = await createWorld();
    const id = await startReport(w.t, `/attack-simulations/${w.simulationA.id}/users/bulk-report`, w.keys.adminA);
    expect(await settle(w.t, id, w.keys.adminA)).toMatchObject({
      kind: "simulation-users-report",
      status: "succeeded",
      progress: { done: 3, total: 3 },
    });
    const rows = (await w.t.get(`/operations/${id}/result`, w.keys.adminA)).body as Json[];
    expect(rows.find((row) => row["userName"] === "bob")).toEqual({
      userId: w.users.bob,
      userName: "bob",
      displayName: "Learner bob",
      email: "bob@example.com",
      department: "Engineering",
      active: false,
      sentAt: "2026-03-01T09:00:00.000Z",
      deliveredAt: "2026-03-01T09:00:00.000Z",
      openedAt: null,
      clickedAt: null,
      submittedDataAt: null,
      reportedAt: "2026-03-01T09:00:00.000Z",
    });
    const csv = parseCsv((await w.t.get(`/operations/${id}/result?format=csv`, w.keys.adminA)).text);
    expect(csv[0]).toEqual([
      "userId",
      "userName",
      "displayName",
      "email",
      "department",
      "active",
      "sentAt",
      "deliveredAt",
      "openedAt",
      "clickedAt",
      "submittedDataAt",
      "reportedAt",
    ]);
    expect(csv).toHaveLength(4);
  });

  it("answers 404 for another organization's or unknown simulations, and 401 without a key", async () => {
    const w = await createWorld();
    expectProblem(await w.t.get(`/attack-simulations/${w.simulationB.id}/users/bulk-report`, w.keys.adminA), 404, "not-found");
    expectProblem(await w.t.get(`/attack-simulations/${UNKNOWN}/users/bulk-report`), 404, "not-found");
    expectProblem(await w.t.get(`/campaigns/${UNKNOWN}/users/bulk-report`), 404, "not-found");
    expectProblem(await w.t.get(`/campaigns/${w.campaignA.id}/users/bulk-report`, null), 401, "unauthorized");
  });
});

describe("GET /operations/{id}", POPULATED, () => {
  it("shows an operation only within the organizations of the caller", async () => {
    const w = await createWorld();
    const id = await startReport(w.t, `/campaigns/${w.campaignB.id}/users/bulk-report`);
    await settle(w.t, id);
    expect((await w.t.get(`/operations/${id}`, w.keys.adminB)).status).toBe(200);
    const foreign = expectProblem(await w.t.get(`/operations/${id}`, w.keys.adminA), 404, "not-found");
    const unknown = expectProblem(await w.t.get(`/operations/${UNKNOWN}`, w.keys.adminA), 404, "not-found");
    expect(foreign).toEqual(unknown);
    expectProblem(await w.t.get(`/operations/${id}/result`, w.keys.adminA), 404, "not-found");
    expectProblem(await w.t.get("/operations/123/result"), 404, "not-found");
    expectProblem(await w.t.get(`/operations/${id}/result?format=xlsx`), 400, "invalid-request");
  });

  it("answers 409 for the result until the operation has succeeded, and shows it running with progress", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const w = await createWorld();
    const gated: AnalyticsStore = {
      ...w.t.analytics,
      async appendReportRows(operationId, rows, ownerId) {
        await gate;
        return w.t.analytics.appendReportRows(operationId, rows, ownerId);
      },
    };
    // A second router over the world's store, whose report job waits at the gate.
    const t = await createAnalyticsTestApp({ router: { store: gated } });
    const blocked = await request(t.app)
      .get(`/analytics/v1/campaigns/${w.campaignA.id}/users/bulk-report`)
      .set("Authorization", `Bearer ${w.keys.adminA}`);
    expect(blocked.status).toBe(202);
    const id = (blocked.body as { operation: { id: string } }).operation.id;
    const running = await eventually(
      async () => (await w.t.get(`/operations/${id}`)).body as Json,
      (operation) => operation["status"] === "running",
      "the job to start",
    );
    expect(running).toMatchObject({ status: "running", progress: { done: 0, total: 3 } });
    expect((running["links"] as Json)["result"]).toBeUndefined();
    const early = expectProblem(await w.t.get(`/operations/${id}/result`), 409, "operation-not-finished");
    expect(early.detail).toContain(`/operations/${id}`);
    release();
    expect(await settle(w.t, id)).toMatchObject({ status: "succeeded" });
    expect((await w.t.get(`/operations/${id}/result`)).status).toBe(200);
  });

  it("marks a report whose job fails as failed, tells the operator why and the client what to do", async () => {
    const w = await createWorld();
    const broken: AnalyticsStore = {
      ...w.t.analytics,
      async listEnrolments() {
        throw new Error("disk on fire");
      },
    };
    const errors: unknown[] = [];
    const t = await createAnalyticsTestApp({ router: { store: broken, onError: (error) => errors.push(error) } });
    const started = await request(t.app)
      .get(`/analytics/v1/campaigns/${w.campaignA.id}/users/bulk-report`)
      .set("Authorization", `Bearer ${w.keys.adminA}`);
    expect(started.status).toBe(202);
    const id = (started.body as { operation: { id: string } }).operation.id;
    const failed = await settle(w.t, id);
    expect(failed).toMatchObject({ status: "failed" });
    expect(String(failed["error"])).toMatch(/Request the report again/);
    expect(String(failed["error"])).not.toContain("disk on fire");
    expect(typeof failed["finishedAt"]).toBe("string");
    expect(errors.map(String)).toEqual(["Error: disk on fire"]);
    const result = expectProblem(await w.t.get(`/operations/${id}/result`), 409, "operation-not-finished");
    expect(result.detail).toContain("failed");
  });
});
