/**
 * Paging of every analytics list: `limit` (1–1000, default 50) and an opaque `cursor` bound to
 * its query — walks visit every item once, and a cursor that was edited, or is replayed with
 * other filters, another list or another campaign, is refused as `invalid-cursor`.
 */
import { describe, expect, it } from "vitest";
import {
  POPULATED,
  createAnalyticsTestApp,
  expectInvalidFields,
  expectProblem,
  type AnalyticsTestApp,
  type Json,
} from "./analytics-harness.js";
import { createOrganization, createWorld } from "./analytics-world.js";

interface ListBody {
  readonly data: Json[];
  readonly nextCursor: string | null;
}

/** Follows `nextCursor` from the first page to the last; returns the items and the page sizes. */
async function walk(t: AnalyticsTestApp, path: string, limit: number, key?: string): Promise<{ items: Json[]; pages: number[] }> {
  const items: Json[] = [];
  const pages: number[] = [];
  let cursor: string | null = "";
  const separator = path.includes("?") ? "&" : "?";
  while (cursor !== null) {
    const response = await t.get(`${path}${separator}limit=${limit}${cursor === "" ? "" : `&cursor=${encodeURIComponent(cursor)}`}`, key);
    expect(response.status).toBe(200);
    const body = response.body as ListBody;
    items.push(...body.data);
    pages.push(body.data.length);
    cursor = body.nextCursor;
    expect(pages.length).toBeLessThan(100);
  }
  return { items, pages };
}

describe("walks", POPULATED, () => {
  it("visit every organization once, in id order, the last page with nextCursor null", async () => {
    const t = await createAnalyticsTestApp();
    for (let index = 0; index < 7; index += 1) await createOrganization(t, `Org ${index}`);
    const { items, pages } = await walk(t, "/organizations", 3);
    expect(pages).toEqual([3, 3, 1]);
    const ids = items.map((item) => item["id"] as string);
    expect(ids).toEqual([...ids].sort());
    expect(items.map((item) => item["name"])).toEqual(["Org 0", "Org 1", "Org 2", "Org 3", "Org 4", "Org 5", "Org 6"]);
    const exact = await walk(t, "/organizations", 7);
    expect(exact.pages.reduce((sum, size) => sum + size, 0)).toBe(7);
  });

  it("keep their filters and scope across pages, on every list", async () => {
    const w = await createWorld();
    const cases: readonly [string, number, string | undefined][] = [
      ["/users", 4, undefined],
      ["/users?department=sales", 2, undefined],
      ["/users", 3, w.keys.adminA],
      ["/admin-users", 3, undefined],
      ["/campaigns", 2, undefined],
      [`/campaigns/${w.campaignA.id}/users`, 3, undefined],
      [`/campaigns/${w.campaignA.id}/users?overdue=true`, 2, undefined],
      [`/campaigns/${w.campaignA.id}/feedback-comments`, 2, undefined],
      [`/attack-simulations/${w.simulationA.id}/users`, 3, undefined],
      [`/attack-simulations/${w.simulationA.id}/users?opened=false`, 2, undefined],
    ];
    for (const [path, total, key] of cases) {
      const whole = await walk(w.t, path, 1000, key);
      expect(whole.items, path).toHaveLength(total);
      const byOne = await walk(w.t, path, 1, key);
      expect(byOne.items, path).toEqual(whole.items);
      expect(
        byOne.pages.every((size) => size === 1),
        path,
      ).toBe(true);
    }
  });

  it("a cursor may be followed with another limit", async () => {
    const t = await createAnalyticsTestApp();
    for (let index = 0; index < 5; index += 1) await createOrganization(t, `Org ${index}`);
    const first = (await t.get("/organizations?limit=2")).body as ListBody;
    const rest = (await t.get(`/organizations?limit=10&cursor=${first.nextCursor ?? ""}`)).body as ListBody;
    expect(rest.data.map((item) => item["name"])).toEqual(["Org 2", "Org 3", "Org 4"]);
    expect(rest.nextCursor).toBeNull();
  });
});

describe("limit", POPULATED, () => {
  it("defaults to 50", async () => {
    const t = await createAnalyticsTestApp();
    for (let index = 0; index < 51; index += 1) await createOrganization(t, `Org ${index}`);
    const page = (await t.get("/organizations")).body as ListBody;
    expect(page.data).toHaveLength(50);
    expect(page.nextCursor).not.toBeNull();
  });

  it("must be an integer from 1 to 1000", async () => {
    const t = await createAnalyticsTestApp();
    for (const limit of ["0", "1001", "-1", "1.5", "ten", "", "0x10", "1e2"]) {
      expectInvalidFields(await t.get(`/organizations?limit=${limit}`), ["limit"]);
    }
    expect((await t.get("/organizations?limit=1000")).status).toBe(200);
    expect((await t.get("/organizations?limit=1")).status).toBe(200);
  });
});

describe("invalid cursors", POPULATED, () => {
  it("refuse an edited, truncated or garbage cursor, and an oversized one by name", async () => {
    const w = await createWorld();
    const first = (await w.t.get("/users?limit=1")).body as ListBody;
    const cursor = first.nextCursor ?? "";
    const payload = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Record<string, unknown>;
    const edited = Buffer.from(JSON.stringify({ ...payload, a: `${String(payload["a"])}x` })).toString("base64url");
    const extra = Buffer.from(JSON.stringify({ ...payload, z: 1 })).toString("base64url");
    for (const bad of [edited, extra, cursor.slice(0, -3), "garbage", "!!", "e30", "x".repeat(4096)]) {
      const problem = expectProblem(await w.t.get(`/users?limit=1&cursor=${encodeURIComponent(bad)}`), 400, "invalid-cursor");
      expect(problem.detail).toMatch(/same filters/);
    }
    expectInvalidFields(await w.t.get(`/users?limit=1&cursor=${"x".repeat(4097)}`), ["cursor"]);
  });

  it("refuse a cursor replayed with other filters, on another list or another campaign", async () => {
    const w = await createWorld();
    const users = ((await w.t.get("/users?limit=1&active=true")).body as ListBody).nextCursor ?? "";
    expectProblem(await w.t.get(`/users?limit=1&active=false&cursor=${users}`), 400, "invalid-cursor");
    expectProblem(await w.t.get(`/users?limit=1&cursor=${users}`), 400, "invalid-cursor");
    expectProblem(await w.t.get(`/admin-users?limit=1&cursor=${users}`), 400, "invalid-cursor");
    expect((await w.t.get(`/users?limit=1&active=true&cursor=${users}`)).status).toBe(200);

    const enrolments = ((await w.t.get(`/campaigns/${w.campaignA.id}/users?limit=1`)).body as ListBody).nextCursor ?? "";
    expectProblem(await w.t.get(`/campaigns/${w.campaignB.id}/users?limit=1&cursor=${enrolments}`), 400, "invalid-cursor");
    expect((await w.t.get(`/campaigns/${w.campaignA.id}/users?limit=1&cursor=${enrolments}`)).status).toBe(200);
  });

  it("refuse a cursor of a router with another cursorSecret", async () => {
    const w = await createWorld();
    const other = await createAnalyticsTestApp({ router: { cursorSecret: "another secret" } });
    for (let index = 0; index < 3; index += 1) await createOrganization(other, `Org ${index}`);
    const foreign = ((await other.get("/organizations?limit=1")).body as ListBody).nextCursor ?? "";
    expectProblem(await w.t.get(`/organizations?limit=1&cursor=${foreign}`), 400, "invalid-cursor");
  });
});
