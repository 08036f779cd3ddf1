/**
 * List queries over HTTP (RFC 7644 §3.4.2, §3.4.3, §3.9): filters, index paging with clamping,
 * sorting, attribute projection, and the refusal of malformed or repeated parameters.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GROUP_SCHEMA, LIST_SCHEMA, USER_SCHEMA, createTestApp, expectScimError, type TestApp } from "./harness.js";
import { SEARCH_REQUEST_SCHEMA, UUID, createGroup, createUser, userNamesOf, type Json } from "./provisioning-helpers.js";

/** Five users whose userNames sort differently by case-insensitive and by code-unit order. */
async function seed(t: TestApp): Promise<void> {
  await createUser(t, "alice", {
    nickName: "Al",
    title: "Engineer",
    emails: [
      { value: "alice@example.com", type: "work", primary: true },
      { value: "alice@home.example", type: "home" },
    ],
  });
  await createUser(t, "Bob", { title: "Manager", active: false });
  await createUser(t, "carol", { emails: [{ value: "carol@home.example", type: "home" }] });
  await createUser(t, "dave", { title: "Engineer" });
  await createUser(t, "Erin");
}

function query(parameters: Record<string, string>): string {
  return new URLSearchParams(parameters).toString();
}

async function list(t: TestApp, parameters: Record<string, string>): Promise<Json> {
  const response = await t.get(`/Users?${query(parameters)}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body).toMatchObject({ schemas: [LIST_SCHEMA] });
  return response.body as Json;
}

async function filtered(t: TestApp, filter: string): Promise<string[]> {
  const body = await list(t, { filter, sortBy: "userName" });
  expect(body["totalResults"]).toBe((body["Resources"] as Json[]).length);
  return userNamesOf(body);
}

describe("filter", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await seed(t);
  });

  it("eq on userName is case-insensitive", async () => {
    expect(await filtered(t, 'userName eq "ALICE"')).toEqual(["alice"]);
    expect(await filtered(t, 'userName eq "bob"')).toEqual(["Bob"]);
    expect(await filtered(t, 'USERNAME eq "erin"')).toEqual(["Erin"]);
  });

  it("co, sw and pr", async () => {
    expect(await filtered(t, 'title co "gine"')).toEqual(["alice", "dave"]);
    expect(await filtered(t, 'userName sw "b"')).toEqual(["Bob"]);
    expect(await filtered(t, 'emails.value sw "carol@"')).toEqual(["carol"]);
    expect(await filtered(t, "title pr")).toEqual(["alice", "Bob", "dave"]);
    expect(await filtered(t, "nickName pr")).toEqual(["alice"]);
  });

  it("and, or, not and grouping", async () => {
    expect(await filtered(t, 'title eq "Engineer" and active eq true')).toEqual(["alice", "dave"]);
    expect(await filtered(t, 'userName eq "alice" or userName eq "carol"')).toEqual(["alice", "carol"]);
    expect(await filtered(t, "not (title pr)")).toEqual(["carol", "Erin"]);
    expect(await filtered(t, 'active eq false or (title eq "Engineer" and not (nickName pr))')).toEqual(["Bob", "dave"]);
  });

  it('valuePath: emails[type eq "work"].value binds both conditions to the same element', async () => {
    expect(await filtered(t, 'emails[type eq "work"].value eq "bob@example.com"')).toEqual(["Bob"]);
    // alice has a home address ending in home.example, but her work address does not end in it.
    expect(await filtered(t, 'emails[type eq "work"].value ew "home.example"')).toEqual([]);
    expect(await filtered(t, 'emails[type eq "home"].value ew "home.example"')).toEqual(["alice", "carol"]);
    expect(await filtered(t, 'emails[type eq "work" and value co "@example.com"]')).toEqual(["alice", "Bob", "dave", "Erin"]);
    expect(await filtered(t, 'not (emails[type eq "work"])')).toEqual(["carol"]);
  });

  it("answers 400 invalidFilter to a filter that does not parse", async () => {
    for (const filter of [
      "userName eq",
      'userName foo "x"',
      '(userName eq "alice"',
      'userName eq "alice" and',
      "and",
      'emails[type eq "work"',
    ]) {
      const response = await t.get(`/Users?${query({ filter })}`);
      expectScimError(response, 400, "invalidFilter");
    }
  });

  it("answers 400 invalidFilter to an unknown attribute, naming it", async () => {
    const { detail } = expectScimError(await t.get(`/Users?${query({ filter: 'favouriteColour eq "blue"' })}`), 400, "invalidFilter");
    expect(detail).toMatch(/favouriteColour/i);
    expectScimError(await t.get(`/Users?${query({ filter: 'emails[colour eq "blue"]' })}`), 400, "invalidFilter");
    expectScimError(await t.post("/Users/.search", { schemas: [SEARCH_REQUEST_SCHEMA], filter: "nosuch pr" }), 400, "invalidFilter");
  });

  it("takes the same filter in POST /.search", async () => {
    const response = await t.post("/Users/.search", { schemas: [SEARCH_REQUEST_SCHEMA], filter: 'title co "gine"', sortBy: "userName" });
    expect(response.status).toBe(200);
    expect(userNamesOf(response.body as Json)).toEqual(["alice", "dave"]);
  });
});

describe("startIndex and count", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await seed(t);
  });

  it("pages 1-based", async () => {
    const first = await list(t, { sortBy: "userName", startIndex: "1", count: "2" });
    expect(first).toMatchObject({ totalResults: 5, itemsPerPage: 2, startIndex: 1 });
    expect(userNamesOf(first)).toEqual(["alice", "Bob"]);
    const second = await list(t, { sortBy: "userName", startIndex: "3", count: "2" });
    expect(second).toMatchObject({ totalResults: 5, itemsPerPage: 2, startIndex: 3 });
    expect(userNamesOf(second)).toEqual(["carol", "dave"]);
    const last = await list(t, { sortBy: "userName", startIndex: "5", count: "2" });
    expect(last).toMatchObject({ totalResults: 5, itemsPerPage: 1, startIndex: 5 });
    expect(userNamesOf(last)).toEqual(["Erin"]);
  });

  it("answers an empty page past the end, with the total", async () => {
    const beyond = await list(t, { sortBy: "userName", startIndex: "6", count: "2" });
    expect(beyond).toMatchObject({ totalResults: 5, itemsPerPage: 0, startIndex: 6 });
    expect(beyond["Resources"] ?? []).toEqual([]);
  });

  it("clamps startIndex 0 and negative values to 1", async () => {
    for (const startIndex of ["0", "-1", "-100"]) {
      const page = await list(t, { sortBy: "userName", startIndex, count: "2" });
      expect(page).toMatchObject({ totalResults: 5, itemsPerPage: 2, startIndex: 1 });
      expect(userNamesOf(page)).toEqual(["alice", "Bob"]);
    }
  });

  it("answers an empty page to an enormous startIndex, echoing a number (never null)", async () => {
    const page = await list(t, { startIndex: "99999999999999999999", count: "2" });
    expect(page["totalResults"]).toBe(5);
    expect(page["Resources"] ?? []).toEqual([]);
    expect(typeof page["startIndex"]).toBe("number");
    expect(page["startIndex"]).toBeGreaterThan(5);
  });

  it("reads an enormous count as the maximum page size", async () => {
    const page = await list(t, { count: "99999999999999999999" });
    expect(page).toMatchObject({ totalResults: 5, itemsPerPage: 5 });
    const negative = await list(t, { count: "-99999999999999999999" });
    expect(negative).toMatchObject({ totalResults: 5, itemsPerPage: 0 });
  });

  it("reads a negative count as 0", async () => {
    const page = await list(t, { count: "-3" });
    expect(page).toMatchObject({ totalResults: 5, itemsPerPage: 0 });
    expect(page["Resources"] ?? []).toEqual([]);
  });

  it("count=0 gives only totalResults, no resources", async () => {
    const page = await list(t, { count: "0" });
    expect(page["totalResults"]).toBe(5);
    expect(page["itemsPerPage"]).toBe(0);
    expect(page["Resources"] ?? []).toHaveLength(0);
    const filteredPage = await list(t, { count: "0", filter: 'title eq "Engineer"' });
    expect(filteredPage["totalResults"]).toBe(2);
    expect(filteredPage["Resources"] ?? []).toHaveLength(0);
  });

  it("answers 400 invalidValue to a count or startIndex that is not an integer", async () => {
    const bad: Record<string, string>[] = [
      { count: "abc" },
      { count: "1.5" },
      { count: "2x" },
      { startIndex: "x" },
      { startIndex: "1.0" },
      { startIndex: "2e1" },
    ];
    for (const parameters of bad) {
      const { detail } = expectScimError(await t.get(`/Users?${query(parameters)}`), 400, "invalidValue");
      expect(detail).toContain(Object.keys(parameters)[0]!);
    }
    expectScimError(await t.post("/Users/.search", { schemas: [SEARCH_REQUEST_SCHEMA], count: "many" }), 400, "invalidValue");
    expectScimError(await t.post("/Users/.search", { schemas: [SEARCH_REQUEST_SCHEMA], startIndex: 1.5 }), 400, "invalidValue");
  });

  it("takes startIndex and count as numbers in POST /.search", async () => {
    const response = await t.post("/Users/.search", { schemas: [SEARCH_REQUEST_SCHEMA], sortBy: "userName", startIndex: 2, count: 2 });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ totalResults: 5, itemsPerPage: 2, startIndex: 2 });
    expect(userNamesOf(response.body as Json)).toEqual(["Bob", "carol"]);
  });
});

describe("the server's maximum page size (paging.maxPageSize: 5)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ paging: { maxPageSize: 5 } });
    for (let index = 1; index <= 7; index += 1) await createUser(t, `user${index}`);
  });

  it("clamps a larger count to the maximum", async () => {
    const page = await list(t, { count: "100", sortBy: "userName" });
    expect(page).toMatchObject({ totalResults: 7, itemsPerPage: 5, startIndex: 1 });
    expect(userNamesOf(page)).toEqual(["user1", "user2", "user3", "user4", "user5"]);
    const rest = await list(t, { count: "100", sortBy: "userName", startIndex: "6" });
    expect(userNamesOf(rest)).toEqual(["user6", "user7"]);
  });

  it("clamps in POST /.search too, and without a count", async () => {
    const search = await t.post("/Users/.search", { schemas: [SEARCH_REQUEST_SCHEMA], count: 1000 });
    expect(search.status).toBe(200);
    expect(search.body).toMatchObject({ totalResults: 7, itemsPerPage: 5 });
    expect(await list(t, {})).toMatchObject({ totalResults: 7, itemsPerPage: 5 });
  });

  it("advertises the maximum in /ServiceProviderConfig", async () => {
    const config = await t.get("/ServiceProviderConfig");
    expect(config.status).toBe(200);
    expect((config.body as Json)["pagination"]).toMatchObject({ maxPageSize: 5 });
  });
});

describe("sortBy and sortOrder", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await seed(t);
  });

  it("sorts ascending by default, case-insensitively for userName", async () => {
    expect(userNamesOf(await list(t, { sortBy: "userName" }))).toEqual(["alice", "Bob", "carol", "dave", "Erin"]);
    expect(userNamesOf(await list(t, { sortBy: "userName", sortOrder: "ascending" }))).toEqual(["alice", "Bob", "carol", "dave", "Erin"]);
  });

  it("sorts descending", async () => {
    expect(userNamesOf(await list(t, { sortBy: "userName", sortOrder: "descending" }))).toEqual(["Erin", "dave", "carol", "Bob", "alice"]);
  });

  it("reads attribute names and sortOrder case-insensitively", async () => {
    expect(userNamesOf(await list(t, { sortBy: "USERNAME", sortOrder: "Descending" }))).toEqual(["Erin", "dave", "carol", "Bob", "alice"]);
  });

  it("sorts by a sub-attribute, and puts resources without the value last when ascending", async () => {
    expect(userNamesOf(await list(t, { sortBy: "name.familyName" }))).toEqual(["alice", "Bob", "carol", "dave", "Erin"]);
    const byTitle = await list(t, { sortBy: "title" });
    const resources = byTitle["Resources"] as Json[];
    expect(resources.map((user) => user["title"] ?? null)).toEqual(["Engineer", "Engineer", "Manager", null, null]);
  });

  it("sorts then pages", async () => {
    const page = await list(t, { sortBy: "userName", sortOrder: "descending", startIndex: "2", count: "2" });
    expect(userNamesOf(page)).toEqual(["dave", "carol"]);
  });

  it("answers 400 invalidValue to an unknown sortBy", async () => {
    const { detail } = expectScimError(await t.get(`/Users?${query({ sortBy: "favouriteColour" })}`), 400, "invalidValue");
    expect(detail).toMatch(/sortBy/);
    expectScimError(await t.post("/Users/.search", { schemas: [SEARCH_REQUEST_SCHEMA], sortBy: "nosuch" }), 400, "invalidValue");
  });

  it("answers 400 to a sortOrder that is neither ascending nor descending", async () => {
    const { detail } = expectScimError(await t.get(`/Users?${query({ sortBy: "userName", sortOrder: "sideways" })}`), 400, "invalidValue");
    expect(detail).toMatch(/sortOrder/);
    expectScimError(await t.get(`/Users?${query({ sortBy: "userName", sortOrder: "asc" })}`), 400, "invalidValue");
  });
});

describe("attributes and excludedAttributes", () => {
  let t: TestApp;
  let aliceId: string;
  beforeAll(async () => {
    t = await createTestApp();
    await seed(t);
    aliceId = String(((await list(t, { filter: 'userName eq "alice"' }))["Resources"] as Json[])[0]!["id"]);
  });

  it("attributes returns only the named ones, with id and schemas always", async () => {
    const page = await list(t, { attributes: "userName", sortBy: "userName" });
    expect(page["totalResults"]).toBe(5);
    for (const user of page["Resources"] as Json[]) {
      expect(Object.keys(user).sort()).toEqual(["id", "schemas", "userName"]);
      expect(user["id"]).toMatch(UUID);
      expect(user["schemas"]).toEqual([USER_SCHEMA]);
    }
  });

  it("attributes may name a sub-attribute", async () => {
    const page = await list(t, { attributes: "name.givenName,emails.value", filter: 'userName eq "alice"' });
    const [user] = page["Resources"] as Json[];
    expect(user!["name"]).toEqual({ givenName: "Given" });
    expect(user!["emails"]).toEqual([{ value: "alice@example.com" }, { value: "alice@home.example" }]);
    expect(user!["userName"]).toBeUndefined();
    expect(user!["id"]).toBe(aliceId);
  });

  it("excludedAttributes leaves out the named ones and keeps the rest", async () => {
    const page = await list(t, { excludedAttributes: "emails,name", filter: 'userName eq "alice"' });
    const [user] = page["Resources"] as Json[];
    expect(user!["emails"]).toBeUndefined();
    expect(user!["name"]).toBeUndefined();
    expect(user!["userName"]).toBe("alice");
    expect(user!["title"]).toBe("Engineer");
    expect(user!["meta"]).toMatchObject({ resourceType: "User" });
  });

  it("never leaves out id or schemas", async () => {
    const page = await list(t, { excludedAttributes: "id,userName", filter: 'userName eq "alice"' });
    const [user] = page["Resources"] as Json[];
    expect(user!["id"]).toBe(aliceId);
    expect(user!["schemas"]).toEqual([USER_SCHEMA]);
    expect(user!["userName"]).toBeUndefined();
    const minimal = await list(t, { attributes: "nickName", filter: 'userName eq "alice"' });
    expect((minimal["Resources"] as Json[])[0]).toEqual({ schemas: [USER_SCHEMA], id: aliceId, nickName: "Al" });
  });

  it("applies to GET /Users/{id}", async () => {
    const response = await t.get(`/Users/${aliceId}?attributes=userName`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ schemas: [USER_SCHEMA], id: aliceId, userName: "alice" });
    const excluded = await t.get(`/Users/${aliceId}?excludedAttributes=emails`);
    expect((excluded.body as Json)["emails"]).toBeUndefined();
    expect((excluded.body as Json)["userName"]).toBe("alice");
  });

  it("excludedAttributes=members lists groups without members", async () => {
    const group = await createGroup(t, "Engineering", [aliceId]);
    const response = await t.get(`/Groups?${query({ excludedAttributes: "members" })}`);
    expect(response.status).toBe(200);
    const [listed] = (response.body as Json)["Resources"] as Json[];
    expect(listed).toBeDefined();
    expect(listed!["members"]).toBeUndefined();
    expect(listed!["id"]).toBe(group["id"]);
    expect(listed!["schemas"]).toEqual([GROUP_SCHEMA]);
    expect(listed!["displayName"]).toBe("Engineering");
    const withMembers = await t.get(`/Groups?${query({ attributes: "members" })}`);
    expect(((withMembers.body as Json)["Resources"] as Json[])[0]!["members"]).toEqual([
      expect.objectContaining({ value: aliceId, type: "User" }),
    ]);
  });

  it("answers 400 to an attribute that is not a string in POST /.search", async () => {
    expectScimError(await t.post("/Users/.search", { schemas: [SEARCH_REQUEST_SCHEMA], attributes: [1] }), 400);
  });
});

describe("repeated parameters", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await seed(t);
  });

  it("answers 400 to a parameter given twice", async () => {
    const { detail } = expectScimError(await t.get("/Users?count=1&count=2"), 400, "invalidValue");
    expect(detail).toMatch(/count/);
    expectScimError(
      await t.get(`/Users?${query({ filter: 'userName eq "alice"' })}&${query({ filter: 'userName eq "Bob"' })}`),
      400,
      "invalidValue",
    );
    expectScimError(await t.get("/Users?startIndex=1&startIndex=1"), 400, "invalidValue");
    expectScimError(await t.get("/Users?sortBy=userName&sortBy=title"), 400, "invalidValue");
  });

  it("treats parameter names case-insensitively, so count and COUNT are the same parameter", async () => {
    expectScimError(await t.get("/Users?count=1&COUNT=2"), 400, "invalidValue");
    const page = await list(t, { COUNT: "1", SortBy: "userName" });
    expect(page).toMatchObject({ totalResults: 5, itemsPerPage: 1 });
    expect(userNamesOf(page)).toEqual(["alice"]);
  });

  it("answers 400 to a single-resource projection given twice", async () => {
    const id = String(((await list(t, { count: "1" }))["Resources"] as Json[])[0]!["id"]);
    expectScimError(await t.get(`/Users/${id}?attributes=userName&attributes=title`), 400, "invalidValue");
  });
});
