/**
 * The query at the service root (RFC 7644 §3.4.2.1, §3.4.3; issue 15): `GET /` and `POST /.search`
 * search every resource type, with the filter, paging, sorting, projection and cursors of a type's
 * list, inside the caller's organization; and the discovery endpoints refuse a filter with 403
 * (RFC 7644 §4). On this project's store (memory or SQLite) and on PostgreSQL.
 */
import { describe, expect, it } from "vitest";
import { expensiveWorkClassifier } from "../../src/http/fair-share/expensive-work-classifier.js";
import type { ExpensiveWorkGate } from "../../src/http/fair-share/expensive-work-gate.js";
import { fairShareGate } from "../../src/http/fair-share/fair-share-gate.js";
import type { ScimWork } from "../../src/http/fair-share/work-classifier.js";
import { attribute, type ResourceTypeDefinition, type SchemaDefinition } from "../../src/scim/schema/attribute-definition.js";
import { createSchemaRegistry } from "../../src/scim/schema/schema-registry.js";
import type { ResourceStore } from "../../src/store/resource-store.js";
import {
  GROUP_SCHEMA,
  LIST_SCHEMA,
  USER_SCHEMA,
  createTestApp,
  defaultStore,
  expectScimError,
  type TestApp,
  describeOnEveryStore,
  type StoreFor,
} from "./harness.js";
import { SEARCH_REQUEST_SCHEMA, createGroup, createUser, type Json } from "./provisioning-helpers.js";

/** What a resource of the search is called: a group's displayName, a user's userName. */
function nameOf(resource: Json): string {
  return String(resource["meta"]?.["resourceType"] === "User" ? resource["userName"] : resource["displayName"]);
}

function namesOf(body: Json): string[] {
  return (body["Resources"] as Json[]).map(nameOf);
}

function query(parameters: Record<string, string>): string {
  return new URLSearchParams(parameters).toString();
}

interface Seeded {
  readonly t: TestApp;
  /** Ids by name, in creation order: alice, Admins, bob, Bakers, carol. */
  readonly ids: Map<string, string>;
}

/**
 * acme: users alice, bob, carol (displayNames "Alice Archer", "Bob Baker", "Carol Cole") and
 * groups Admins {alice}, Bakers {bob}, created interleaved; globex: user zed and group Globex.
 */
async function seed(storeFor: StoreFor, options: Parameters<typeof createTestApp>[0] = {}): Promise<Seeded> {
  const store = await storeFor();
  const t = await createTestApp({ ...(store ? { store } : {}), ...options });
  const ids = new Map<string, string>();
  const user = async (userName: string, displayName: string): Promise<void> => {
    ids.set(userName, String((await createUser(t, userName, { displayName, title: `${userName} title` }))["id"]));
  };
  const group = async (displayName: string, members: readonly string[]): Promise<void> => {
    ids.set(displayName, String((await createGroup(t, displayName, members))["id"]));
  };
  await user("alice", "Alice Archer");
  await group("Admins", [ids.get("alice") ?? ""]);
  await user("bob", "Bob Baker");
  await group("Bakers", [ids.get("bob") ?? ""]);
  await user("carol", "Carol Cole");
  const globexBase = t.base("globex");
  const zed = await t.post(`${globexBase}/Users`, { schemas: [USER_SCHEMA], userName: "zed", displayName: "Zed Zulu" }, t.token.globex);
  expect(zed.status).toBe(201);
  const globex = await t.post(`${globexBase}/Groups`, { schemas: [GROUP_SCHEMA], displayName: "Globex" }, t.token.globex);
  expect(globex.status).toBe(201);
  return { t, ids };
}

/** `POST /.search` of acme, or of globex with its token. */
async function search(t: TestApp, body: Record<string, unknown>, org: "acme" | "globex" = "acme"): Promise<Json> {
  const response = await t.post(`${t.base(org)}/.search`, { schemas: [SEARCH_REQUEST_SCHEMA], ...body }, t.token[org]);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body["schemas"]).toEqual([LIST_SCHEMA]);
  return response.body as Json;
}

/** Follows nextCursor from `cursor=` to the end; asserts the shape and total of every page. */
async function walk(t: TestApp, body: Record<string, unknown>, expectedTotal: number): Promise<Json[]> {
  const seen: Json[] = [];
  let cursor = "";
  for (let guard = 0; guard < 50; guard += 1) {
    const page = await search(t, { ...body, cursor });
    expect(page["totalResults"]).toBe(expectedTotal);
    expect(page).not.toHaveProperty("startIndex");
    seen.push(...(page["Resources"] as Json[]));
    if (page["nextCursor"] === undefined) return seen;
    cursor = String(page["nextCursor"]);
  }
  throw new Error("the walk did not end");
}

function rootSearchChecks(storeFor: StoreFor): void {
  it("POST /.search lists every resource type of the organization, each resource as its own type renders it", async () => {
    const { t, ids } = await seed(storeFor);
    const body = await search(t, {});
    expect(body["totalResults"]).toBe(5);
    expect(body["startIndex"]).toBe(1);
    expect(body["itemsPerPage"]).toBe(5);
    // No sortBy: the list order of every store, by id, and ids are UUID v7 — the order of creation.
    expect(namesOf(body)).toEqual(["alice", "Admins", "bob", "Bakers", "carol"]);
    for (const resource of body["Resources"] as Json[]) {
      const type = resource["meta"]["resourceType"] as string;
      expect(resource["id"]).toBe(ids.get(nameOf(resource)));
      expect(resource["schemas"]).toEqual([type === "User" ? USER_SCHEMA : GROUP_SCHEMA]);
      expect(String(resource["meta"]["location"])).toMatch(new RegExp(`/scim/Organizations/acme/v2/${type}s/${resource["id"]}$`));
    }
    const admins = (body["Resources"] as Json[]).find((resource) => resource["displayName"] === "Admins");
    expect(admins?.["members"]?.map((member: Json) => member["value"])).toEqual([ids.get("alice")]);
  });

  it("GET / is the same query, its parameters in the query string; with none it lists everything", async () => {
    const { t } = await seed(storeFor);
    const all = await t.get("/").expect(200);
    expect(all.body["schemas"]).toEqual([LIST_SCHEMA]);
    expect(namesOf(all.body)).toEqual(["alice", "Admins", "bob", "Bakers", "carol"]);
    // The base URL itself, without the trailing slash, is the same root.
    expect(namesOf((await t.get(t.base()).expect(200)).body)).toEqual(namesOf(all.body));
    const filtered = await t.get(`/?${query({ filter: 'displayName sw "b"', sortBy: "displayName" })}`).expect(200);
    expect(namesOf(filtered.body)).toEqual(["Bakers", "bob"]);
    expect(filtered.body["totalResults"]).toBe(2);
  });

  it("searches only the caller's organization, and needs a token", async () => {
    const { t } = await seed(storeFor);
    const acme = await search(t, { count: 100 });
    expect(namesOf(acme).sort()).toEqual(["Admins", "Bakers", "alice", "bob", "carol"]);
    const globex = await search(t, {}, "globex");
    expect(globex["totalResults"]).toBe(2);
    expect(namesOf(globex)).toEqual(["zed", "Globex"]);
    expect(String(globex["Resources"][0]["meta"]["location"])).toContain("/scim/Organizations/globex/v2/Users/");
    // Another organization's token does not open acme's root.
    expectScimError(await t.post("/.search", { schemas: [SEARCH_REQUEST_SCHEMA] }, t.token.globex), 401);
    expectScimError(await t.post("/.search", {}, "not-a-token"), 401);
    expectScimError(await t.get("/", "not-a-token"), 401);
  });

  it("applies a filter to each type: an attribute one type lacks has no value there (RFC 7644 §3.4.2.1)", async () => {
    const { t } = await seed(storeFor);
    // displayName is defined by both types.
    expect(namesOf(await search(t, { filter: 'displayName co "a"', sortBy: "displayName" }))).toEqual([
      "Admins",
      "alice",
      "Bakers",
      "bob",
      "carol",
    ]);
    // userName is a User's only: a group has no value, so equality and presence are false there...
    expect(namesOf(await search(t, { filter: 'userName eq "bob"' }))).toEqual(["bob"]);
    expect(namesOf(await search(t, { filter: "userName pr" }))).toEqual(["alice", "bob", "carol"]);
    // ... and their negations true.
    expect(namesOf(await search(t, { filter: "not (userName pr)" }))).toEqual(["Admins", "Bakers"]);
    expect(namesOf(await search(t, { filter: 'userName ne "bob"' }))).toEqual(["alice", "Admins", "Bakers", "carol"]);
    // A member filter is a Group's; `or` with a User attribute reaches both types.
    const alice = await search(t, { filter: 'userName eq "alice"' });
    const aliceId = String(alice["Resources"][0]["id"]);
    expect(namesOf(await search(t, { filter: `members.value eq "${aliceId}" or userName eq "carol"` }))).toEqual(["Admins", "carol"]);
    expect(namesOf(await search(t, { filter: `members[value eq "${aliceId}"]` }))).toEqual(["Admins"]);
    expect(namesOf(await search(t, { filter: 'emails[type eq "work"] and title sw "c"' }))).toEqual(["carol"]);
    // Common attributes are every type's.
    expect((await search(t, { filter: 'meta.resourceType eq "Group"' }))["totalResults"]).toBe(2);
  });

  it("refuses a filter no type can read, with a detail naming the problem", async () => {
    const { t } = await seed(storeFor);
    const unknown = expectScimError(await t.post("/.search", { filter: 'nickname eq "x" or shoeSize gt 3' }), 400, "invalidFilter");
    expect(unknown.detail).toContain("shoeSize");
    expect(unknown.detail).toContain("User, Group");
    // Behind an operand that already decides for one type, or inside a value path one type lacks.
    const decided = expectScimError(await t.post("/.search", { filter: 'userName eq "a" and shoeSize gt 3' }), 400, "invalidFilter");
    expect(decided.detail).toContain("shoeSize");
    const inner = expectScimError(await t.post("/.search", { filter: "emails[nothing pr]" }), 400, "invalidFilter");
    expect(inner.detail).toContain("emails.nothing");
    expect(expectScimError(await t.get(`/?${query({ filter: "userName eq" })}`), 400, "invalidFilter").detail).toMatch(/filter/i);
    // Defined, but compared wrongly for its type.
    expect(expectScimError(await t.post("/.search", { filter: "active gt true" }), 400, "invalidFilter").detail).toContain("active");
    // The router's filterLimits hold at the root too.
    const long = expectScimError(await t.post("/.search", { filter: `userName eq "${"a".repeat(20_000)}"` }), 400, "invalidFilter");
    expect(long.detail).toContain("limit");
    expect(expectScimError(await t.post("/.search", { sortBy: "members.value" }), 400, "invalidValue").detail).toContain("members");
    const sort = expectScimError(await t.post("/.search", { sortBy: "shoeSize" }), 400, "invalidValue");
    expect(sort.detail).toContain("sortBy");
    expectScimError(await t.post("/.search", { sortBy: "displayName", sortOrder: "upwards" }), 400, "invalidValue");
    expectScimError(await t.post("/.search", { count: "ten" }), 400, "invalidValue");
    expectScimError(await t.post("/.search", { schemas: ["urn:example:not-a-search"] }), 400, "invalidSyntax");
    expectScimError(await t.post("/.search", [1, 2]), 400, "invalidSyntax");
  });

  it("pages by index across the boundary between types, counting every type in totalResults", async () => {
    const { t, ids } = await seed(storeFor);
    const pages: string[][] = [];
    for (const startIndex of [1, 3, 5]) {
      const page = await search(t, { startIndex, count: 2 });
      expect(page["totalResults"]).toBe(5);
      expect(page["startIndex"]).toBe(startIndex);
      pages.push(namesOf(page));
    }
    expect(pages).toEqual([["alice", "Admins"], ["bob", "Bakers"], ["carol"]]);
    // A page that starts further on still carries its groups' members.
    const second = await search(t, { startIndex: 3, count: 2 });
    expect(second["Resources"][1]["members"]).toEqual([expect.objectContaining({ value: ids.get("bob"), type: "User" })]);
    const sorted = await search(t, { sortBy: "displayName", sortOrder: "descending", startIndex: 2, count: 3 });
    expect(namesOf(sorted)).toEqual(["bob", "Bakers", "alice"]);
    expect(namesOf(await search(t, { startIndex: 6 }))).toEqual([]);
    const totalOnly = await search(t, { count: 0, filter: 'displayName sw "b"' });
    expect(totalOnly["totalResults"]).toBe(2);
    expect(totalOnly["Resources"]).toEqual([]);
  });

  it("sorts across types; a type without the attribute sorts as missing values do", async () => {
    const { t } = await seed(storeFor);
    expect(namesOf(await search(t, { sortBy: "displayName" }))).toEqual(["Admins", "alice", "Bakers", "bob", "carol"]);
    expect(namesOf(await search(t, { sortBy: "displayName", sortOrder: "descending" }))).toEqual([
      "carol",
      "bob",
      "Bakers",
      "alice",
      "Admins",
    ]);
    // RFC 7644 §3.4.2.3: resources without a value come last ascending, first descending.
    expect(namesOf(await search(t, { sortBy: "userName", sortOrder: "descending" }))).toEqual([
      "Admins",
      "Bakers",
      "carol",
      "bob",
      "alice",
    ]);
    expect(namesOf(await search(t, { sortBy: "title" }))).toEqual(["alice", "bob", "carol", "Admins", "Bakers"]);
  });

  it("projects each resource by its own type's schema", async () => {
    const { t } = await seed(storeFor);
    const body = await search(t, { attributes: ["userName", "displayName"], sortBy: "displayName", count: 2 });
    expect(body["Resources"]).toEqual([
      expect.objectContaining({ schemas: [GROUP_SCHEMA], displayName: "Admins" }),
      expect.objectContaining({ schemas: [USER_SCHEMA], userName: "alice", displayName: "Alice Archer" }),
    ]);
    // As at a type's endpoint, `attributes` keeps `id` and `schemas` (returned "always"), which name each resource's type.
    for (const resource of body["Resources"] as Json[]) {
      expect(Object.keys(resource).sort()).toEqual(
        resource["schemas"][0] === USER_SCHEMA ? ["displayName", "id", "schemas", "userName"] : ["displayName", "id", "schemas"],
      );
    }
    const located = await search(t, { attributes: ["meta.location"], filter: 'displayName eq "Admins" or userName eq "bob"' });
    expect(located["Resources"].map((resource: Json) => String(resource["meta"]["location"]).replace(/^.*\/v2/, ""))).toEqual([
      `/Groups/${String(located["Resources"][0]["id"])}`,
      `/Users/${String(located["Resources"][1]["id"])}`,
    ]);
    const excluded = await t.get(`/?${query({ excludedAttributes: "members,emails", filter: 'displayName sw "a"' })}`).expect(200);
    expect(namesOf(excluded.body).sort()).toEqual(["Admins", "alice"]);
    for (const resource of excluded.body["Resources"] as Json[]) {
      expect(resource).not.toHaveProperty("members");
      expect(resource).not.toHaveProperty("emails");
    }
  });

  it("walks the whole list with one cursor, each resource once, sorted or not", async () => {
    const { t, ids } = await seed(storeFor);
    for (const body of [{ count: 2 }, { count: 1, sortBy: "displayName", sortOrder: "descending" }, { count: 2, sortBy: "userName" }]) {
      const seen = await walk(t, body, 5);
      expect(seen.map((resource) => resource["id"]).sort()).toEqual([...ids.values()].sort());
    }
    const sorted = await walk(t, { count: 2, sortBy: "displayName" }, 5);
    expect(sorted.map(nameOf)).toEqual(["Admins", "alice", "Bakers", "bob", "carol"]);
    const filtered = await walk(t, { count: 1, filter: 'displayName sw "b"' }, 2);
    expect(filtered.map(nameOf)).toEqual(["bob", "Bakers"]);
  });

  it("merges the types in several reads each when a page reaches past one read (paging.maxPageSize)", async () => {
    const { t, ids } = await seed(storeFor, { paging: { maxPageSize: 2 } });
    expect(namesOf(await search(t, { startIndex: 4, count: 2 }))).toEqual(["Bakers", "carol"]);
    expect(namesOf(await search(t, { startIndex: 3, count: 2, sortBy: "displayName", sortOrder: "descending" }))).toEqual([
      "Bakers",
      "alice",
    ]);
    for (const body of [{ count: 2 }, { count: 2, sortBy: "userName" }, { count: 5, sortBy: "title", sortOrder: "descending" }]) {
      const seen = await walk(t, body, 5);
      expect(seen.map((resource) => resource["id"]).sort()).toEqual([...ids.values()].sort());
    }
  });

  it("refuses a cursor of another query, of a type's list, or with startIndex", async () => {
    const { t } = await seed(storeFor);
    const first = await search(t, { cursor: "", count: 2, sortBy: "displayName" });
    const cursor = String(first["nextCursor"]);
    expectScimError(await t.post("/.search", { cursor, count: 2, sortBy: "userName" }), 400, "invalidCursor");
    const globex = await t.post(`${t.base("globex")}/.search`, { cursor, count: 2, sortBy: "displayName" }, t.token.globex);
    expectScimError(globex, 400, "invalidCursor");
    const users = await t.get(`/Users?${query({ cursor: "", count: "1" })}`).expect(200);
    expectScimError(await t.post("/.search", { cursor: users.body["nextCursor"], count: 1 }), 400, "invalidCursor");
    const both = expectScimError(await t.post("/.search", { cursor: "", startIndex: 1 }), 400, "invalidValue");
    expect(both.detail).toContain("startIndex");
  });

  it("the discovery endpoints refuse a filter with 403 and ignore the other list parameters (RFC 7644 §4)", async () => {
    const { t } = await seed(storeFor);
    for (const path of ["/ServiceProviderConfig", "/ResourceTypes", "/Schemas", "/ResourceTypes/User", `/Schemas/${USER_SCHEMA}`]) {
      const refused = expectScimError(await t.get(`${path}?${query({ filter: 'id eq "User"' })}`), 403);
      expect(refused.detail).toContain("Filtering is not supported");
    }
    // Without a token too: the configuration is public, its refusal as well.
    expectScimError(await t.get(`/ServiceProviderConfig?${query({ Filter: "x" })}`, "none"), 403);
    const types = await t.get(`/ResourceTypes?${query({ count: "1", startIndex: "2", sortBy: "name", filter: " " })}`).expect(200);
    expect(types.body["totalResults"]).toBe(2);
    expect(types.body["Resources"]).toHaveLength(2);
  });
}

const TEAM_SCHEMA = "urn:example:scim:schemas:2.0:Team";

const teamSchema: SchemaDefinition = {
  id: TEAM_SCHEMA,
  name: "Team",
  description: "A team",
  attributes: [
    attribute("name", { required: true, description: "The team's name." }),
    attribute("size", { type: "integer", description: "How many people the team has." }),
  ],
};

const teamResourceType: ResourceTypeDefinition = {
  id: "Team",
  name: "Team",
  endpoint: "/Teams",
  description: "Team",
  schema: TEAM_SCHEMA,
  schemaExtensions: [],
};

function customTypeChecks(storeFor: StoreFor): void {
  it("searches a registry's own resource types beside User and Group", async () => {
    const registry = createSchemaRegistry({ schemas: [teamSchema], resourceTypes: [teamResourceType] });
    const { t } = await seed(storeFor, { registry });
    const team = await t.post("/Teams", { schemas: [TEAM_SCHEMA], name: "Platform", size: 4 });
    expect(team.status, JSON.stringify(team.body)).toBe(201);
    const all = await search(t, { count: 100 });
    expect(all["totalResults"]).toBe(6);
    const found = (all["Resources"] as Json[]).find((resource) => resource["meta"]["resourceType"] === "Team");
    expect(found).toMatchObject({ schemas: [TEAM_SCHEMA], name: "Platform", size: 4 });
    expect(String(found?.["meta"]["location"])).toContain("/Teams/");
    // `size` is the Team's alone; `name` is a Team's string and a User's complex attribute.
    expect((await search(t, { filter: "size gt 3" }))["Resources"].map((resource: Json) => resource["name"])).toEqual(["Platform"]);
    expect(namesOf(await search(t, { filter: 'name.familyName sw "family a"' }))).toEqual(["alice"]);
    const sorted = await search(t, { sortBy: "size", sortOrder: "descending", count: 1 });
    expect(namesOf(sorted)).toEqual(["alice"]);
    expect(await walk(t, { count: 4, sortBy: "size" }, 6)).toHaveLength(6);
  });
}

function fairShareChecks(storeFor: StoreFor): void {
  it("takes the organization's turn for a root search whose filter no index answers, and not for a lookup", async () => {
    const judged: ScimWork[] = [];
    const base = expensiveWorkClassifier();
    const inner = fairShareGate();
    const acquired: string[] = [];
    const gate: ExpensiveWorkGate = {
      acquire: (orgId, signal) => {
        acquired.push(orgId);
        return inner.acquire(orgId, signal);
      },
    };
    const classifier = {
      isExpensive: (work: ScimWork): boolean => {
        judged.push(work);
        return base.isExpensive(work);
      },
    };
    const { t } = await seed(storeFor, { fairShare: { gate, classifier } });
    judged.length = 0;
    await search(t, { filter: 'userName eq "bob"' });
    // The Group part of the filter is false, so only the User lookup is judged, and it is cheap.
    const lists = (): string[] => judged.flatMap((work) => (work.kind === "list" ? [work.request.resourceType] : []));
    expect(lists()).toEqual(["User"]);
    expect(acquired).toEqual([]);
    await search(t, { filter: 'displayName co "b"' });
    expect(acquired).toEqual(["acme"]);
    await search(t, { startIndex: 5000 });
    await search(t, { sortBy: "displayName" });
    expect(acquired).toEqual(["acme", "acme", "acme"]);
    // A first page is cheap, unless it carries the groups' members, as at /Groups.
    await search(t, { count: 10, excludedAttributes: ["members"] });
    expect(acquired).toHaveLength(3);
    await search(t, { count: 10 });
    expect(acquired).toHaveLength(4);
  });
}

describe("the root search on a store that neither sorts nor pages by cursor", () => {
  it("pages by index through every type, ignores sortBy and refuses a cursor", async () => {
    const pages: string[] = [];
    const storeFor = async (): Promise<ResourceStore> => {
      const inner = await defaultStore();
      return {
        capabilities: { sort: false, cursor: false },
        create: (r) => inner.create(r),
        get: (r) => inner.get(r),
        list: (r) => {
          pages.push(`${r.resourceType} ${r.page.kind} ${r.sort ? "sorted" : "unsorted"}`);
          return inner.list(r);
        },
        update: (r) => inner.update(r),
        delete: (r) => inner.delete(r),
      };
    };
    const { t } = await seed(storeFor);
    pages.length = 0;
    const walked: string[] = [];
    for (const startIndex of [1, 3, 5]) walked.push(...namesOf(await search(t, { startIndex, count: 2, sortBy: "displayName" })));
    expect(walked).toEqual(["alice", "Admins", "bob", "Bakers", "carol"]);
    expect(new Set(pages)).toEqual(new Set(["User index unsorted", "Group index unsorted"]));
    expectScimError(await t.post("/.search", { cursor: "" }), 400, "invalidValue");
  });
});

describeOnEveryStore(
  "the root search",
  (storeFor) => {
    rootSearchChecks(storeFor);
    customTypeChecks(storeFor);
    fairShareChecks(storeFor);
  },
  ["acme", "globex"],
);
