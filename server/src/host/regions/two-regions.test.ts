/**
 * Issue 30, points 1–3, with real processes: a `us` and an `eu` host, each on its own database —
 * two SQLite files, and separately two PostgreSQL databases.
 * Each serves only the organizations homed in it; the other answers 421 naming the right base URL
 * (SCIM and OAuth paths alike, token or none), counts it, and keeps answering so from the replica
 * its own database holds while the home region is down — even after a restart; and the region
 * that stays up keeps provisioning its own organizations. Neither database holds the other's people.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { killHosts, startHost, type Host } from "../host-process.fixture.js";
import {
  call,
  describeTwoPostgresDatabases,
  eventually,
  type RegionDatabases,
  learner,
  regionPair,
  sqliteDatabases,
} from "./region-databases.fixture.js";
import { scimkit, scimkitJson } from "../scimkit-cli.fixture.js";

const US_TOKEN = "token-acme-us-0123456789abcdef0123456789ab";
const EU_TOKEN = "token-acme-eu-0123456789abcdef0123456789ab";
const OPERATOR_KEY = "operator-key-two-regions-0123456789abcdef";
const REGION_KEY = "region-key-two-regions-0123456789abcdef012";

afterAll(killHosts);

function twoRegions(databases: () => RegionDatabases): void {
  it("serves each organization in its home region only, answers 421 elsewhere, and keeps working with the other region down", {
    timeout: 120_000,
  }, async () => {
    const { urls, contents } = databases();
    const pair = await regionPair({
      urls,
      regionKey: REGION_KEY,
      operatorKey: OPERATOR_KEY,
      orgs: { us: `acme-us:${US_TOKEN}`, eu: `acme-eu:${EU_TOKEN}` },
      env: { SCIMKIT_REGION_SYNC_SECONDS: "1" },
    });
    const { us, eu } = pair;
    const { us: usEnv, eu: euEnv } = pair.env;
    let usHost: Host = startHost(usEnv);
    let euHost: Host = startHost(euEnv);
    await Promise.all([usHost.waitFor(/listening on port/), euHost.waitFor(/listening on port/)]);
    await usHost.waitFor(/Region: us \(SCIMKIT_REGION\).*other regions: eu http/);
    await usHost.waitFor(new RegExp(`^SCIM base URL for acme-us \\(region us\\): ${us}/scim/Organizations/acme-us/v2$`));

    // An organization created through eu's operator API is homed in eu and read by us too.
    const globex = await call(`${eu}/analytics/v1/organizations`, {
      method: "POST",
      token: OPERATOR_KEY,
      body: { id: "globex", name: "Globex" },
    });
    expect(globex.status).toBe(201);
    expect(globex.body["scim"]).toMatchObject({ baseUrl: `${eu}/scim/Organizations/globex/v2`, region: "eu" });
    // An organization is created where its data is to live: another region's host is named, not written to.
    const elsewhere = await call(`${eu}/analytics/v1/organizations`, {
      method: "POST",
      token: OPERATOR_KEY,
      body: { name: "Initech", homeRegion: "us" },
    });
    expect(elsewhere.status).toBe(400);
    expect(String(elsewhere.body["detail"])).toContain(`POST ${us}/analytics/v1/organizations`);
    expect(
      (await call(`${eu}/analytics/v1/organizations`, { method: "POST", token: OPERATOR_KEY, body: { name: "Initech", homeRegion: "ap" } }))
        .status,
    ).toBe(400);

    // Each region provisions its own.
    const alice = await call(`${us}/scim/Organizations/acme-us/v2/Users`, {
      method: "POST",
      token: US_TOKEN,
      body: learner("alice.us-resident@acme.example"),
    });
    expect(alice.status).toBe(201);
    const bruno = await call(`${eu}/scim/Organizations/acme-eu/v2/Users`, {
      method: "POST",
      token: EU_TOKEN,
      body: learner("bruno.eu-resident@acme.example"),
    });
    expect(bruno.status).toBe(201);

    // The wrong region answers 421 with the right base URL, once it has read the other's directory,
    // with the right token, a wrong one or none: it checks no token of an organization it does not hold.
    const atEu = await eventually(
      () => call(`${eu}/scim/Organizations/acme-us/v2/Users/${String(alice.body["id"])}`, { token: US_TOKEN }),
      (reply) => reply.status === 421,
    );
    expect(atEu.status).toBe(421);
    expect(atEu.body["schemas"]).toEqual(["urn:ietf:params:scim:api:messages:2.0:Error"]);
    expect(String(atEu.body["detail"])).toContain(`${us}/scim/Organizations/acme-us/v2`);
    expect((await call(`${eu}/scim/Organizations/acme-us/v2/Users`, { method: "POST", body: learner("x@y.example") })).status).toBe(421);
    const oauth = await call(`${eu}/oauth/Organizations/acme-us/token`, { method: "POST" });
    expect(oauth.status).toBe(421);
    expect(String(oauth.body["detail"])).toContain(`${us}/oauth/Organizations/acme-us/token`);
    // An id is one path in every region: eu, knowing acme-us is us's, refuses to create it too.
    const clash = await call(`${eu}/analytics/v1/organizations`, {
      method: "POST",
      token: OPERATOR_KEY,
      body: { id: "acme-us", name: "Acme again" },
    });
    expect(clash.status).toBe(409);
    expect(String(clash.body["detail"])).toContain("exists in region us");
    const atUs = await eventually(
      () => call(`${us}/scim/Organizations/globex/v2/Users`, { token: US_TOKEN }),
      (reply) => reply.status === 421,
    );
    expect(String(atUs.body["detail"])).toContain(`${eu}/scim/Organizations/globex/v2`);
    // The operator at us sees eu's organizations, their region and base URL: nothing of their data.
    const listed = await call(`${us}/analytics/v1/regions/organizations?region=eu`, { token: OPERATOR_KEY });
    expect(listed.status).toBe(200);
    expect(listed.body["data"]).toEqual([
      expect.objectContaining({ id: "acme-eu", homeRegion: "eu", status: "active", scimBaseUrl: `${eu}/scim/Organizations/acme-eu/v2` }),
      expect.objectContaining({ id: "globex", name: "Globex", homeRegion: "eu", scimBaseUrl: `${eu}/scim/Organizations/globex/v2` }),
    ]);
    expect((await call(`${us}/analytics/v1/regions/organizations?region=us`, { token: OPERATOR_KEY })).body["data"]).toEqual([]);
    // An organization no region knows is this region's 404/401 as before, not a 421.
    expect((await call(`${eu}/scim/Organizations/nobody/v2/Users`, { token: US_TOKEN })).status).toBe(401);

    // Counted, for the operator, per organization.
    const view = await call(`${eu}/analytics/v1/regions`, { token: OPERATOR_KEY });
    expect(view.status).toBe(200);
    expect(view.body["region"]).toBe("eu");
    // Three requests, each counted as often as it arrived: Node's fetch (undici) sends a request
    // answered 421 once more on a new connection, as RFC 9110 §15.5.20 allows a client to.
    const misdirected = (view.body["misdirected"] as { orgId: string; homeRegion: string; count: number }[]).find(
      (entry) => entry.orgId === "acme-us",
    );
    expect(misdirected?.homeRegion).toBe("us");
    expect(misdirected?.count).toBeGreaterThanOrEqual(3);
    expect(misdirected?.count).toBeLessThanOrEqual(6);
    expect(view.body["regions"]).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ region: "us", baseUrl: us, organizations: 1 }),
        expect.objectContaining({ region: "eu", baseUrl: eu, self: true }),
      ]),
    );

    // The directory feed is for the regions' hosts only.
    expect((await call(`${us}/regions/v1/directory`)).status).toBe(401);
    expect((await call(`${us}/regions/v1/directory`, { token: OPERATOR_KEY })).status).toBe(401);
    // A page is at most 1,000 organizations, asked for before any read.
    for (const limit of ["0", "1001", "x"])
      expect((await call(`${us}/regions/v1/directory?limit=${limit}`, { token: REGION_KEY })).status).toBe(400);
    const feed = await call(`${us}/regions/v1/directory`, { token: REGION_KEY });
    expect(feed.body).toMatchObject({ region: "us", organizations: [expect.objectContaining({ id: "acme-us", status: "active" })] });

    // us down: eu provisions its own, and still sends acme-us's identity provider to us — after a restart too.
    usHost.child.kill("SIGKILL");
    const carla = await call(`${eu}/scim/Organizations/acme-eu/v2/Users`, {
      method: "POST",
      token: EU_TOKEN,
      body: learner("carla.eu-resident@acme.example"),
    });
    expect(carla.status).toBe(201);
    euHost.child.kill("SIGKILL");
    await new Promise((resolve) => euHost.child.once("exit", resolve));
    euHost = startHost(euEnv);
    await euHost.waitFor(/listening on port/);
    const afterRestart = await call(`${eu}/scim/Organizations/acme-us/v2/Users`, { token: US_TOKEN });
    expect(afterRestart.status).toBe(421);
    expect(
      (
        await call(`${eu}/scim/Organizations/acme-eu/v2/Users?filter=userName%20eq%20%22carla.eu-resident%40acme.example%22`, {
          token: EU_TOKEN,
        })
      ).body["totalResults"],
    ).toBe(1);
    const regionsView = await eventually(
      () => call(`${eu}/analytics/v1/regions`, { token: OPERATOR_KEY }),
      (reply) => JSON.stringify(reply.body).includes("lastError"),
    );
    expect(regionsView.body["regions"]).toEqual(
      expect.arrayContaining([expect.objectContaining({ region: "us", organizations: 1, lastError: expect.any(String) })]),
    );

    // us back: it reads eu's directory again and serves its own as before.
    usHost = startHost(usEnv);
    await usHost.waitFor(/listening on port/);
    expect((await call(`${us}/scim/Organizations/acme-us/v2/Users/${String(alice.body["id"])}`, { token: US_TOKEN })).status).toBe(200);
    killHosts();
    await Promise.all(
      [usHost, euHost].map((host) =>
        host.child.exitCode === null ? new Promise((resolve) => host.child.once("exit", resolve)) : undefined,
      ),
    );

    // The CLI on eu's database: created in eu, never with an id us holds nor for another region.
    const cliEnv = { ...euEnv, PORT: "0" };
    const made = await scimkitJson<{ scim: { baseUrl: string; region: string } }>(
      ["orgs", "create", "Umbrella", "--id", "umbrella", "--region", "eu"],
      cliEnv,
    );
    expect(made.scim).toMatchObject({ baseUrl: `${eu}/scim/Organizations/umbrella/v2`, region: "eu" });
    for (const [args, status, message] of [
      [["orgs", "create", "Acme", "--id", "acme-us"], 1, /exists in region us/],
      [
        ["orgs", "create", "Initech", "--region", "us"],
        2,
        new RegExp(`this host serves region eu; create an organization homed in us on that region's host \\(${us}\\)`),
      ],
      [["orgs", "create", "Initech", "--region", "mars"], 2, /the regions are eu, us/],
    ] as const) {
      const run = await scimkit(args, cliEnv);
      expect(run.status, args.join(" ")).toBe(status);
      expect(run.stderr, args.join(" ")).toMatch(message);
    }

    // No personal datum of one region's organizations in the other's database.
    const usBytes = await contents("us");
    const euBytes = await contents("eu");
    expect(usBytes).toContain("alice.us-resident");
    expect(euBytes).toContain("bruno.eu-resident");
    expect(euBytes).not.toContain("alice.us-resident");
    expect(usBytes).not.toContain("bruno.eu-resident");
    expect(usBytes).not.toContain("carla.eu-resident");
  });
}

describe("two regions on two SQLite files", () => {
  const dir = mkdtempSync(join(tmpdir(), "scimkit-regions-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  twoRegions(() => sqliteDatabases(dir));
});

describeTwoPostgresDatabases("two regions on two PostgreSQL databases", (databases) => twoRegions(databases));
