/**
 * Keyset paging behind RFC 9865 cursors: the core passes the sort key and id of the previous page's
 * last resource, and the store returns what comes strictly after that position in the list order.
 * Walking page by page visits every match exactly once, whatever is written meanwhile.
 */
import { expect } from "vitest";
import { sortKeyOf } from "../../scim/list/sort-key.js";
import type { SortPosition, StoredResource } from "../../store/resource-store.js";
import { conformanceTest, type ConformanceContext, type ConformanceSuite } from "../conformance-test.js";
import { createUser, idsOf, listResources, pathOf, referenceOrder, viewOf } from "./helpers.js";
import { seedPopulation, userViews, type Population } from "./population.js";

interface Sort {
  readonly path: string;
  readonly order: "ascending" | "descending";
}

interface WalkOptions {
  readonly filter?: string;
  readonly sort?: Sort;
  readonly count: number;
  /** Runs after each page, with the 1-based page number and the page's last resource. */
  readonly between?: (page: number, last: StoredResource) => Promise<void>;
}

// A store that ignores `after` would page forever; no walk of the kit needs more pages than this.
const MAX_PAGES = 50;

/** The position a cursor encodes for `resource`: its sort key (null without a sort) and its id. */
function positionOf(resource: StoredResource, sort: Sort | undefined): SortPosition {
  return { key: sort ? sortKeyOf(viewOf("User", resource), pathOf("User", sort.path)) : null, id: resource.id };
}

/** Walks the list with cursor pages until a page comes back short; returns the ids seen, in order, and each page's total. */
async function walk(context: ConformanceContext, options: WalkOptions): Promise<{ readonly ids: string[]; readonly totals: number[] }> {
  const ids: string[] = [];
  const totals: number[] = [];
  let after: SortPosition | undefined;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const result = await listResources(context, "User", {
      ...(options.filter === undefined ? {} : { filter: options.filter }),
      ...(options.sort === undefined ? {} : { sort: options.sort }),
      page: { kind: "cursor", count: options.count, ...(after ? { after } : {}) },
    });
    expect(result.resources.length, `page ${page} holds at most count resources`).toBeLessThanOrEqual(options.count);
    ids.push(...idsOf(result.resources));
    totals.push(result.totalResults);
    const last = result.resources.at(-1);
    if (!last || result.resources.length < options.count) return { ids, totals };
    after = positionOf(last, options.sort);
    await options.between?.(page, last);
  }
  throw new Error(`The cursor walk did not end after ${MAX_PAGES} pages: is CursorPage.after ignored?`);
}

async function checkWalk(
  context: ConformanceContext,
  population: Population,
  sort: Sort | undefined,
  counts: readonly number[],
): Promise<void> {
  const expected = referenceOrder("User", userViews(population), sort).map(population.nameOf);
  for (const count of counts) {
    const label = `${sort ? `sortBy ${sort.path} ${sort.order}` : "no sort"}, count ${count}`;
    const { ids, totals } = await walk(context, { count, ...(sort ? { sort } : {}) });
    expect.soft(ids.map(population.nameOf), label).toEqual(expected);
    expect
      .soft(
        totals.every((total) => total === 6),
        `${label}: every page's totalResults is 6, got ${totals.join(", ")}`,
      )
      .toBe(true);
  }
}

export const cursorSuite: ConformanceSuite = {
  title: "cursor paging",
  tests: [
    conformanceTest("cursor pages visit every resource once in id order", async (context) => {
      context.requireCapability("cursor");
      const population = await seedPopulation(context);
      await checkWalk(context, population, undefined, [1, 2, 4, 6, 10]);
    }),

    conformanceTest("cursor pages follow an ascending sort, across ties and missing values", async (context) => {
      context.requireCapability("cursor");
      context.requireCapability("sort");
      const population = await seedPopulation(context);
      await checkWalk(context, population, { path: "name.familyName", order: "ascending" }, [1, 2, 4]);
      await checkWalk(context, population, { path: "userName", order: "ascending" }, [1, 5]);
    }),

    conformanceTest("cursor pages follow a descending sort, missing values first", async (context) => {
      context.requireCapability("cursor");
      context.requireCapability("sort");
      const population = await seedPopulation(context);
      await checkWalk(context, population, { path: "name.familyName", order: "descending" }, [1, 2, 4]);
      await checkWalk(context, population, { path: "emails.value", order: "descending" }, [1, 3]);
    }),

    conformanceTest("cursor pages honour a filter, and every page reports the filter's total", async (context) => {
      context.requireCapability("cursor");
      context.requireCapability("sort");
      const population = await seedPopulation(context);
      const sort = { path: "userName", order: "descending" } as const;
      const { ids, totals } = await walk(context, { filter: "active eq true", sort, count: 1 });
      expect(ids.map(population.nameOf)).toEqual(["frank", "erin", "carol", "alice"]);
      expect(totals).toEqual([4, 4, 4, 4, 4]);
    }),

    conformanceTest("resources created mid-walk: one behind the cursor is not visited, one ahead is, nothing twice", async (context) => {
      context.requireCapability("cursor");
      context.requireCapability("sort");
      const population = await seedPopulation(context);
      const created: Record<string, string> = {};
      const sort = { path: "userName", order: "ascending" } as const;
      const { ids } = await walk(context, {
        sort,
        count: 2,
        between: async (page) => {
          if (page !== 1) return;
          created["aaron"] = (await createUser(context, "aaron@acme.test")).id;
          created["zoe"] = (await createUser(context, "zoe@acme.test")).id;
        },
      });
      const name = (id: string): string => Object.entries(created).find(([, value]) => value === id)?.[0] ?? population.nameOf(id);
      expect(ids.map(name)).toEqual(["alice", "bob", "carol", "dave", "erin", "frank", "zoe"]);
      expect(new Set(ids).size).toBe(ids.length);
    }),

    conformanceTest("a cursor still works after the resource it names is deleted", async (context) => {
      context.requireCapability("cursor");
      context.requireCapability("sort");
      const population = await seedPopulation(context);
      const { ids } = await walk(context, {
        sort: { path: "userName", order: "ascending" },
        count: 2,
        between: async (page, last) => {
          if (page === 1) await context.store.delete({ orgId: context.orgId, resourceType: "User", id: last.id });
        },
      });
      expect(ids.map(population.nameOf)).toEqual(["alice", "bob", "carol", "dave", "erin", "frank"]);
    }),

    conformanceTest("a cursor after the last resource gives an empty page and the total", async (context) => {
      context.requireCapability("cursor");
      const population = await seedPopulation(context);
      const lastId = referenceOrder("User", userViews(population), undefined).at(-1) ?? "";
      const result = await listResources(context, "User", { page: { kind: "cursor", count: 3, after: { key: null, id: lastId } } });
      expect(result.resources).toEqual([]);
      expect(result.totalResults).toBe(6);
    }),
  ],
};
