/**
 * Cursor paging (RFC 9865) over HTTP: `cursor=` starts it, `nextCursor` continues it, every
 * resource is visited exactly once, and a cursor that is not ours, was altered, or belongs to
 * another query is refused with 400 `invalidCursor`.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { LIST_SCHEMA, createTestApp, expectScimError, type TestApp } from "./harness.js";
import { SEARCH_REQUEST_SCHEMA, createGroup, createUser, userNamesOf, type Json } from "./provisioning-helpers.js";

const USER_COUNT = 10;

function query(parameters: Record<string, string>): string {
  return new URLSearchParams(parameters).toString();
}

/** `user01` … `user10`; odd ones have nickName "odd", even ones "even". */
async function seed(t: TestApp): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (let index = 1; index <= USER_COUNT; index += 1) {
    const userName = `user${String(index).padStart(2, "0")}`;
    const user = await createUser(t, userName, { nickName: index % 2 === 0 ? "even" : "odd" });
    ids.set(userName, String(user["id"]));
  }
  return ids;
}

interface Walk {
  readonly pages: Json[];
  readonly userNames: string[];
  readonly ids: string[];
}

type Fetch = (cursor: string) => Promise<Json>;

function viaGet(t: TestApp, parameters: Record<string, string>): Fetch {
  return async (cursor) => {
    const response = await t.get(`/Users?${query({ ...parameters, cursor })}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body as Json;
  };
}

function viaSearch(t: TestApp, parameters: Record<string, unknown>): Fetch {
  return async (cursor) => {
    const response = await t.post("/Users/.search", { schemas: [SEARCH_REQUEST_SCHEMA], ...parameters, cursor });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body as Json;
  };
}

/** Follows nextCursor from `cursor=` to the end, asserting the shape of every page. */
async function walk(fetch: Fetch, count: number, expectedTotal: number): Promise<Walk> {
  const pages: Json[] = [];
  let cursor = "";
  for (let guard = 0; guard < 100; guard += 1) {
    const page = await fetch(cursor);
    pages.push(page);
    expect(page["schemas"]).toEqual([LIST_SCHEMA]);
    expect(page["totalResults"]).toBe(expectedTotal);
    expect(page).not.toHaveProperty("startIndex");
    const resources = (page["Resources"] ?? []) as Json[];
    expect(resources.length).toBeLessThanOrEqual(count);
    expect(page["itemsPerPage"]).toBe(resources.length);
    const seen = pages.reduce((sum, each) => sum + ((each["Resources"] ?? []) as Json[]).length, 0);
    if (seen < expectedTotal) {
      expect(resources).toHaveLength(count);
      expect(typeof page["nextCursor"]).toBe("string");
      expect(page["nextCursor"]).not.toBe("");
      cursor = String(page["nextCursor"]);
    } else {
      expect(page).not.toHaveProperty("nextCursor");
      break;
    }
  }
  const resources = pages.flatMap((page) => (page["Resources"] ?? []) as Json[]);
  return { pages, userNames: resources.map((user) => String(user["userName"])), ids: resources.map((user) => String(user["id"])) };
}

function names(from: number, to: number, step = 1): string[] {
  const result: string[] = [];
  for (let index = from; step > 0 ? index <= to : index >= to; index += step) result.push(`user${String(index).padStart(2, "0")}`);
  return result;
}

describe("cursor paging (RFC 9865)", () => {
  let t: TestApp;
  let ids: Map<string, string>;
  beforeAll(async () => {
    t = await createTestApp();
    ids = await seed(t);
  });

  it("starts with cursor= and answers nextCursor instead of startIndex", async () => {
    const page = await viaGet(t, { count: "3" })("");
    expect(page).toMatchObject({ schemas: [LIST_SCHEMA], totalResults: USER_COUNT, itemsPerPage: 3 });
    expect(page).not.toHaveProperty("startIndex");
    expect(typeof page["nextCursor"]).toBe("string");
    expect(page["Resources"]).toHaveLength(3);
  });

  it("visits every user exactly once when nextCursor is followed with the same count; the last page has no nextCursor", async () => {
    const result = await walk(viaGet(t, { count: "3" }), 3, USER_COUNT);
    expect(result.pages).toHaveLength(4);
    expect(new Set(result.ids).size).toBe(USER_COUNT);
    expect([...result.ids].sort()).toEqual([...ids.values()].sort());
  });

  it("ends without nextCursor when the last page is exactly full", async () => {
    const result = await walk(viaGet(t, { count: "5" }), 5, USER_COUNT);
    expect(result.pages).toHaveLength(2);
    expect(new Set(result.ids).size).toBe(USER_COUNT);
  });

  it("answers a single page without nextCursor when everything fits", async () => {
    const page = await viaGet(t, { count: "50" })("");
    expect(page["Resources"]).toHaveLength(USER_COUNT);
    expect(page).not.toHaveProperty("nextCursor");
    expect(page).not.toHaveProperty("startIndex");
  });

  it("visits exactly the matching users with a filter", async () => {
    const filter = 'nickName eq "even"';
    const result = await walk(viaGet(t, { count: "2", filter, sortBy: "userName" }), 2, 5);
    expect(result.pages).toHaveLength(3);
    expect(result.userNames).toEqual(names(2, 10, 2));
  });

  it("keeps a descending sort across pages", async () => {
    const result = await walk(viaGet(t, { count: "3", sortBy: "userName", sortOrder: "descending" }), 3, USER_COUNT);
    expect(result.userNames).toEqual(names(10, 1, -1));
  });

  it("keeps a filter and a descending sort together", async () => {
    const result = await walk(viaGet(t, { count: "2", filter: 'nickName eq "odd"', sortBy: "userName", sortOrder: "descending" }), 2, 5);
    expect(result.userNames).toEqual(names(9, 1, -2));
  });

  it("pages POST /.search with the cursor in the body", async () => {
    const result = await walk(viaSearch(t, { count: 4, sortBy: "userName", attributes: ["userName"] }), 4, USER_COUNT);
    expect(result.userNames).toEqual(names(1, 10));
    for (const page of result.pages) {
      for (const user of page["Resources"] as Json[]) expect(Object.keys(user).sort()).toEqual(["id", "schemas", "userName"]);
    }
  });

  it("accepts a cursor of GET in POST /.search for the same query", async () => {
    const first = await viaGet(t, { count: "4", sortBy: "userName" })("");
    const second = await viaSearch(t, { count: 4, sortBy: "userName" })(String(first["nextCursor"]));
    expect(userNamesOf(second)).toEqual(names(5, 8));
  });

  it("count=0 with cursor= gives only the total", async () => {
    const page = await viaGet(t, { count: "0" })("");
    expect(page["totalResults"]).toBe(USER_COUNT);
    expect(page["Resources"] ?? []).toHaveLength(0);
    expect(page).not.toHaveProperty("startIndex");
    expect(page).not.toHaveProperty("nextCursor");
  });

  it("advertises cursor paging in /ServiceProviderConfig", async () => {
    const config = await t.get("/ServiceProviderConfig");
    expect((config.body as Json)["pagination"]).toMatchObject({ cursor: true, index: true });
  });
});

describe("cursor paging while resources change", () => {
  it("still visits every remaining user once when the last user of the previous page is deleted", async () => {
    const t = await createTestApp();
    const ids = await seed(t);
    const fetch = viaGet(t, { count: "3", sortBy: "userName" });
    const first = await fetch("");
    expect(userNamesOf(first)).toEqual(names(1, 3));
    expect((await t.delete(`/Users/${ids.get("user03")!}`)).status).toBe(204);
    const seen = [...userNamesOf(first)];
    let cursor = String(first["nextCursor"]);
    for (let guard = 0; guard < 10 && cursor !== ""; guard += 1) {
      const page = await fetch(cursor);
      seen.push(...userNamesOf(page));
      cursor = typeof page["nextCursor"] === "string" ? page["nextCursor"] : "";
    }
    expect(seen).toEqual(names(1, 10));
  });
});

describe("invalid cursors (400 invalidCursor)", () => {
  let t: TestApp;
  let next: string;
  beforeAll(async () => {
    t = await createTestApp();
    await seed(t);
    const page = await viaGet(t, { count: "3", filter: 'nickName eq "odd"', sortBy: "userName" })("");
    next = String(page["nextCursor"]);
    expect(next.length).toBeGreaterThan(0);
  });

  const filter = 'nickName eq "odd"';

  it("the issued cursor itself is accepted for its own query", async () => {
    const response = await t.get(`/Users?${query({ count: "3", filter, sortBy: "userName", cursor: next })}`);
    expect(response.status).toBe(200);
    expect(userNamesOf(response.body as Json)).toEqual(["user07", "user09"]);
  });

  it("refuses garbage", async () => {
    for (const cursor of [
      "garbage",
      "!!!",
      "%%%",
      "eyJ9",
      "e30",
      Buffer.from("[1,2]").toString("base64url"),
      Buffer.from('"x"').toString("base64url"),
      "x".repeat(5000),
    ]) {
      const { detail } = expectScimError(
        await t.get(`/Users?${query({ count: "3", filter, sortBy: "userName", cursor })}`),
        400,
        "invalidCursor",
      );
      expect(detail.length).toBeGreaterThan(0);
    }
  });

  it("refuses a cursor with a character changed", async () => {
    const middle = Math.floor(next.length / 2);
    const changed = `${next.slice(0, middle)}${next[middle] === "A" ? "B" : "A"}${next.slice(middle + 1)}`;
    expectScimError(await t.get(`/Users?${query({ count: "3", filter, sortBy: "userName", cursor: changed })}`), 400, "invalidCursor");
    expectScimError(
      await t.get(`/Users?${query({ count: "3", filter, sortBy: "userName", cursor: next.slice(0, -2) })}`),
      400,
      "invalidCursor",
    );
    expectScimError(await t.get(`/Users?${query({ count: "3", filter, sortBy: "userName", cursor: `${next}x` })}`), 400, "invalidCursor");
  });

  /** The cursor's JSON payload (base64url of JSON is how this service issues them), altered and re-encoded. */
  const altered = (change: (decoded: Record<string, unknown>) => Record<string, unknown>): string => {
    const decoded = JSON.parse(Buffer.from(next, "base64url").toString("utf8")) as Record<string, unknown>;
    return Buffer.from(JSON.stringify(change(decoded))).toString("base64url");
  };

  it("refuses a cursor whose payload no longer has the issued structure", async () => {
    const variants = [
      altered((decoded) =>
        Object.fromEntries(Object.entries(decoded).map(([key, value]) => [key, typeof value === "string" ? { value } : value])),
      ),
      altered((decoded) =>
        Object.fromEntries(Object.entries(decoded).map(([key, value]) => [key, typeof value === "string" ? `${value}x` : value])),
      ),
      altered(() => ({})),
      altered(() => ({ k: null, i: "x", q: "x" })),
    ];
    for (const cursor of variants) {
      expectScimError(await t.get(`/Users?${query({ count: "3", filter, sortBy: "userName", cursor })}`), 400, "invalidCursor");
    }
  });

  it("refuses a cursor whose position was rewritten by the client", async () => {
    const decoded = JSON.parse(Buffer.from(next, "base64url").toString("utf8")) as Record<string, unknown>;
    // A cursor is the server's: a client that edits the position inside it (to skip ahead, to
    // replay, or with a key of the wrong type) must get invalidCursor, not a page chosen by the edit.
    const variants: string[] = [];
    for (const [key, value] of Object.entries(decoded)) {
      if (typeof value !== "string") continue;
      variants.push(altered((original) => ({ ...original, [key]: `${value}x` })));
    }
    variants.push(altered((original) => ({ ...original, extra: 1 })));
    variants.push(
      altered((original) => Object.fromEntries(Object.entries(original).map(([key, value]) => [key, value === "user05" ? 5 : value]))),
    );
    let refused = 0;
    for (const cursor of variants) {
      const response = await t.get(`/Users?${query({ count: "3", filter, sortBy: "userName", cursor })}`);
      if (response.status === 400 && (response.body as Json)["scimType"] === "invalidCursor") refused += 1;
    }
    expect(refused, "every rewritten cursor is refused").toBe(variants.length);
  });

  it("refuses the cursor with a different filter", async () => {
    expectScimError(
      await t.get(`/Users?${query({ count: "3", filter: 'nickName eq "even"', sortBy: "userName", cursor: next })}`),
      400,
      "invalidCursor",
    );
    expectScimError(await t.get(`/Users?${query({ count: "3", sortBy: "userName", cursor: next })}`), 400, "invalidCursor");
  });

  it("refuses the cursor with a different sortBy or sortOrder", async () => {
    expectScimError(await t.get(`/Users?${query({ count: "3", filter, sortBy: "nickName", cursor: next })}`), 400, "invalidCursor");
    expectScimError(await t.get(`/Users?${query({ count: "3", filter, cursor: next })}`), 400, "invalidCursor");
    expectScimError(
      await t.get(`/Users?${query({ count: "3", filter, sortBy: "userName", sortOrder: "descending", cursor: next })}`),
      400,
      "invalidCursor",
    );
  });

  it("refuses the cursor in POST /.search with a different filter", async () => {
    expectScimError(
      await t.post("/Users/.search", { schemas: [SEARCH_REQUEST_SCHEMA], count: 3, filter: "title pr", sortBy: "userName", cursor: next }),
      400,
      "invalidCursor",
    );
  });

  it("refuses the cursor on another resource type or in another organization", async () => {
    await createGroup(t, "Engineering");
    expectScimError(await t.get(`/Groups?${query({ count: "3", filter, sortBy: "userName", cursor: next })}`), 400);
    const foreign = await t.get(
      `${t.base("globex")}/Users?${query({ count: "3", filter, sortBy: "userName", cursor: next })}`,
      t.token.globex,
    );
    expectScimError(foreign, 400, "invalidCursor");
  });

  it("refuses cursor together with startIndex (400 invalidValue)", async () => {
    expectScimError(await t.get(`/Users?${query({ count: "3", cursor: "", startIndex: "1" })}`), 400, "invalidValue");
    expectScimError(
      await t.get(`/Users?${query({ count: "3", filter, sortBy: "userName", cursor: next, startIndex: "4" })}`),
      400,
      "invalidValue",
    );
    expectScimError(
      await t.post("/Users/.search", { schemas: [SEARCH_REQUEST_SCHEMA], count: 3, cursor: "", startIndex: 1 }),
      400,
      "invalidValue",
    );
  });

  it("refuses a cursor given twice", async () => {
    expectScimError(await t.get(`/Users?cursor=&cursor=&count=3`), 400, "invalidValue");
  });
});
