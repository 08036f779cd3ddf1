/**
 * Property: the SQL list order is `compareListEntries` over `sortKeyOf` for every sort path (each
 * key type and source: JSON scalars, the primary-else-first element of a multi-valued attribute,
 * columns, the entity tag), both directions and no sort at all; and keyset pages —
 * `keysetAfterSql` from the position the core encodes of each page's last resource, or from any
 * position, present or not — continue exactly where the reference order does.
 */
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { testUsers } from "../../../scim/filter/filter-schema.fixture.js";
import { compareListEntries, sortKeyOf, type ListEntry, type SortKey } from "../../../scim/list/sort-key.js";
import type { SortPosition, SortSpec } from "../../resource-store.js";
import { rowsOf, viewOf, type FixtureResource } from "./filter-agreement.fixture.js";
import { deleteRows, describeEachDatabase, insertRows, type FilterTestDatabase } from "./filter-test-database.fixture.js";
import { randomUsers, SORT_PATHS, word } from "./random-users.fixture.js";
import { keysetAfterSql, orderBySql } from "./sort-sql.js";

function sortOf(path: string | null, order: SortSpec["order"]): SortSpec | undefined {
  if (path === null) return undefined;
  const resolution = testUsers.resolvePath(path);
  if (!resolution.ok) throw new Error(resolution.reason);
  return { path: resolution.path, order };
}

function entriesOf(users: readonly FixtureResource[], sort: SortSpec | undefined): ListEntry[] {
  return users.map((user) => ({ key: sort ? sortKeyOf(viewOf("User", user), sort.path) : null, id: user.resource.id }));
}

function referenceOrder(users: readonly FixtureResource[], sort: SortSpec | undefined, after?: SortPosition): string[] {
  const order = sort?.order ?? "ascending";
  return entriesOf(users, sort)
    .filter((entry) => after === undefined || compareListEntries(entry, after, order) > 0)
    .sort((a, b) => compareListEntries(a, b, order))
    .map((entry) => entry.id);
}

const scenario = randomUsers.chain((users) => {
  const ids = users.map(({ resource }) => resource.id);
  const key: fc.Arbitrary<SortKey> = fc.oneof(fc.constant(null), word(2), fc.constantFrom(-1.5, 0, 1, 3, 1e21), fc.boolean());
  const id = ids.length > 0 ? fc.oneof(fc.constantFrom(...ids), word(2)) : word(2);
  return fc.record({
    users: fc.constant(users),
    path: fc.option(fc.constantFrom(...SORT_PATHS), { freq: 8 }),
    order: fc.constantFrom<SortSpec["order"]>("ascending", "descending"),
    pageSize: fc.integer({ min: 1, max: 4 }),
    positions: fc.array(fc.record({ key, id }), { maxLength: 3 }),
    // Positions taken from the data itself: ties on the key with ids on either side.
    keyedPositions: fc.array(fc.tuple(fc.nat(), id), { maxLength: 2 }),
  });
});

describeEachDatabase("orderBySql and keysetAfterSql follow compareListEntries", (target) => {
  let database: FilterTestDatabase;
  beforeAll(async () => {
    database = await target.open();
  });
  afterAll(async () => database?.close());

  async function listIds(sort: SortSpec | undefined, after?: SortPosition, limit?: number): Promise<string[]> {
    const context = { dialect: database.dialect, resource: "r" };
    let query = database.db
      .selectFrom("scimkit_resources as r")
      .select("r.id")
      .where("r.org_id", "=", "o1")
      .where("r.resource_type", "=", "User");
    if (after) query = query.where(keysetAfterSql(sort, after, context));
    for (const item of orderBySql(sort, context)) query = query.orderBy(item);
    if (limit !== undefined) query = query.limit(limit);
    return (await query.execute()).map((row) => row.id);
  }

  it("orders and pages exactly as the reference", async () => {
    let pagedKeys = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async ({ users, path, order, pageSize, positions, keyedPositions }) => {
        await deleteRows(database.db);
        await insertRows(database.db, rowsOf("o1", testUsers, users));
        const sort = sortOf(path, order);
        const label = `sort ${path ?? "(none)"} ${order}`;
        expect(await listIds(sort), label).toEqual(referenceOrder(users, sort));

        // Keyset paging from the position the core encodes for the last resource of each page.
        const views = new Map(users.map((user) => [user.resource.id, viewOf("User", user)]));
        const paged: string[] = [];
        let after: SortPosition | undefined;
        for (let page = 0; page <= users.length; page += 1) {
          const ids = await listIds(sort, after, pageSize);
          paged.push(...ids);
          const last = ids[ids.length - 1];
          if (last === undefined) break;
          after = { key: sort ? sortKeyOf(views.get(last)!, sort.path) : null, id: last };
          if (after.key !== null) pagedKeys += 1;
        }
        expect(paged, `${label}, pages of ${pageSize}`).toEqual(referenceOrder(users, sort));

        const entries = entriesOf(users, sort);
        const fromData = keyedPositions.flatMap(([index, id]) => {
          const entry = entries[index % Math.max(entries.length, 1)];
          return entry ? [{ key: entry.key, id }] : [];
        });
        for (const position of [...positions, ...fromData]) {
          const from = sort ? position : { key: null, id: position.id };
          expect(await listIds(sort, from), `${label} after ${JSON.stringify(from)}`).toEqual(referenceOrder(users, sort, from));
        }
      }),
      { numRuns: 150 },
    );
    expect(pagedKeys).toBeGreaterThan(0);
  }, 60_000);
});

describeEachDatabase("orderBySql on members", (target) => {
  let database: FilterTestDatabase;
  beforeAll(async () => {
    database = await target.open();
  });
  afterAll(async () => database?.close());

  it("sorts groups by their first member, as sortKeyOf reads the view", async () => {
    const { createSchemaRegistry } = await import("../../../scim/schema/schema-registry.js");
    const { canonicalAttributes } = await import("./filter-agreement.fixture.js");
    const groups = createSchemaRegistry().resourceType("Group")!;
    const group = (id: string, members: readonly (readonly [string, string])[]): FixtureResource => ({
      resource: {
        id,
        version: "1",
        created: "2020-01-01T00:00:00.000Z",
        lastModified: "2020-01-01T00:00:00.000Z",
        attributes: canonicalAttributes(groups, { displayName: id }),
      },
      members: members.map(([value, type]) => ({ value, type })),
    });
    const teams = [
      group("g1", [
        ["b", "User"],
        ["a", "User"],
      ]),
      group("g2", [["A", "Group"]]),
      group("g3", []),
      group("g4", [
        ["c", "user"],
        ["a", "User"],
      ]),
    ];
    await insertRows(database.db, rowsOf("o1", groups, teams));
    const context = { dialect: database.dialect, resource: "r" };
    for (const text of ["members", "members.value", "members.type", "members.display"]) {
      for (const order of ["ascending", "descending"] as const) {
        const resolution = groups.resolvePath(text);
        if (!resolution.ok) throw new Error(resolution.reason);
        const sort: SortSpec = { path: resolution.path, order };
        let query = database.db
          .selectFrom("scimkit_resources as r")
          .select("r.id")
          .where("r.org_id", "=", "o1")
          .where("r.resource_type", "=", "Group");
        for (const item of orderBySql(sort, context)) query = query.orderBy(item);
        const expected = teams
          .map((team) => ({ key: sortKeyOf(viewOf("Group", team), sort.path), id: team.resource.id }))
          .sort((a, b) => compareListEntries(a, b, order))
          .map((entry) => entry.id);
        expect(
          (await query.execute()).map((row) => row.id),
          `${text} ${order}`,
        ).toEqual(expected);
      }
    }
  });
});
