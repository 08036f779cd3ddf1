/**
 * What another region can make this host hold when its directory is read (issue 30): nothing
 * unless it presents a well-formed page of its own region, within the bounds, at its configured
 * address — a redirect, an oversized page, a page of another region or a bad entry fails the read
 * and the previous copy stays, and the key is sent to the configured address only.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { memoryAnalyticsStore } from "@scimkit/server";
import { createTokenStore } from "scimkit";
import { memoryStore } from "scimkit/memory";
import { afterAll, expect, it } from "vitest";
import { MAX_PAGE_BYTES, syncRegionDirectories } from "./pull-region-directories.js";
import { loadRegionDirectory } from "./region-directory.js";

const KEY = "region-key-pull-test-0123456789abcdef01234";
let answer: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => response.end();
const seen: { url: string; authorization: string | undefined }[] = [];
const peer = createServer((request, response) => {
  seen.push({ url: request.url ?? "", authorization: request.headers.authorization });
  answer(request, response);
});
peer.listen(0, "127.0.0.1");
await once(peer, "listening");
const peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
afterAll(() => peer.close());

const json = (body: unknown) => (_request: IncomingMessage, response: ServerResponse) => {
  response.setHeader("content-type", "application/json");
  response.end(JSON.stringify(body));
};
const organization = (id: string) => ({ id, name: id, status: "active", updatedAt: "2026-12-07T10:00:00.000Z" });

it("keeps the last good copy when a read is redirected, oversized, of another region or malformed", async () => {
  const store = memoryAnalyticsStore({ resources: memoryStore(), tokens: createTokenStore() });
  const directory = await loadRegionDirectory({ self: "us", baseUrls: { us: "http://127.0.0.1:1", eu: peerUrl }, store });
  const logged: string[] = [];
  const told = new Map<string, string>();
  const sync = () => syncRegionDirectories(directory, KEY, store, (line) => logged.push(line), told);

  // Two pages, each asked with the key at the configured address.
  answer = (request, response) =>
    json(
      request.url?.includes("after=")
        ? { region: "eu", organizations: [organization("b")] }
        : { region: "eu", organizations: [organization("a")], next: "a" },
    )(request, response);
  await sync();
  expect(directory.peers()).toEqual([expect.objectContaining({ region: "eu", organizations: 2 })]);
  expect(seen.map((request) => request.url)).toEqual(["/regions/v1/directory?limit=1000", "/regions/v1/directory?limit=1000&after=a"]);
  expect(seen.every((request) => request.authorization === `Bearer ${KEY}`)).toBe(true);

  const refusals: [string, (request: IncomingMessage, response: ServerResponse) => void, RegExp][] = [
    [
      "a redirect",
      (_request, response) => {
        response.statusCode = 302;
        response.setHeader("location", "http://169.254.169.254/latest/meta-data/");
        response.end();
      },
      /fetch failed|redirect/i,
    ],
    [
      "an oversized page",
      (_request, response) => response.end(`{"region":"eu","organizations":[],"pad":"${"x".repeat(MAX_PAGE_BYTES)}"}`),
      /larger than/,
    ],
    ["a page of another region", json({ region: "ap", organizations: [organization("c")] }), /not a directory page of region eu/],
    [
      "a bad entry",
      json({ region: "eu", organizations: [{ id: "a\u0000b", name: "x", status: "active", updatedAt: "t" }] }),
      /without a valid id/,
    ],
    [
      "a bad status",
      json({ region: "eu", organizations: [{ ...organization("c"), status: "deleted" }] }),
      /without a valid id, name, status/,
    ],
    ["a next that does not move on", json({ region: "eu", organizations: [], next: "" }), /bad next/],
    [
      "an error status",
      (_request, response) => {
        response.statusCode = 401;
        response.end("{}");
      },
      /answered 401/,
    ],
  ];
  for (const [what, refusal, reason] of refusals) {
    seen.length = 0;
    answer = refusal;
    await sync();
    const [state] = directory.peers();
    expect(state?.lastError, what).toMatch(reason);
    expect(state?.organizations, what).toBe(2);
    expect(directory.homeElsewhere("a")?.homeRegion, what).toBe("eu");
    // Nothing but the configured address was asked: the redirect was not followed.
    expect(
      seen.every((request) => request.url.startsWith("/regions/v1/directory")),
      what,
    ).toBe(true);
  }
  // Said once per change of reason, not once per read: the bad entry and the bad status fail alike.
  const said = (): number => logged.filter((line) => line.includes("cannot read its directory")).length;
  expect(said()).toBe(refusals.length - 1);
  await sync();
  expect(said()).toBe(refusals.length - 1);
});

it("serves its own organization of an id another region also homes, and says so once, not at every read", async () => {
  const store = memoryAnalyticsStore({ resources: memoryStore(), tokens: createTokenStore() });
  const now = "2026-12-07T10:00:00.000Z";
  await store.createOrganization({ id: "demo", name: "Demo", status: "active", createdAt: now, updatedAt: now });
  const directory = await loadRegionDirectory({ self: "us", baseUrls: { us: "http://127.0.0.1:1", eu: peerUrl }, store });
  const logged: string[] = [];
  const told = new Map<string, string>();
  answer = json({ region: "eu", organizations: [organization("demo"), organization("globex")] });
  for (let read = 0; read < 3; read++) await syncRegionDirectories(directory, KEY, store, (line) => logged.push(line), told);
  expect(directory.homeElsewhere("demo")).toBeUndefined();
  expect(directory.homeElsewhere("globex")?.homeRegion).toBe("eu");
  expect(logged).toEqual(["region eu also homes organization(s) demo: each region serves its own; rename one"]);
});
