/**
 * The replica of other regions' directories (issue 30): a region's entries replaced whole by its
 * feed, all or nothing, beside every other region's; listed by id; apart from the organizations
 * the store serves itself.
 */
import { expect } from "vitest";
import type { RegionDirectoryEntry } from "@scimkit/server";
import {
  analyticsConformanceTest,
  type AnalyticsConformanceContext,
  type AnalyticsConformanceSuite,
} from "../analytics-conformance-test.js";
import { ALL, addOrganization, rejectionOf, time } from "./helpers.js";

/** An entry a test changes after handing it over or reading it. */
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** An entry homed in `homeRegion`, a root unless `overrides` give it a parent. */
function entry(id: string, homeRegion: string, overrides: Partial<RegionDirectoryEntry> = {}): RegionDirectoryEntry {
  return { id, name: `Organization ${id}`, homeRegion, status: "active", updatedAt: time(0), ...overrides };
}

/** Entries in id order, as `listRegionEntries` returns them. */
function inIdOrder(entries: readonly RegionDirectoryEntry[]): RegionDirectoryEntry[] {
  return [...entries].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** `count` entries of `region`, ids `<prefix>-00000`, … in id order. */
function manyEntries(region: string, prefix: string, count: number): RegionDirectoryEntry[] {
  return Array.from({ length: count }, (_, index) =>
    entry(`${prefix}-${String(index).padStart(5, "0")}`, region, index % 3 === 0 ? {} : { parentId: `${prefix}-00000` }),
  );
}

/** The replica of the checks that start from one: two regions, one entry with a parent. */
async function replicate(context: AnalyticsConformanceContext): Promise<readonly RegionDirectoryEntry[]> {
  const eu = [entry("eu-b", "eu", { parentId: "eu-a", status: "suspended", updatedAt: time(5) }), entry("eu-a", "eu")];
  const ap = [entry("ap-a", "ap")];
  await context.analytics.replaceRegionEntries("eu", eu);
  await context.analytics.replaceRegionEntries("ap", ap);
  return inIdOrder([...eu, ...ap]);
}

export const regionDirectorySuite: AnalyticsConformanceSuite = {
  title: "region directory",
  tests: [
    analyticsConformanceTest(
      "listRegionEntries returns every region's entries by id, as replaced, parentId absent for a root",
      async (context) => {
        expect(await context.analytics.listRegionEntries()).toEqual([]);
        const replicated = await replicate(context);
        const listed = await context.analytics.listRegionEntries();
        expect(listed).toEqual(replicated);
        expect(listed.map((listedEntry) => listedEntry.id)).toEqual(["ap-a", "eu-a", "eu-b"]);
        expect(listed.filter((listedEntry) => "parentId" in listedEntry).map((listedEntry) => listedEntry.id)).toEqual(["eu-b"]);
      },
    ),

    analyticsConformanceTest("the entries listed and the entries given are the caller's, never the store's", async (context) => {
      const given: Mutable<RegionDirectoryEntry> = entry("eu-a", "eu", { parentId: "eu-root" });
      await context.analytics.replaceRegionEntries("eu", [given]);
      given.name = "Changed by the caller";
      const [listed] = (await context.analytics.listRegionEntries()) as Mutable<RegionDirectoryEntry>[];
      if (listed) listed.name = "Changed by the reader";
      expect(await context.analytics.listRegionEntries()).toEqual([entry("eu-a", "eu", { parentId: "eu-root" })]);
    }),

    analyticsConformanceTest("replacing a region replaces its entries whole and leaves other regions' untouched", async (context) => {
      const replicated = await replicate(context);
      const eu = [entry("eu-c", "eu"), entry("eu-a", "eu", { name: "Renamed", status: "suspended", updatedAt: time(9) })];
      await context.analytics.replaceRegionEntries("eu", eu);
      const ap = replicated.filter((replicatedEntry) => replicatedEntry.homeRegion === "ap");
      // eu-b, no longer in the feed, is gone; eu-a reads as the new feed gives it.
      expect(await context.analytics.listRegionEntries()).toEqual(inIdOrder([...ap, ...eu]));
    }),

    analyticsConformanceTest("replacing a region by no entries empties it, and only it", async (context) => {
      const replicated = await replicate(context);
      await context.analytics.replaceRegionEntries("eu", []);
      expect(await context.analytics.listRegionEntries()).toEqual(
        replicated.filter((replicatedEntry) => replicatedEntry.homeRegion === "ap"),
      );
      // A region never replaced before may be emptied too: nothing to do.
      await context.analytics.replaceRegionEntries("us", []);
      await context.analytics.replaceRegionEntries("ap", []);
      expect(await context.analytics.listRegionEntries()).toEqual([]);
    }),

    analyticsConformanceTest(
      "an entry homed in another region rejects the replacement with an Error and changes nothing",
      async (context) => {
        const replicated = await replicate(context);
        // Listed last: a store must check every entry before writing the first.
        const refused = [entry("eu-c", "eu"), entry("eu-d", "eu"), entry("us-a", "us")];
        expect(await rejectionOf(context.analytics.replaceRegionEntries("eu", refused))).toBeInstanceOf(Error);
        expect(await context.analytics.listRegionEntries()).toEqual(replicated);
        // The same rule for a region with no entries yet.
        expect(await rejectionOf(context.analytics.replaceRegionEntries("us", [entry("us-a", "eu")]))).toBeInstanceOf(Error);
        expect(await context.analytics.listRegionEntries()).toEqual(replicated);
      },
    ),

    analyticsConformanceTest("two entries of one id reject the replacement and change nothing", async (context) => {
      const replicated = await replicate(context);
      const refused = [entry("eu-c", "eu"), entry("eu-d", "eu"), entry("eu-c", "eu", { name: "Twice" })];
      await rejectionOf(context.analytics.replaceRegionEntries("eu", refused));
      expect(await context.analytics.listRegionEntries()).toEqual(replicated);
    }),

    analyticsConformanceTest(
      "an id another region's entry holds rejects the replacement, late in a large feed, and changes nothing",
      async (context) => {
        const replicated = await replicate(context);
        // The held id last of 2,000, so a store writing a feed in steps has written some of it.
        const refused = [...manyEntries("eu", "eu-new", 1_999), entry("ap-a", "eu")];
        await rejectionOf(context.analytics.replaceRegionEntries("eu", refused));
        expect(await context.analytics.listRegionEntries()).toEqual(replicated);
        // Once the old home's feed no longer lists it, the organization may move.
        await context.analytics.replaceRegionEntries("ap", []);
        await context.analytics.replaceRegionEntries("eu", [entry("ap-a", "eu")]);
        expect(await context.analytics.listRegionEntries()).toEqual([entry("ap-a", "eu")]);
      },
      { timeoutMs: 60_000 },
    ),

    analyticsConformanceTest(
      "a feed of 2,000 entries is replaced and listed whole, and replaced again by a smaller one",
      async (context) => {
        const ap = [entry("ap-a", "ap")];
        await context.analytics.replaceRegionEntries("ap", ap);
        const eu = manyEntries("eu", "eu", 2_000);
        await context.analytics.replaceRegionEntries("eu", eu);
        expect(await context.analytics.listRegionEntries()).toEqual([...ap, ...eu]);
        const smaller = manyEntries("eu", "eu", 700).map((kept) => ({ ...kept, updatedAt: time(1) }));
        await context.analytics.replaceRegionEntries("eu", smaller);
        expect(await context.analytics.listRegionEntries()).toEqual([...ap, ...smaller]);
      },
      { timeoutMs: 60_000 },
    ),

    analyticsConformanceTest(
      "the replica is no local organization: not listed as one, and untouched by creating and deleting them",
      async (context) => {
        const replicated = await replicate(context);
        expect(await context.analytics.getOrganization(ALL, "eu-a")).toBeUndefined();
        expect((await context.analytics.listOrganizations(ALL, { limit: 10 })).items).toEqual([]);
        const local = await addOrganization(context);
        expect(await context.analytics.deleteOrganization(ALL, local.id)).toBe(true);
        // Not an organization of this store: nothing to delete, and its entry stays.
        expect(await context.analytics.deleteOrganization(ALL, "eu-a")).toBe(false);
        expect(await context.analytics.listRegionEntries()).toEqual(replicated);
      },
    ),
  ],
};
