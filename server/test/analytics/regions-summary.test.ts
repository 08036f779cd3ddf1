/**
 * `GET /regions/summary` over HTTP (issue 30, point 5): the operator's, as documented (the
 * harness holds the answer to its schema, a region without totals included); an admin user's key
 * is refused, and a service of one region — or a host that counts no totals — answers 404.
 */
import { describe, expect, it } from "vitest";
import type { RegionsSummary, RegionsView } from "@scimkit/server";
import { POPULATED, createAnalyticsTestApp, expectProblem, scimUser } from "./analytics-harness.js";
import { adminWithKey, createInTree } from "./analytics-world.js";

const AT = "2026-03-01T09:00:00.000Z";

/** The regions of a host of `us` whose summary is `summary`. */
function regionsOf(summary?: () => Promise<RegionsSummary>): RegionsView {
  return {
    self: "us",
    baseUrls: { us: "https://scim.example.com", eu: "https://scim.eu.example.com" },
    scimBaseUrl: (region, orgId) => `https://${region}.example.com/scim/Organizations/${orgId}/v2`,
    homeElsewhere: () => undefined,
    report: () => ({ region: "us", regions: [], misdirected: [] }),
    listElsewhere: () => ({ items: [] }),
    ...(summary === undefined ? {} : { summary }),
  };
}

describe("GET /regions/summary", POPULATED, () => {
  it("answers the operator every region's totals and their sum, a region without totals with why", async () => {
    let counted: () => Promise<RegionsSummary> = async () => {
      throw new Error("not yet");
    };
    const t = await createAnalyticsTestApp({ router: { regions: regionsOf(() => counted()) } });
    const acme = await createInTree(t, "acme");
    for (const userName of ["ada@acme.example", "bob@acme.example"]) {
      const created = await t.send("POST", `/scim/Organizations/${acme.id}/v2/Users`, {
        key: acme.scim.token,
        body: scimUser(userName),
        contentType: "application/scim+json",
      });
      expect(created.status, created.text).toBe(201);
    }
    counted = async () => {
      const totals = await t.analytics.organizationTotals();
      return {
        regions: [
          {
            region: "eu",
            self: false,
            error: "region eu could not be reached at https://scim.eu.example.com/regions/v1/aggregates: ECONNREFUSED",
          },
          { region: "us", self: true, at: AT, ...totals },
        ],
        total: totals,
        complete: false,
      };
    };
    const answer = await t.get("/regions/summary");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      regions: [
        { region: "eu", self: false, error: expect.stringContaining("ECONNREFUSED") },
        { region: "us", self: true, at: AT, organizations: 1, users: 2, activeUsers: 2, groups: 0 },
      ],
      total: { organizations: 1, users: 2, activeUsers: 2, groups: 0 },
      complete: false,
    });
    // Totals only: nothing of a person.
    expect(answer.text).not.toContain("ada@acme.example");
    const admin = await adminWithKey(t, "grace@acme.example", "admin", [acme.id]);
    expectProblem(await t.get("/regions/summary", admin.key), 403, "forbidden");
  });

  it("is 404 on a service of one region, and where the host counts no totals", async () => {
    const single = await createAnalyticsTestApp();
    expect(expectProblem(await single.get("/regions/summary"), 404, "not-found").detail).toContain("one region");
    const uncounted = await createAnalyticsTestApp({ router: { regions: regionsOf() } });
    expect(expectProblem(await uncounted.get("/regions/summary"), 404, "not-found").detail).toContain("counts no region's totals");
  });
});
