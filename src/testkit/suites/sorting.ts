/**
 * Sorting (RFC 7644 §3.4.2.3): the list order `compareListEntries` defines over `sortKeyOf` —
 * strings case-insensitively unless caseExact, a multi-valued attribute by its primary value,
 * numbers as numbers, missing values last ascending and first descending, ties by id ascending.
 */
import { expect } from "vitest";
import { conformanceTest, type ConformanceContext, type ConformanceSuite } from "../conformance-test.js";
import { METRICS_URN, createUser, idsOf, listResources, referenceOrder } from "./helpers.js";
import { seedPopulation, userViews, type Population, type UserName } from "./population.js";

type Order = "ascending" | "descending";

/** Lists the population sorted and compares with the reference order and, when given, the kit's own. */
async function checkSort(
  context: ConformanceContext,
  population: Population,
  path: string,
  order: Order,
  expected?: (ids: Readonly<Record<UserName, string>>) => readonly string[],
): Promise<void> {
  const sort = { path, order };
  const reference = referenceOrder("User", userViews(population), sort);
  const label = `sortBy ${path} ${order}`;
  if (expected) {
    const ids = Object.fromEntries(Object.entries(population.users).map(([name, user]) => [name, user.id])) as Record<UserName, string>;
    expect
      .soft(reference.map(population.nameOf), `kit self-check: compareListEntries for ${label}`)
      .toEqual(expected(ids).map(population.nameOf));
  }
  const result = await listResources(context, "User", { sort });
  expect.soft(idsOf(result.resources).map(population.nameOf), label).toEqual(reference.map(population.nameOf));
  expect.soft(result.totalResults, `totalResults for ${label}`).toBe(reference.length);
}

/** The two ids in id order: how a tie between them is broken. */
function tie(a: string, b: string): [string, string] {
  return a < b ? [a, b] : [b, a];
}

export const sortingSuite: ConformanceSuite = {
  title: "sorting",
  tests: [
    conformanceTest("sort by userName ascending and descending is case-insensitive", async (context) => {
      context.requireCapability("sort");
      const population = await seedPopulation(context);
      await checkSort(context, population, "userName", "ascending", (u) => [u.alice, u.bob, u.carol, u.dave, u.erin, u.frank]);
      await checkSort(context, population, "userName", "descending", (u) => [u.frank, u.erin, u.dave, u.carol, u.bob, u.alice]);
    }),

    conformanceTest("sort by a sub-attribute: missing values last ascending, first descending, ties by id", async (context) => {
      context.requireCapability("sort");
      const population = await seedPopulation(context);
      await checkSort(context, population, "name.familyName", "ascending", (u) => [
        ...tie(u.alice, u.frank),
        u.bob,
        u.carol,
        u.erin,
        u.dave,
      ]);
      await checkSort(context, population, "name.familyName", "descending", (u) => [
        u.dave,
        u.erin,
        u.carol,
        u.bob,
        ...tie(u.alice, u.frank),
      ]);
      await checkSort(context, population, "name.givenName", "ascending", (u) => [
        u.alice,
        u.bob,
        u.carol,
        u.frank,
        ...tie(u.dave, u.erin),
      ]);
    }),

    conformanceTest("sort by a multi-valued attribute uses the primary value, else the first", async (context) => {
      context.requireCapability("sort");
      const population = await seedPopulation(context);
      // carol's first e-mail, "aaa.carol@home.test", would sort first; her primary one sorts after bob's.
      await checkSort(context, population, "emails.value", "ascending", (u) => [u.alice, u.bob, u.carol, u.erin, ...tie(u.dave, u.frank)]);
      await checkSort(context, population, "emails.value", "descending", (u) => [...tie(u.dave, u.frank), u.erin, u.carol, u.bob, u.alice]);
      await checkSort(context, population, "emails", "ascending");
    }),

    conformanceTest("sort by integer and decimal attributes is numeric", async (context) => {
      context.requireCapability("sort");
      const population = await seedPopulation(context);
      await checkSort(context, population, `${METRICS_URN}:level`, "ascending", (u) => [
        u.erin,
        u.bob,
        ...tie(u.alice, u.frank),
        u.carol,
        u.dave,
      ]);
      await checkSort(context, population, `${METRICS_URN}:level`, "descending", (u) => [
        u.dave,
        u.carol,
        ...tie(u.alice, u.frank),
        u.bob,
        u.erin,
      ]);
      await checkSort(context, population, `${METRICS_URN}:score`, "ascending");
    }),

    conformanceTest("sort by externalId (caseExact), a boolean and a dateTime", async (context) => {
      context.requireCapability("sort");
      const population = await seedPopulation(context);
      // caseExact: "EXT-2" sorts before every lower-case "ext-…" by code unit.
      await checkSort(context, population, "externalId", "ascending", (u) => [
        u.bob,
        ...tie(u.alice, u.erin),
        u.carol,
        ...tie(u.dave, u.frank),
      ]);
      await checkSort(context, population, "active", "ascending");
      await checkSort(context, population, "active", "descending");
      await checkSort(context, population, "meta.lastModified", "descending", (u) => [u.carol, u.frank, u.erin, u.dave, u.bob, u.alice]);
      await checkSort(context, population, "meta.created", "ascending", (u) => [u.alice, u.bob, u.carol, u.dave, u.erin, u.frank]);
    }),

    conformanceTest("ties are broken by id ascending in both orders", async (context) => {
      context.requireCapability("sort");
      const users = [];
      for (let index = 0; index < 5; index++) {
        users.push(await createUser(context, `twin${index}@acme.test`, { name: { familyName: "Twin" } }));
      }
      const ids = idsOf(users).sort();
      for (const order of ["ascending", "descending"] as const) {
        const result = await listResources(context, "User", { sort: { path: "name.familyName", order } });
        expect(idsOf(result.resources), order).toEqual(ids);
      }
    }),

    conformanceTest("without a sort, resources are in id order", async (context) => {
      const population = await seedPopulation(context);
      const result = await listResources(context, "User");
      const expected = Object.values(population.users)
        .map((user) => user.id)
        .sort();
      expect(idsOf(result.resources).map(population.nameOf)).toEqual(expected.map(population.nameOf));
      expect(result.totalResults).toBe(6);
    }),

    conformanceTest("a sort applies to the filtered resources only", async (context) => {
      context.requireCapability("sort");
      const population = await seedPopulation(context);
      const result = await listResources(context, "User", { filter: "active eq true", sort: { path: "userName", order: "descending" } });
      expect(idsOf(result.resources).map(population.nameOf)).toEqual(["frank", "erin", "carol", "alice"]);
      expect(result.totalResults).toBe(4);
    }),
  ],
};
