/**
 * Property (issue 29): a `startIndex` page the SQL store reads from a remembered position is
 * exactly the page a plain OFFSET query returns at that moment — through creates and deletes
 * made between the pages by this store and by a second one on the same database (another
 * process, whose writes this one hears of only through the list generation), through an
 * organization deleted and created again, for the default order and the orders by `id` and
 * `meta.created`, at any count. On a SQLite file and on PostgreSQL.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileFilter } from "../../scim/filter/resolve-filter.js";
import { addUser, pathOf, users } from "../memory/memory-store.fixture.js";
import { type RememberedPositions, rememberedPositions } from "../remembered-positions.js";
import type { ListRequest, SortSpec } from "../resource-store.js";
import { uniqueKeysOf } from "../unique-keys.js";
import { listResources } from "./list-resources.js";
import { createTestSchema, describePostgres, type TestSchema } from "./postgres-test-database.fixture.js";
import { hasMemberList } from "./select-resource.js";
import { type SqlStore, sqlStore } from "./sql-store.js";

type Command =
  | { readonly kind: "create"; readonly by: 0 | 1; readonly minute: number }
  | { readonly kind: "delete"; readonly by: 0 | 1; readonly pick: number }
  | { readonly kind: "page"; readonly startIndex: number; readonly count: number; readonly sort: number }
  | { readonly kind: "next"; readonly count: number }
  | { readonly kind: "recreate" };

const SORTS: readonly (SortSpec | undefined)[] = [
  undefined,
  { path: pathOf(users, "id"), order: "ascending" },
  { path: pathOf(users, "meta.created"), order: "descending" },
  { path: pathOf(users, "meta.created"), order: "ascending" },
];

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("create" as const), by: fc.constantFrom(0 as const, 1 as const), minute: fc.nat(3) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("delete" as const), by: fc.constantFrom(0 as const, 1 as const), pick: fc.nat() }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("page" as const),
      startIndex: fc.integer({ min: 1, max: 12 }),
      count: fc.integer({ min: 1, max: 5 }),
      sort: fc.nat(SORTS.length - 1),
    }),
  },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("next" as const), count: fc.integer({ min: 1, max: 5 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "recreate" as const }) },
);

function agreement(open: () => Promise<readonly [SqlStore, SqlStore]>, runs: number): void {
  let stores: readonly [SqlStore, SqlStore];
  beforeAll(async () => {
    stores = await open();
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
  });

  it("gives the OFFSET page at every step of walks interleaved with writes from two stores", async () => {
    let found = 0;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 5, maxLength: 40 }), async (commands) => {
        run += 1;
        const orgId = `walk-${run}`;
        const [reader] = stores;
        const positions = rememberedPositions();
        // Counts the positions found for a page: the property is about followed ones, not only stored ones.
        const tracked: RememberedPositions = {
          ...positions,
          get(...args) {
            const position = positions.get(...args);
            if (position !== undefined) found += 1;
            return position;
          },
        };
        const ids: string[] = [];
        let serial = 0;
        let walk: { startIndex: number; sort: SortSpec | undefined } = { startIndex: 1, sort: undefined };
        for (const step of commands) {
          if (step.kind === "create") {
            serial += 1;
            const id = `u-${String(serial).padStart(3, "0")}-${step.by}`;
            const attributes = { userName: id };
            await stores[step.by].create({
              orgId,
              resourceType: "User",
              id,
              now: `2026-12-01T00:0${step.minute}:00.000Z`,
              attributes,
              uniqueKeys: uniqueKeysOf(users, attributes),
              unknownMembers: "ignore",
            });
            ids.push(id);
            continue;
          }
          if (step.kind === "delete") {
            if (ids.length === 0) continue;
            const [id] = ids.splice(step.pick % ids.length, 1);
            await stores[step.by].delete({ orgId, resourceType: "User", id: id as string });
            continue;
          }
          if (step.kind === "recreate") {
            await stores[1].deleteOrganization?.(orgId);
            ids.length = 0;
            continue;
          }
          if (step.kind === "page") walk = { startIndex: step.startIndex, sort: SORTS[step.sort] };
          const request: ListRequest = {
            orgId,
            resourceType: "User",
            ...(walk.sort ? { sort: walk.sort } : {}),
            page: { kind: "index", startIndex: walk.startIndex, count: step.count },
            members: false,
          };
          const remembered = await listResources(reader.db, reader.dialect, request, hasMemberList, tracked);
          const plain = await listResources(reader.db, reader.dialect, request, hasMemberList);
          expect(remembered.resources.map((resource) => resource.id)).toEqual(plain.resources.map((resource) => resource.id));
          expect(remembered.totalResults).toBe(plain.totalResults);
          walk = { ...walk, startIndex: walk.startIndex + remembered.resources.length };
        }
      }),
      { numRuns: runs },
    );
    expect(found).toBeGreaterThan(0);
  });

  it("follows a position while the list's generation holds, and no longer once a create moves it", async () => {
    const [reader, other] = stores;
    const orgId = "planted";
    const create = (store: SqlStore, id: string) => addUser(store, orgId, id, id);
    for (const id of ["a", "b", "c", "d", "e"]) await create(reader, id);
    const positions = rememberedPositions();
    const page = (startIndex: number): ListRequest => ({
      orgId,
      resourceType: "User",
      page: { kind: "index", startIndex, count: 2 },
      members: false,
    });
    const ids = async (startIndex: number) =>
      (await listResources(reader.db, reader.dialect, page(startIndex), hasMemberList, positions)).resources.map((resource) => resource.id);
    expect(await ids(1)).toEqual(["a", "b"]);
    const remembered = positions.get(orgId, "User\n", 2);
    expect(remembered).toMatchObject({ after: { key: null, id: "b" }, total: 5 });
    if (!remembered) return;
    // A planted position at the same generation is followed: the page starts after "c", not at offset 2.
    positions.set(orgId, "User\n", 2, { ...remembered, after: { key: null, id: "c" }, total: 99 });
    expect(await listResources(reader.db, reader.dialect, page(3), hasMemberList, positions)).toMatchObject({ totalResults: 99 });
    positions.set(orgId, "User\n", 2, { ...remembered, after: { key: null, id: "c" } });
    expect(await ids(3)).toEqual(["d", "e"]);
    // Another store's create moves the generation: the planted position is ignored, OFFSET answers.
    await create(other, "bb");
    expect(await ids(3)).toEqual(["bb", "c"]);
  });

  it("pages a filtered list by OFFSET, whatever is remembered", async () => {
    const [reader] = stores;
    const positions = rememberedPositions();
    const filter = compileFilter(users, 'userName sw "u"');
    if (!filter.ok) throw new Error(filter.error.detail);
    for (const id of ["f-1", "f-2"]) {
      await reader.create({
        orgId: "filtered",
        resourceType: "User",
        id,
        now: "2026-12-01T00:00:00.000Z",
        attributes: { userName: `u${id}` },
        uniqueKeys: uniqueKeysOf(users, { userName: `u${id}` }),
        unknownMembers: "ignore",
      });
    }
    const request: ListRequest = {
      orgId: "filtered",
      resourceType: "User",
      filter: filter.value,
      page: { kind: "index", startIndex: 1, count: 1 },
      members: false,
    };
    await listResources(reader.db, reader.dialect, request, hasMemberList, positions);
    expect(positions.get("filtered", "User\n", 1)).toBeUndefined();
  });
}

describe("remembered startIndex positions on a SQLite file", () => {
  let directory: string;
  agreement(async () => {
    directory = mkdtempSync(join(tmpdir(), "scimkit-positions-"));
    const file = join(directory, "scim.db");
    const first = await sqlStore({ sqlite: file });
    return [first, await sqlStore({ sqlite: file })] as const;
  }, 60);
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
});

describePostgres("remembered startIndex positions on PostgreSQL", (url) => {
  let schema: TestSchema;
  agreement(async () => {
    schema = await createTestSchema(url);
    const first = await sqlStore({ postgres: schema.pool() });
    return [first, await sqlStore({ postgres: schema.pool() })] as const;
  }, 25);
  afterAll(() => schema.drop());
});
