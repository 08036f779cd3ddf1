/**
 * The directory (issue 18): an organization's SCIM users and groups through the analytics
 * interface — searched, paged with cursors, a user's groups, a group's members a page at a time —
 * within the organizations the caller may see, and a campaign's completions per day. Run on the
 * memory stores (`express5`), SQLite (`express5-sqlite`) and PostgreSQL (when configured).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestSchema, describePostgres, type TestSchema } from "../../../src/store/sql/postgres-test-database.fixture.js";
import {
  POPULATED,
  UNKNOWN,
  expectInvalidFields,
  expectProblem,
  type AnalyticsTestApp,
  type Json,
  type TestAppOptions,
} from "./analytics-harness.js";
import { createWorld, provision, type Org, type World } from "./analytics-world.js";

const DAY = 24 * 60 * 60 * 1000;
const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";

interface Page {
  readonly data: Json[];
  readonly nextCursor: string | null;
}

async function createGroup(
  t: AnalyticsTestApp,
  org: Org,
  displayName: string,
  members: readonly string[],
  extra: Json = {},
): Promise<string> {
  const response = await t.send("POST", `/scim/Organizations/${org.id}/v2/Groups`, {
    key: org.scim.token,
    body: { schemas: [GROUP_SCHEMA], displayName, members: members.map((value) => ({ value })), ...extra },
    contentType: "application/scim+json",
  });
  expect(response.status).toBe(201);
  return (response.body as { id: string }).id;
}

function page(response: { status: number; body: unknown; text: string }): Page {
  if (response.status !== 200) throw new Error(`expected 200, got ${response.status}: ${response.text}`);
  return response.body as Page;
}

/** Every item of a list, following `nextCursor` with `limit`; asserts each page's size. */
async function walk(t: AnalyticsTestApp, path: string, limit: number, key?: string): Promise<{ items: Json[]; pages: number }> {
  const items: Json[] = [];
  let cursor: string | null = null;
  let pages = 0;
  const separator = path.includes("?") ? "&" : "?";
  do {
    const suffix: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
    const body = page(await t.get(`${path}${separator}limit=${limit}${suffix}`, key));
    expect(body.data.length).toBeLessThanOrEqual(limit);
    if (body.nextCursor !== null) expect(body.data).toHaveLength(limit);
    items.push(...body.data);
    cursor = body.nextCursor;
    pages += 1;
  } while (cursor !== null);
  return { items, pages };
}

const ids = (items: readonly Json[]): string[] => items.map((item) => item["id"] as string);
const sorted = (values: readonly string[]): string[] => [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

interface DirectoryWorld extends World {
  /** Extra users of A: a literal pattern name, a decomposed Unicode name, one with externalId and a password. */
  readonly extra: { readonly percent: string; readonly angstrom: string; readonly external: string };
  /** Groups of A (Sales: alice, bob, carol; Engineers: bob and the Sales group; Empty) and of B (dave). */
  readonly groups: { readonly sales: string; readonly engineers: string; readonly empty: string; readonly groupB: string };
}

async function createDirectoryWorld(options: TestAppOptions): Promise<DirectoryWorld> {
  const w = await createWorld(options);
  const { t, orgA, orgB, users } = w;
  const percent = await provision(t, orgA, "50%_off", { displayName: "Percent Person" });
  // "Ångström" decomposed (A + U+030A, o + U+0308): the search is given it precomposed.
  const angstrom = await provision(t, orgA, "A\u030angstro\u0308m", { displayName: "Anders" });
  const external = await provision(t, orgA, "erin", { externalId: "EXT-123", displayName: "Erin Example", password: "Secret-Passw0rd!" });
  const sales = await createGroup(t, orgA, "Sales Team", [users.alice, users.bob, users.carol], { externalId: "grp-sales" });
  const engineers = await createGroup(t, orgA, "Engineers", [users.bob, sales]);
  const empty = await createGroup(t, orgA, "Empty", []);
  const groupB = await createGroup(t, orgB, "B Group", [users.dave]);
  return { ...w, extra: { percent, angstrom, external }, groups: { sales, engineers, empty, groupB } };
}

function directorySuite(options: () => TestAppOptions): void {
  let world: DirectoryWorld | undefined;
  const w = (): DirectoryWorld => {
    if (world === undefined) throw new Error("the world was not built (see beforeAll)");
    return world;
  };

  beforeAll(async () => {
    world = await createDirectoryWorld(options());
  }, 60_000);

  afterAll(async () => {
    await world?.t.close();
  });

  describe("GET /organizations/{id}/directory/users", () => {
    it("lists the organization's users by id, with the fields a person recognises them by", async () => {
      const { t, orgA, users, extra } = w();
      const body = page(await t.get(`/organizations/${orgA.id}/directory/users`));
      expect(body.nextCursor).toBeNull();
      const all = [users.alice, users.bob, users.carol, extra.percent, extra.angstrom, extra.external];
      expect(ids(body.data)).toEqual(sorted(all));
      const alice = body.data.find((user) => user["id"] === users.alice);
      expect(alice).toEqual({
        id: users.alice,
        userName: "alice",
        displayName: "Learner alice",
        active: true,
        emails: [{ value: "alice@example.com", type: "work", primary: true }],
      });
      expect(body.data.find((user) => user["id"] === users.bob)?.["active"]).toBe(false);
      expect(body.data.find((user) => user["id"] === extra.external)).toMatchObject({ externalId: "EXT-123" });
    });

    it("searches userName, displayName and externalId by case-insensitive prefix", async () => {
      const { t, orgA, users, extra } = w();
      const search = async (text: string): Promise<string[]> =>
        ids(page(await t.get(`/organizations/${orgA.id}/directory/users?search=${encodeURIComponent(text)}`)).data);
      expect(await search("ALI")).toEqual([users.alice]);
      expect(await search("learner c")).toEqual([users.carol]);
      expect(await search("ext-1")).toEqual([extra.external]);
      expect(await search("erin ex")).toEqual([extra.external]);
      // A prefix, not a substring.
      expect(await search("lice")).toEqual([]);
      expect(await search("123")).toEqual([]);
      // Pattern characters are literal.
      expect(await search("50%_")).toEqual([extra.percent]);
      expect(await search("5%")).toEqual([]);
      expect(await search("%")).toEqual([]);
      expect(await search("_")).toEqual([]);
      expect(await search("*")).toEqual([]);
      expect(await search("a*")).toEqual([]);
      expect(await search("'; drop table scimkit_resources; --")).toEqual([]);
      // userName compares as its uniqueness key: precomposed finds decomposed, whatever the case.
      expect(await search("\u00c5NGSTR\u00d6")).toEqual([extra.angstrom]);
      expect(sorted(await search("l"))).toEqual(sorted([users.alice, users.bob, users.carol]));
      // Still there after everything else: the injection attempt above was only text.
      expect(await search("bob")).toEqual([users.bob]);
    });

    it("pages with cursors bound to the search", async () => {
      const { t, orgA } = w();
      const path = `/organizations/${orgA.id}/directory/users`;
      const all = ids(page(await t.get(path)).data);
      const walked = await walk(t, path, 2);
      expect(ids(walked.items)).toEqual(all);
      expect(walked.pages).toBe(3);
      const searched = await walk(t, `${path}?search=l`, 1);
      expect(searched.items).toHaveLength(3);
      const first = page(await t.get(`${path}?limit=2`));
      expectProblem(await t.get(`${path}?search=l&cursor=${encodeURIComponent(first.nextCursor ?? "")}`), 400, "invalid-cursor");
    });

    it("shows one user as stored, with its groups and never its password", async () => {
      const { t, orgA, users, groups, extra } = w();
      const bob = (await t.get(`/organizations/${orgA.id}/directory/users/${users.bob}`)).body as Json;
      expect(bob).toMatchObject({ id: users.bob, userName: "bob", active: false, meta: { resourceType: "User" } });
      expect(bob["groups"]).toEqual(
        sorted([groups.sales, groups.engineers]).map((id) => ({ id, displayName: id === groups.sales ? "Sales Team" : "Engineers" })),
      );
      expect((bob["meta"] as Json)["version"]).toMatch(/^W\/".+"$/);
      const erin = await t.get(`/organizations/${orgA.id}/directory/users/${extra.external}`);
      expect(erin.status).toBe(200);
      expect(erin.body).toMatchObject({ userName: "erin", externalId: "EXT-123", groups: [] });
      // The SCIM router drops writeOnly attributes before the store (the conformance kit checks the store-level strip).
      expect(erin.text).not.toMatch(/Secret-Passw0rd|password/i);
    });

    it("answers 404 for a user the organization does not have", async () => {
      const { t, orgA, users } = w();
      expectProblem(await t.get(`/organizations/${orgA.id}/directory/users/${UNKNOWN}`), 404, "not-found");
      // Dave is B's: not found through A.
      expectProblem(await t.get(`/organizations/${orgA.id}/directory/users/${users.dave}`), 404, "not-found");
      // A group is no user.
      expectProblem(await t.get(`/organizations/${orgA.id}/directory/users/${w().groups.sales}`), 404, "not-found");
    });
  });

  describe("GET /organizations/{id}/directory/groups", () => {
    it("lists the groups by id with their member counts, and searches displayName and externalId by prefix", async () => {
      const { t, orgA, groups } = w();
      const path = `/organizations/${orgA.id}/directory/groups`;
      const body = page(await t.get(path));
      expect(body.data).toEqual(
        sorted([groups.sales, groups.engineers, groups.empty]).map((id) =>
          id === groups.sales
            ? { id, displayName: "Sales Team", externalId: "grp-sales", memberCount: 3 }
            : id === groups.engineers
              ? { id, displayName: "Engineers", memberCount: 2 }
              : { id, displayName: "Empty", memberCount: 0 },
        ),
      );
      expect(ids(page(await t.get(`${path}?search=SALES`)).data)).toEqual([groups.sales]);
      expect(ids(page(await t.get(`${path}?search=GRP-`)).data)).toEqual([groups.sales]);
      expect(ids(page(await t.get(`${path}?search=team`)).data)).toEqual([]);
      expect(sorted(ids(page(await t.get(`${path}?search=e`)).data))).toEqual(sorted([groups.engineers, groups.empty]));
      expect(ids((await walk(t, path, 1)).items)).toEqual(ids(body.data));
    });

    it("pages a group's members by id, users with their userName, nested groups with their name", async () => {
      const { t, orgA, users, groups } = w();
      const sales = await walk(t, `/organizations/${orgA.id}/directory/groups/${groups.sales}/members`, 2);
      expect(sales.pages).toBe(2);
      expect(sales.items).toEqual(
        sorted([users.alice, users.bob, users.carol]).map((id) => {
          const userName = id === users.alice ? "alice" : id === users.bob ? "bob" : "carol";
          return { id, type: "User", display: `Learner ${userName}`, userName };
        }),
      );
      const engineers = page(await t.get(`/organizations/${orgA.id}/directory/groups/${groups.engineers}/members`));
      expect(engineers.data).toEqual(
        sorted([users.bob, groups.sales]).map((id) =>
          id === groups.sales
            ? { id, type: "Group", display: "Sales Team" }
            : { id, type: "User", display: "Learner bob", userName: "bob" },
        ),
      );
      expect(page(await t.get(`/organizations/${orgA.id}/directory/groups/${groups.empty}/members`))).toEqual({
        data: [],
        nextCursor: null,
      });
    });

    it("reflects SCIM membership changes at once", async () => {
      const { t, orgA, users, groups } = w();
      const path = `/scim/Organizations/${orgA.id}/v2/Groups/${groups.empty}`;
      const patch = {
        schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        Operations: [{ op: "add", path: "members", value: [{ value: users.carol }] }],
      };
      const changed = await t.send("PATCH", path, { key: orgA.scim.token, body: patch, contentType: "application/scim+json" });
      expect([200, 204]).toContain(changed.status);
      expect(ids(page(await t.get(`/organizations/${orgA.id}/directory/groups/${groups.empty}/members`)).data)).toEqual([users.carol]);
      const carol = (await t.get(`/organizations/${orgA.id}/directory/users/${users.carol}`)).body as { groups: Json[] };
      expect(sorted(ids(carol.groups))).toEqual(sorted([groups.sales, groups.empty]));
      const remove = { ...patch, Operations: [{ op: "remove", path: `members[value eq "${users.carol}"]` }] };
      const removed = await t.send("PATCH", path, { key: orgA.scim.token, body: remove, contentType: "application/scim+json" });
      expect([200, 204]).toContain(removed.status);
      expect(page(await t.get(`/organizations/${orgA.id}/directory/groups/${groups.empty}/members`)).data).toEqual([]);
    });

    it("answers 404 for a group the organization does not have", async () => {
      const { t, orgA, users, groups } = w();
      expectProblem(await t.get(`/organizations/${orgA.id}/directory/groups/${UNKNOWN}/members`), 404, "not-found");
      expectProblem(await t.get(`/organizations/${orgA.id}/directory/groups/${groups.groupB}/members`), 404, "not-found");
      expectProblem(await t.get(`/organizations/${orgA.id}/directory/groups/${users.alice}/members`), 404, "not-found");
      // Ids no resource can have, PostgreSQL's unstorable U+0000 among them: 404, never a 500.
      expectProblem(await t.get(`/organizations/${orgA.id}/directory/groups/a%00b/members`), 404, "not-found");
      expectProblem(await t.get(`/organizations/${orgA.id}/directory/users/a%00b`), 404, "not-found");
      expectProblem(await t.get("/organizations/a%00b/directory/groups"), 404, "not-found");
    });
  });

  describe("scope and input", () => {
    it("lets in-scope admins and viewers read, and answers 404 out of scope as for an unknown organization", async () => {
      const { t, orgA, orgB, keys, groups, users } = w();
      expect((await t.get(`/organizations/${orgA.id}/directory/users`, keys.viewerA)).status).toBe(200);
      expect((await t.get(`/organizations/${orgA.id}/directory/groups/${groups.sales}/members`, keys.adminA)).status).toBe(200);
      expect(ids(page(await t.get(`/organizations/${orgB.id}/directory/users`, keys.adminB)).data)).toEqual([users.dave]);
      for (const path of [
        `/organizations/${orgB.id}/directory/users`,
        `/organizations/${orgB.id}/directory/users/${users.dave}`,
        `/organizations/${orgB.id}/directory/groups`,
        `/organizations/${orgB.id}/directory/groups/${groups.groupB}/members`,
      ]) {
        const outOfScope = expectProblem(await t.get(path, keys.adminA), 404, "not-found");
        const unknown = expectProblem(await t.get(path.replace(orgB.id, "no-such-org")), 404, "not-found");
        expect(outOfScope.detail).toBe(unknown.detail);
      }
      expectProblem(await t.get(`/organizations/${orgA.id}/directory/users`, null), 401, "unauthorized");
    });

    it("refuses bad parameters with 400 naming them", async () => {
      const { t, orgA, groups } = w();
      const users = `/organizations/${orgA.id}/directory/users`;
      const members = `/organizations/${orgA.id}/directory/groups/${groups.sales}/members`;
      expectInvalidFields(await t.get(`${users}?limit=0`), ["limit"]);
      expectInvalidFields(await t.get(`${users}?limit=1001`), ["limit"]);
      expectInvalidFields(await t.get(`${users}?limit=ten`), ["limit"]);
      expectInvalidFields(await t.get(`${users}?search=`), ["search"]);
      expectInvalidFields(await t.get(`${users}?search=${"x".repeat(257)}`), ["search"]);
      expectInvalidFields(await t.get(`${users}?search=a&search=b`), ["search"]);
      expectInvalidFields(await t.get(`${users}?sort=userName`), ["sort"]);
      expectInvalidFields(await t.get(`${members}?search=a`), ["search"]);
      // PostgreSQL cannot hold U+0000: refused with a reason, never a 500.
      const nul = expectProblem(await t.get(`${users}?search=a%00`), 400, "invalid-request");
      expect(nul.errors).toEqual([{ field: "search", message: "must not contain the NUL character (U+0000)" }]);
      expectInvalidFields(await t.get(`/organizations/${orgA.id}/directory/groups?search=%00`), ["search"]);
      expectProblem(await t.get(`${members}?cursor=not-a-cursor`), 400, "invalid-cursor");
      expectProblem(await t.get(`/organizations/${orgA.id}/directory/groups?cursor=not-a-cursor`), 400, "invalid-cursor");
    });
  });

  describe("GET /campaigns/{id}/completion-timeline", () => {
    it("counts completions per UTC day with the running total, and the enrolments in all", async () => {
      const { t, campaignA, campaignB, users, keys } = w();
      // alice completed at the world's clock time; carol completes two days later.
      const first = t.clock.now().toISOString().slice(0, 10);
      t.clock.advance(2 * DAY);
      await t.recorder.recordProgress(campaignA.id, users.carol, { progressPercent: 100 });
      const third = t.clock.now().toISOString().slice(0, 10);
      const response = await t.get(`/campaigns/${campaignA.id}/completion-timeline`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        data: [
          { date: first, completed: 1, cumulative: 1 },
          { date: third, completed: 1, cumulative: 2 },
        ],
        enrolled: 3,
      });
      expect((await t.get(`/campaigns/${campaignB.id}/completion-timeline`)).body).toEqual({ data: [], enrolled: 1 });
      expectProblem(await t.get(`/campaigns/${campaignB.id}/completion-timeline`, keys.adminA), 404, "not-found");
      expectProblem(await t.get(`/campaigns/${UNKNOWN}/completion-timeline`), 404, "not-found");
    });
  });
}

describe("the directory", POPULATED, () => {
  directorySuite(() => ({}));
});

describePostgres("the directory on PostgreSQL", (url) => {
  let schema: TestSchema | undefined;
  beforeAll(async () => {
    schema = await createTestSchema(url);
  });
  afterAll(async () => {
    await schema?.drop();
  });
  describe("directory", POPULATED, () => {
    directorySuite(() => {
      if (!schema) throw new Error("the test schema was not created (see beforeAll)");
      return { postgres: { pool: schema.pool() } };
    });
  });
});
