/**
 * What another region can make the operator's summary say (issue 30, point 5): its totals only
 * when it answers, with the key, at its configured address, a well-formed answer of its own
 * region within the bounds; anything else lists it with why, leaves it out of the sum and marks
 * the sum incomplete — and this region's own totals are counted here, once however many ask.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import request from "supertest";
import { memoryAnalyticsStore, type RegionAggregates } from "@scimkit/server";
import { createTokenStore } from "scimkit";
import { memoryStore } from "scimkit/memory";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../free-port.fixture.js";
import { organizationRecord } from "../organization-record.fixture.js";
import { regionAggregates } from "./region-aggregates.js";
import { regionAggregatesFeed } from "./region-aggregates-feed.js";
import { MAX_AGGREGATES_BYTES, summarizeRegions } from "./summarize-regions.js";

const KEY = "region-key-summary-test-0123456789abcdef012";
const AT = "2026-12-07T10:00:00.000Z";
let answer: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => response.end();
const seen: { url: string; authorization: string | undefined }[] = [];
const held: ServerResponse[] = [];
const peer = createServer((incoming, response) => {
  seen.push({ url: incoming.url ?? "", authorization: incoming.headers.authorization });
  answer(incoming, response);
});
peer.listen(0, "127.0.0.1");
await once(peer, "listening");
const peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
afterAll(() => {
  for (const response of held) response.destroy();
  peer.close();
});

const json =
  (body: unknown, status = 200) =>
  (_request: IncomingMessage, response: ServerResponse) => {
    response.statusCode = status;
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify(body));
  };
const euTotals = { region: "eu", at: AT, organizations: 2, users: 7, activeUsers: 6, groups: 3 };
const usTotals: RegionAggregates = { region: "us", at: AT, organizations: 1, users: 4, activeUsers: 4, groups: 1 };

const summary = (withKey = true) =>
  summarizeRegions({
    self: "us",
    baseUrls: { us: "http://127.0.0.1:1", eu: peerUrl },
    ...(withKey ? { key: KEY } : {}),
    local: async () => usTotals,
    timeoutMs: 200,
  });

describe("the operator's summary across regions", () => {
  it("adds this region's totals to each other region's, asked with the key at its configured address", async () => {
    answer = json(euTotals);
    seen.length = 0;
    expect(await summary()).toEqual({
      regions: [
        { ...euTotals, self: false },
        { ...usTotals, self: true },
      ],
      total: { organizations: 3, users: 11, activeUsers: 10, groups: 4 },
      complete: true,
    });
    expect(seen).toEqual([{ url: "/regions/v1/aggregates", authorization: `Bearer ${KEY}` }]);
  });

  it("lists a region that gives no valid totals with why, and sums the others, incomplete", async () => {
    const refusals: [string, (request: IncomingMessage, response: ServerResponse) => void, RegExp][] = [
      [
        "a redirect",
        (_request, response) => {
          response.statusCode = 302;
          response.setHeader("location", "http://169.254.169.254/latest/meta-data/");
          response.end();
        },
        /could not be reached.*redirect/i,
      ],
      ["a refusal", json({ status: 401, detail: "Present SCIMKIT_REGION_KEY" }, 401), /aggregates answered 401/],
      [
        "an oversized answer",
        (_request, response) => response.end(JSON.stringify({ ...euTotals, pad: "x".repeat(MAX_AGGREGATES_BYTES) })),
        /larger than/,
      ],
      ["not JSON", (_request, response) => response.end("<html>"), /other than JSON/],
      ["another region's totals", json({ ...euTotals, region: "ap" }), /not the totals of region eu/],
      ["a negative count", json({ ...euTotals, users: -1 }), /valid users/],
      ["a count that is not a whole number", json({ ...euTotals, groups: 1.5 }), /valid groups/],
      ["a count as text", json({ ...euTotals, organizations: "2" }), /valid organizations/],
      ["more active users than users", json({ ...euTotals, activeUsers: 8 }), /more active users than users/],
      ["a bad time", json({ ...euTotals, at: "yesterday" }), /valid time/],
      ["no answer", (_request, response) => void held.push(response), /could not be reached.*TimeoutError/],
      [
        "an answer that stops",
        (_request, response) => {
          response.setHeader("content-type", "application/json");
          response.write('{"region":"eu"');
          held.push(response);
        },
        /did not arrive in time/,
      ],
    ];
    for (const [what, reply, reason] of refusals) {
      answer = reply;
      const result = await summary();
      expect(result.regions[0], what).toEqual({ region: "eu", self: false, error: expect.stringMatching(reason) });
      expect(result.total, what).toEqual({ organizations: 1, users: 4, activeUsers: 4, groups: 1 });
      expect(result.complete, what).toBe(false);
    }
  });

  it("names a region that cannot be reached, and asks none without the key", async () => {
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await summarizeRegions({
      self: "us",
      baseUrls: { us: "http://127.0.0.1:1", eu: nobody },
      key: KEY,
      local: async () => usTotals,
    });
    expect(unreachable.regions[0]).toEqual({
      region: "eu",
      self: false,
      error: `region eu could not be reached at ${nobody}/regions/v1/aggregates: ECONNREFUSED`,
    });
    seen.length = 0;
    expect((await summary(false)).regions[0]).toEqual({ region: "eu", self: false, error: expect.stringContaining("SCIMKIT_REGION_KEY") });
    expect(seen).toEqual([]);
  });
});

describe("this region's totals", () => {
  const organizations = async () => {
    const resources = memoryStore();
    const store = memoryAnalyticsStore({ resources, tokens: createTokenStore() });
    for (const id of ["acme", "arriving"]) await store.createOrganization(organizationRecord(id, undefined, AT));
    return store;
  };

  it("leaves out the organizations not homed here, and counts once for the calls that arrive meanwhile", async () => {
    const store = await organizations();
    let counts = 0;
    const aggregates = regionAggregates({
      self: "us",
      store: {
        organizationTotals: (options) => {
          counts += 1;
          return store.organizationTotals(options);
        },
      },
      notHomed: () => ["arriving"],
      now: () => new Date(AT),
    });
    const answers = await Promise.all([aggregates(), aggregates(), aggregates()]);
    expect(counts).toBe(1);
    expect(answers).toEqual(Array(3).fill({ region: "us", at: AT, organizations: 1, users: 0, activeUsers: 0, groups: 0 }));
    await aggregates();
    expect(counts).toBe(2);
  });

  it("serves them on the channel only to whoever presents the region key, before counting anything", async () => {
    const store = await organizations();
    let counts = 0;
    const aggregates = regionAggregates({ self: "us", store, now: () => new Date(AT) });
    const app = express().use(
      "/regions/v1",
      regionAggregatesFeed({
        key: KEY,
        aggregates: () => {
          counts += 1;
          return aggregates();
        },
      }),
    );
    for (const authorization of [undefined, "Bearer wrong-key-wrong-key-wrong-key-wrong", `Basic ${KEY}`]) {
      const refused = await request(app)
        .get("/regions/v1/aggregates")
        .set(authorization === undefined ? {} : { authorization });
      expect(refused.status).toBe(401);
    }
    expect(counts).toBe(0);
    const served = await request(app).get("/regions/v1/aggregates").set("authorization", `Bearer ${KEY}`);
    expect(served.status).toBe(200);
    expect(served.headers["cache-control"]).toBe("no-store");
    expect(served.body).toEqual({ region: "us", at: AT, organizations: 2, users: 0, activeUsers: 0, groups: 0 });
  });
});
