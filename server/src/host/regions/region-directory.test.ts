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
