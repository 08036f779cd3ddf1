/**
 * Issue 30, point 5, with real processes: a `us` and an `eu` host, each on its own database — two
 * SQLite files, and separately two PostgreSQL databases. The operator at `us` reads every region's
 * organizations, users and groups and their sum, each region's counted by its own host in its own
 * database and only the totals crossing; the channel that carries them refuses whoever lacks the
 * region key; and with `eu` down the summary still answers, `eu` listed with why, the sum `us`'s
 * alone and said to be incomplete.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { killHosts, startHost } from "../host-process.fixture.js";
import {
  call,
  describeTwoPostgresDatabases,
  learner,
  type RegionDatabases,
  regionPair,
  sqliteDatabases,
} from "./region-databases.fixture.js";

const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
const US_TOKEN = "token-acme-us-summary-0123456789abcdef0123";
const EU_TOKEN = "token-acme-eu-summary-0123456789abcdef0123";
const OPERATOR_KEY = "operator-key-regions-summary-0123456789ab";
const REGION_KEY = "region-key-regions-summary-0123456789abcdef";

afterAll(killHosts);

function summaryAcrossRegions(databases: () => RegionDatabases): void {
  it("sums each region's own totals at the operator's host, refuses the channel without the key, and answers with a region down", {
    timeout: 120_000,
  }, async () => {
    const { urls } = databases();
    const { us, eu, env } = await regionPair({
      urls,
      regionKey: REGION_KEY,
      operatorKey: OPERATOR_KEY,
      orgs: { us: `acme-us:${US_TOKEN}`, eu: `acme-eu:${EU_TOKEN}` },
    });
    const usHost = startHost(env.us);
    const euHost = startHost(env.eu);
    await Promise.all([usHost.waitFor(/listening on port/), euHost.waitFor(/listening on port/)]);

    // us: two learners (one inactive) and a group; eu: a second organization and three learners.
    const provision = async (base: string, orgId: string, token: string, path: string, body: unknown): Promise<string> => {
      const created = await call(`${base}/scim/Organizations/${orgId}/v2/${path}`, { method: "POST", token, body });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return String(created.body["id"]);
    };
    const alice = await provision(us, "acme-us", US_TOKEN, "Users", learner("alice.us-resident@acme.example"));
    await provision(us, "acme-us", US_TOKEN, "Users", learner("dora.us-resident@acme.example", false));
    await provision(us, "acme-us", US_TOKEN, "Groups", { schemas: [GROUP_SCHEMA], displayName: "Staff", members: [{ value: alice }] });
    const globex = await call(`${eu}/analytics/v1/organizations`, {
      method: "POST",
      token: OPERATOR_KEY,
      body: { id: "globex", name: "Globex" },
    });
    expect(globex.status).toBe(201);
    for (const userName of ["bruno", "carla", "dieter"])
      await provision(eu, "acme-eu", EU_TOKEN, "Users", learner(`${userName}.eu-resident@acme.example`));

    const usTotals = { region: "us", self: true, organizations: 1, users: 2, activeUsers: 1, groups: 1, at: expect.any(String) };
    const euTotals = { region: "eu", self: false, organizations: 2, users: 3, activeUsers: 3, groups: 0, at: expect.any(String) };
    const both = await call(`${us}/analytics/v1/regions/summary`, { token: OPERATOR_KEY });
    expect(both.status).toBe(200);
    expect(both.body).toEqual({
      regions: [euTotals, usTotals],
      total: { organizations: 3, users: 5, activeUsers: 4, groups: 1 },
      complete: true,
    });
    // Totals cross, never a person: no userName of either region is in the answer.
    expect(JSON.stringify(both.body)).not.toMatch(/resident/);
    // The same sum from the other side.
    const fromEu = await call(`${eu}/analytics/v1/regions/summary`, { token: OPERATOR_KEY });
    expect(fromEu.body).toEqual({
      regions: [
        { ...euTotals, self: true },
        { ...usTotals, self: false },
      ],
      total: { organizations: 3, users: 5, activeUsers: 4, groups: 1 },
      complete: true,
    });

    // The channel is for the regions' hosts, the operator API for the operator.
    expect((await call(`${us}/regions/v1/aggregates`)).status).toBe(401);
    expect((await call(`${us}/regions/v1/aggregates`, { token: OPERATOR_KEY })).status).toBe(401);
    expect((await call(`${us}/analytics/v1/regions/summary`, { token: REGION_KEY })).status).toBe(401);
    const channel = await call(`${us}/regions/v1/aggregates`, { token: REGION_KEY });
    expect(channel.status).toBe(200);
    expect(channel.body).toEqual({ region: "us", organizations: 1, users: 2, activeUsers: 1, groups: 1, at: expect.any(String) });

    // eu down: the summary still answers, eu listed with why, the sum us's alone.
    euHost.child.kill("SIGKILL");
    await new Promise((resolve) => euHost.child.once("exit", resolve));
    const alone = await call(`${us}/analytics/v1/regions/summary`, { token: OPERATOR_KEY });
    expect(alone.status).toBe(200);
    expect(alone.body).toEqual({
      regions: [
        { region: "eu", self: false, error: expect.stringContaining(`region eu could not be reached at ${eu}/regions/v1/aggregates`) },
        usTotals,
      ],
      total: { organizations: 1, users: 2, activeUsers: 1, groups: 1 },
      complete: false,
    });
  });
}

describe("the operator's summary across two regions on two SQLite files", () => {
  const dir = mkdtempSync(join(tmpdir(), "scimkit-regions-summary-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  summaryAcrossRegions(() => sqliteDatabases(dir));
});

describeTwoPostgresDatabases("the operator's summary across two regions on two PostgreSQL databases", (databases) =>
  summaryAcrossRegions(databases),
);
