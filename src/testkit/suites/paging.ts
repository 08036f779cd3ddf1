/**
 * Index paging (RFC 7644 §3.4.2.4): the core clamps `startIndex` (1-based) and `count`; the store
 * returns that window of the list order and always the total of all matches.
 */
import { expect } from "vitest";
import { conformanceTest, type ConformanceSuite } from "../conformance-test.js";
import { idsOf, listResources, referenceOrder } from "./helpers.js";
import { seedPopulation, userViews } from "./population.js";

export const pagingSuite: ConformanceSuite = {
  title: "index paging",
  tests: [
    conformanceTest("startIndex and count select a window of the list order", async (context) => {
      const population = await seedPopulation(context);
      const order = referenceOrder("User", userViews(population), undefined);
      for (const [startIndex, count] of [
        [1, 2],
        [2, 3],
        [5, 2],
        [6, 1],
        [4, 10],
      ] as const) {
        const page = await listResources(context, "User", { page: { kind: "index", startIndex, count } });
        const label = `startIndex ${startIndex}, count ${count}`;
        expect(idsOf(page.resources).map(population.nameOf), label).toEqual(
          order.slice(startIndex - 1, startIndex - 1 + count).map(population.nameOf),
        );
        expect(page.totalResults, label).toBe(6);
      }
    }),

    conformanceTest("a startIndex past the end gives no resources and the full total", async (context) => {
      await seedPopulation(context);
      for (const startIndex of [7, 100]) {
        const page = await listResources(context, "User", { page: { kind: "index", startIndex, count: 5 } });
        expect(page.resources).toEqual([]);
        expect(page.totalResults).toBe(6);
      }
    }),

    conformanceTest("count 0 gives no resources and the total", async (context) => {
      await seedPopulation(context);
      const all = await listResources(context, "User", { page: { kind: "index", startIndex: 1, count: 0 } });
      expect(all.resources).toEqual([]);
      expect(all.totalResults).toBe(6);
      const filtered = await listResources(context, "User", { filter: "active eq true", page: { kind: "index", startIndex: 1, count: 0 } });
      expect(filtered.resources).toEqual([]);
      expect(filtered.totalResults).toBe(4);
    }),

    conformanceTest("with a filter, the window is taken from the matches and the total counts all of them", async (context) => {
      const population = await seedPopulation(context);
      const { users } = population;
      const matches = referenceOrder(
        "User",
        [users.alice, users.carol, users.erin, users.frank].map((user) => user.view),
        undefined,
      );
      const page = await listResources(context, "User", { filter: "active eq true", page: { kind: "index", startIndex: 2, count: 2 } });
      expect(idsOf(page.resources).map(population.nameOf)).toEqual(matches.slice(1, 3).map(population.nameOf));
      expect(page.totalResults).toBe(4);
      const last = await listResources(context, "User", { filter: "active eq true", page: { kind: "index", startIndex: 4, count: 2 } });
      expect(idsOf(last.resources).map(population.nameOf)).toEqual(matches.slice(3).map(population.nameOf));
      expect(last.totalResults).toBe(4);
    }),

    conformanceTest("with a sort, the window is taken from the sorted order", async (context) => {
      context.requireCapability("sort");
      const population = await seedPopulation(context);
      const sort = { path: "userName", order: "descending" } as const;
      const order = referenceOrder("User", userViews(population), sort);
      const page = await listResources(context, "User", { sort, page: { kind: "index", startIndex: 2, count: 3 } });
      expect(idsOf(page.resources).map(population.nameOf)).toEqual(order.slice(1, 4).map(population.nameOf));
      // Hand-written: userName descending, case-insensitively, is frank, erin, dave, carol, bob, alice.
      expect(idsOf(page.resources).map(population.nameOf)).toEqual(["erin", "dave", "carol"]);
      expect(page.totalResults).toBe(6);
    }),
  ],
};
