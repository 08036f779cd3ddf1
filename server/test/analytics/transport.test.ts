/**
 * What the analytics router does with input it cannot use — never a 500: bodies that are not
 * JSON, in another media type or too large, repeated or unknown parameters, broken URLs, unknown
 * endpoints and methods — and the one 500 it gives for a failing store, without the cause.
 */
import { describe, expect, it } from "vitest";
import type { AnalyticsStore } from "../../src/analytics/analytics-store.js";
import { POPULATED, createAnalyticsTestApp, expectInvalidFields, expectProblem } from "./analytics-harness.js";

describe("request bodies", POPULATED, () => {
  it("answers 400 malformed-request for a body that is not JSON", async () => {
    const t = await createAnalyticsTestApp();
    const problem = expectProblem(
      await t.send("POST", "/organizations", { body: '{"name": "Acme",', contentType: "application/json" }),
      400,
      "malformed-request",
    );
    expect(problem.detail).toMatch(/not valid JSON/);
    expectProblem(await t.send("POST", "/organizations", { body: "null", contentType: "application/json" }), 400, "malformed-request");
  });

  it("answers 400 naming the body when it is JSON but not an object", async () => {
    const t = await createAnalyticsTestApp();
    expectInvalidFields(await t.send("POST", "/organizations", { body: '["Acme"]', contentType: "application/json" }), [""]);
  });

  it("answers 415 for another media type or none, and for a charset other than UTF-8", async () => {
    const t = await createAnalyticsTestApp();
    expectProblem(
      await t.send("POST", "/organizations", { body: "name=Acme", contentType: "application/x-www-form-urlencoded" }),
      415,
      "unsupported-media-type",
    );
    expectProblem(
      await t.send("POST", "/organizations", { body: '{"name":"Acme"}', contentType: "text/plain" }),
      415,
      "unsupported-media-type",
    );
    expectProblem(
      await t.send("POST", "/organizations", { body: '{"name":"Acme"}', contentType: "application/json; charset=latin1" }),
      415,
      "unsupported-media-type",
    );
    expect(
      (await t.send("POST", "/organizations", { body: '{"name":"Acme"}', contentType: "application/json; charset=utf-8" })).status,
    ).toBe(201);
  });

  it("answers 413 for a body over the limit", async () => {
    const t = await createAnalyticsTestApp({ router: { bodyLimit: 64 } });
    const problem = expectProblem(await t.post("/organizations", { name: "x".repeat(100) }), 413, "payload-too-large");
    expect(problem.detail).toContain("64");
  });
});

describe("URLs", POPULATED, () => {
  it("answers 404 unknown-endpoint for a path no operation has", async () => {
    const t = await createAnalyticsTestApp();
    const problem = expectProblem(await t.get("/learners"), 404, "unknown-endpoint");
    expect(problem.detail).toContain("GET /learners");
    expectProblem(await t.get("/campaigns/01890a5d-ac96-774b-bcce-b302099a8057/nothing"), 404, "unknown-endpoint");
  });

  it("answers 405 with Allow for a known path and another method", async () => {
    const t = await createAnalyticsTestApp();
    const put = await t.send("PUT", "/organizations", { body: { name: "Acme" } });
    expectProblem(put, 405, "method-not-allowed");
    expect(put.headers["allow"]).toBe("GET, HEAD, POST");
    const deleteList = await t.send("DELETE", "/users");
    expectProblem(deleteList, 405, "method-not-allowed");
    expect(deleteList.headers["allow"]).toBe("GET, HEAD");
  });

  it("answers 400 malformed-request for a broken %-escape in the path", async () => {
    const t = await createAnalyticsTestApp();
    expectProblem(await t.get("/organizations/%E0%A4%A"), 400, "malformed-request");
  });

  it("refuses repeated query parameters by name", async () => {
    const t = await createAnalyticsTestApp();
    expectInvalidFields(await t.get("/organizations?limit=1&limit=2"), ["limit"]);
  });

  it("answers HEAD like GET without a body", async () => {
    const t = await createAnalyticsTestApp();
    const head = await t.send("HEAD", "/organizations");
    expect(head.status).toBe(200);
    expect(head.headers["content-type"]).toMatch(/^application\/json/);
  });

  it("marks JSON answers and problems nosniff, mounted without the host (issue 27)", async () => {
    const t = await createAnalyticsTestApp();
    const list = await t.send("GET", "/organizations");
    expect(list.status).toBe(200);
    const problem = await t.send("GET", "/no-such-endpoint");
    expect(problem.status).toBe(404);
    for (const answer of [list, problem]) expect(answer.headers["x-content-type-options"]).toBe("nosniff");
  });
});

describe("failures", POPULATED, () => {
  it("answers a failing store with a bare 500 internal and reports the cause to onError only", async () => {
    const base = await createAnalyticsTestApp();
    const broken: AnalyticsStore = {
      ...base.analytics,
      async listOrganizations() {
        throw new Error("connection refused to db.internal:5432");
      },
    };
    const errors: unknown[] = [];
    const t = await createAnalyticsTestApp({ router: { store: broken, onError: (error) => errors.push(error) } });
    const response = await t.get("/organizations", base.operatorKey);
    const problem = expectProblem(response, 500, "internal");
    expect(response.text).not.toContain("db.internal");
    expect(problem.detail).toMatch(/retry later/);
    expect(errors.map(String)).toEqual(["Error: connection refused to db.internal:5432"]);
  });
});
