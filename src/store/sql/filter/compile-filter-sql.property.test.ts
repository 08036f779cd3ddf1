/**
 * Property: for random users and random filters (text from a grammar over every attribute type,
 * operator, `and`/`or`/`not` and `attr[…]`, bound by `compileFilter` as the list endpoint does),
 * the ids the compiled SQL selects are exactly the ids `matchesFilter(resourceView(…))` accepts —
 * on SQLite always, on PostgreSQL when available. A second organization holds the same ids with
 * other attributes, so a condition that crossed tenants would show.
 */
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { testUsers } from "../../../scim/filter/filter-schema.fixture.js";
import { compileFilterSql } from "./compile-filter-sql.js";
import { referenceIds, resolvedFilter, rowsOf } from "./filter-agreement.fixture.js";
import { deleteRows, describeEachDatabase, insertRows, selectIds, type FilterTestDatabase } from "./filter-test-database.fixture.js";
import { randomFilter, randomUsers } from "./random-users.fixture.js";

const scenario = randomUsers.chain((users) =>
  fc.tuple(fc.constant(users), fc.array(randomFilter(users.map(({ resource }) => resource.id)), { minLength: 1, maxLength: 8 })),
);

describeEachDatabase("compileFilterSql matches matchesFilter on random users and filters", (target) => {
  let database: FilterTestDatabase;
  beforeAll(async () => {
    database = await target.open();
  });
  afterAll(async () => database?.close());

  it("selects exactly the resources matchesFilter accepts", async () => {
    let compared = 0;
    let nonTrivial = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async ([users, texts]) => {
        await deleteRows(database.db);
        await insertRows(database.db, rowsOf("o1", testUsers, users));
        const others = users.map(({ resource }, index) => ({
          resource: { ...resource, attributes: users[(index + 1) % users.length]!.resource.attributes },
        }));
        await insertRows(database.db, rowsOf("o2", testUsers, others));
        for (const text of texts) {
          const filter = resolvedFilter(testUsers, text);
          const expected = referenceIds("User", users, filter);
          const actual = await selectIds(database.db, "o1", "User", compileFilterSql(filter, { dialect: database.dialect, resource: "r" }));
          expect(actual, `filter: ${text}`).toEqual(expected);
          compared += 1;
          if (expected.length > 0 && expected.length < users.length) nonTrivial += 1;
        }
      }),
      { numRuns: 150 },
    );
    // Agreement on empty and full results alone would prove little.
    expect(nonTrivial / compared).toBeGreaterThan(0.2);
  }, 60_000);
});
