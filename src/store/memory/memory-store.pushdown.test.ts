import { describe, expect, it, vi } from "vitest";
import { matchesFilter } from "../../scim/filter/matches-filter.js";
import { memoryStore } from "./memory-store.js";
import { addGroup, addUser, filterOf, groups, listAll, users } from "./memory-store.fixture.js";

// Counting the resources the store evaluates is how we see, without timing anything, whether an
// equality filter was answered from an index (one evaluation) or by a scan (one per resource).
vi.mock(import("../../scim/filter/matches-filter.js"), async (importOriginal) => {
  const original = await importOriginal();
  return { ...original, matchesFilter: vi.fn(original.matchesFilter) };
});

const evaluated = vi.mocked(matchesFilter);
const ORG = "org-a";
const SIZE = 200;

async function population() {
  const store = memoryStore();
  for (let index = 0; index < SIZE; index++) {
    await addUser(store, ORG, `u${index}`, `user-${index}`, { externalId: `ext-${index}`, title: index % 2 ? "odd" : "even" });
  }
  evaluated.mockClear();
  return store;
}

describe("memoryStore: filter pushdown", () => {
  it.each([
    ['id eq "u150"', ["u150"]],
    ['externalId eq "ext-150"', ["u150"]],
    ['userName eq "USER-150"', ["u150"]],
    ['userName eq "user-150" and title eq "even"', ["u150"]],
    ['title eq "even" and userName eq "user-151"', []],
    ['userName eq "user-1" or id eq "u2"', ["u1", "u2"]],
    ['userName eq "nobody"', []],
  ])("answers %s from an index, evaluating only the candidates", async (text, expected) => {
    const store = await population();
    const result = await listAll(store, ORG, "User", { filter: filterOf(users, text) });
    expect(result.resources.map((resource) => resource.id)).toEqual(expected);
    expect(evaluated.mock.calls.length).toBeLessThanOrEqual(2);
  });

  it.each(['title eq "odd"', 'userName sw "user-15"', 'not (userName eq "user-1")', 'userName eq "user-1" or title eq "odd"'])(
    "scans for %s, which no index answers",
    async (text) => {
      const store = await population();
      await listAll(store, ORG, "User", { filter: filterOf(users, text) });
      expect(evaluated).toHaveBeenCalledTimes(SIZE);
    },
  );

  it("answers a group displayName lookup from the unique index", async () => {
    const store = memoryStore();
    for (let index = 0; index < 50; index++) await addGroup(store, ORG, `g${index}`, `Team ${index}`);
    evaluated.mockClear();
    const result = await listAll(store, ORG, "Group", { filter: filterOf(groups, 'displayName eq "team 7"') });
    expect(result.resources.map((resource) => resource.id)).toEqual(["g7"]);
    expect(evaluated).toHaveBeenCalledTimes(1);
  });
});
