/**
 * The host's view of the other regions' directories (issue 30): what a peer's feed may take,
 * what it may not, and that the copy outlives the process (it is the analytics store's).
 */
import { expect, it } from "vitest";
import { memoryAnalyticsStore, type RegionDirectoryEntry } from "@scimkit/server";
import { createTokenStore } from "scimkit";
import { memoryStore } from "scimkit/memory";
import { loadRegionDirectory } from "./region-directory.js";

const BASE_URLS = { us: "https://scim.example.com", eu: "https://scim.eu.example.com", ap: "https://scim.ap.example.com" };
const entry = (id: string, homeRegion: string): RegionDirectoryEntry => ({
  id,
  name: id,
  homeRegion,
  status: "active",
  updatedAt: "2026-12-07T10:00:00.000Z",
});

it("keeps a peer's organizations, never this region's own nor those a third region's copy still holds, and reloads them", async () => {
  const store = memoryAnalyticsStore({ resources: memoryStore(), tokens: createTokenStore() });
  const directory = await loadRegionDirectory({ self: "us", baseUrls: BASE_URLS, store });
  await directory.replacePeer("ap", [entry("moving", "ap")], new Set());
  // eu lists an id of this region (a clash) and one ap's copy still holds (a move ap's feed has not shown yet).
  await directory.replacePeer("eu", [entry("globex", "eu"), entry("acme", "eu"), entry("moving", "eu")], new Set(["acme"]));
  expect(directory.homeElsewhere("globex")?.homeRegion).toBe("eu");
  expect(directory.homeElsewhere("acme")).toBeUndefined();
  expect(directory.homeElsewhere("moving")?.homeRegion).toBe("ap");
  expect(directory.peers().map(({ region, organizations }) => [region, organizations])).toEqual([
    ["ap", 1],
    ["eu", 1],
  ]);
  // ap's feed drops it: eu's next read takes it.
  await directory.replacePeer("ap", [], new Set());
  await directory.replacePeer("eu", [entry("globex", "eu"), entry("moving", "eu")], new Set());
  expect(directory.homeElsewhere("moving")?.homeRegion).toBe("eu");

  const reloaded = await loadRegionDirectory({ self: "us", baseUrls: BASE_URLS, store });
  expect(reloaded.homeElsewhere("moving")?.homeRegion).toBe("eu");
  expect(reloaded.scimBaseUrl("eu", "a b")).toBe("https://scim.eu.example.com/scim/Organizations/a%20b/v2");
  expect(reloaded.report()).toMatchObject({
    region: "us",
    regions: [{ region: "ap" }, { region: "eu" }, { region: "us", self: true }],
    misdirected: [],
  });
});

it("pages the other regions' organizations by id, in one region or all", async () => {
  const store = memoryAnalyticsStore({ resources: memoryStore(), tokens: createTokenStore() });
  const directory = await loadRegionDirectory({ self: "us", baseUrls: BASE_URLS, store });
  await directory.replacePeer(
    "eu",
    ["e1", "e3", "e5"].map((id) => entry(id, "eu")),
    new Set(),
  );
  await directory.replacePeer(
    "ap",
    ["a2", "e4"].map((id) => entry(id, "ap")),
    new Set(),
  );
  const walk = (region?: string): string[] => {
    const ids: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = directory.listElsewhere({ limit: 2, ...(after === undefined ? {} : { after }) }, region);
      ids.push(...page.items.map((item) => item.id));
      if (page.next === undefined) return ids;
      after = page.next;
    }
  };
  expect(walk()).toEqual(["a2", "e1", "e3", "e4", "e5"]);
  expect(walk("eu")).toEqual(["e1", "e3", "e5"]);
  expect(walk("ap")).toEqual(["a2", "e4"]);
  expect(walk("us")).toEqual([]);
  // A last page that fills the limit exactly says no more.
  expect(directory.listElsewhere({ limit: 2, after: "e1" }, "ap")).toEqual({ items: [expect.objectContaining({ id: "e4" })] });
});
