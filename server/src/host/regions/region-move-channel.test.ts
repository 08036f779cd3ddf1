/**
 * What another region's host can make this one store through the move channel (issue 30, point
 * 4), in-process on a SQLite file: nothing without the region key; nothing for a move it did not
 * announce; never an organization homed here; only the organization's own rows, of the listed
 * tables, with this database's columns and values of the right kind; pages bounded before they
 * are read; and a committed move is not rolled back. A refused page writes nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AnalyticsDatabase, sqlAnalyticsStore } from "@scimkit/server";
import express from "express";
import type { Kysely } from "kysely";
import { sqlStore, type SqlStore } from "scimkit/sql";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRegionMoveBook, type RegionMoveBook } from "./region-move-book.js";
import { MAX_MOVE_PAGE_BYTES, MAX_MOVE_PAGE_ROWS, regionMoveChannel } from "./region-move-channel.js";

const KEY = "region-key-for-the-channel-test-0123456789abcdef";
const NOW = "2026-12-07T12:00:00.000Z";

let dir: string;
let store: SqlStore;
let book: RegionMoveBook;
let app: express.Express;

const organizationRow = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: id,
  status: "active",
  created_at: NOW,
  updated_at: NOW,
  compatibility: null,
  existing_users: null,
  parent_id: null,
  ...extra,
});
const resourceRow = (orgId: string, id: string) => ({
  org_id: orgId,
  id,
  resource_type: "User",
  version: 1,
  created: NOW,
  last_modified: NOW,
  external_id: null,
  attributes: { userName: `${id}@example.com` },
  member_seq: null,
});

/** A call of the source's host: with the region key, or `key` (null: none). */
const post = (path: string, body: unknown, key: string | null = KEY) => {
  const call = request(app)
    .post(`/regions/v1/moves${path}`)
    .send(body as object);
  return key === null ? call : call.set("Authorization", `Bearer ${key}`);
};
const count = async (table: string, orgId: string): Promise<number> => {
  const rows = await store.db
    .selectFrom(table as "scimkit_resources")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("org_id", "=", orgId)
    .executeTakeFirstOrThrow();
  return Number(rows.n);
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "scimkit-channel-"));
  store = await sqlStore({ sqlite: join(dir, "eu.sqlite") });
  const analytics = await sqlAnalyticsStore(store);
  await analytics.createOrganization({ id: "local", name: "Local", status: "active", createdAt: NOW, updatedAt: NOW });
  book = await loadRegionMoveBook(store.db as unknown as Kysely<AnalyticsDatabase>, "eu");
  app = express();
  app.use(
    "/regions/v1/moves",
    regionMoveChannel({
      key: KEY,
      book,
      database: { db: store.db, dialect: store.dialect, engine: "sqlite" },
      baseUrls: { eu: "https://eu.example.com", us: "https://us.example.com" },
      holds: async (orgId) => (await analytics.getOrganization({ all: true }, orgId)) !== undefined,
    }),
  );
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the move channel", () => {
  it("takes nothing without the region key", async () => {
    for (const key of [null, "wrong-key-wrong-key-wrong-key-wrong-key"]) {
      const answer = await post("/acme/begin", { moveId: "m1", from: "us" }, key);
      expect(answer.status).toBe(401);
    }
    expect(book.get("acme")).toBeUndefined();
  });

  it("refuses a move of an organization homed here, from itself or from no region", async () => {
    expect((await post("/local/begin", { moveId: "m1", from: "us" })).status).toBe(409);
    expect((await post("/acme/begin", { moveId: "m1", from: "eu" })).status).toBe(400);
    expect((await post("/acme/begin", { moveId: "m1", from: "mars" })).status).toBe(400);
    expect((await post("/acme/begin", { moveId: "not a move id!", from: "us" })).status).toBe(400);
    expect(book.get("local")).toBeUndefined();
  });

  it("stores rows only for a move it was told of, of the organization, the listed tables and this database's columns", async () => {
    expect((await post("/acme/rows", { moveId: "m1", table: "scimkit_organizations", rows: [organizationRow("acme")] })).status).toBe(404);
    expect((await post("/acme/begin", { moveId: "m1", from: "us" })).status).toBe(201);
    expect(book.gate("acme")).toEqual({ kind: "arriving", from: "us" });
    const refused: readonly [string, unknown][] = [
      ["a table that is not an organization's", { table: "scimkit_api_keys", rows: [{ id: "k" }] }],
      ["another organization's rows", { table: "scimkit_resources", rows: [resourceRow("local", "u1")] }],
      ["a column this database lacks", { table: "scimkit_resources", rows: [{ ...resourceRow("acme", "u1"), password: "x" }] }],
      ["an object outside a JSON column", { table: "scimkit_resources", rows: [{ ...resourceRow("acme", "u1"), external_id: { a: 1 } }] }],
      ["a row without its key", { table: "scimkit_resources", rows: [{ ...resourceRow("acme", "u1"), id: null }] }],
      ["rows of different columns", { table: "scimkit_resources", rows: [resourceRow("acme", "u1"), { org_id: "acme", id: "u2" }] }],
      ["an organization row with a parent", { table: "scimkit_organizations", rows: [organizationRow("acme", { parent_id: "local" })] }],
      ["no rows", { table: "scimkit_resources", rows: [] }],
      [
        "too many rows",
        { table: "scimkit_resources", rows: Array.from({ length: MAX_MOVE_PAGE_ROWS + 1 }, (_, n) => resourceRow("acme", `u${n}`)) },
      ],
      [
        "a report row of no operation of the organization",
        { table: "scimkit_report_rows", rows: [{ operation_id: "op", seq: 1, row: "{}" }] },
      ],
    ];
    for (const [what, page] of refused) {
      const answer = await post("/acme/rows", { moveId: "m1", ...(page as object) });
      expect(answer.status, what).toBe(400);
      expect(typeof answer.body.detail, what).toBe("string");
    }
    expect(await count("scimkit_resources", "acme")).toBe(0);
    // Bounded before it is parsed.
    const huge = await post("/acme/rows", { moveId: "m1", table: "scimkit_resources", rows: ["x".repeat(MAX_MOVE_PAGE_BYTES)] });
    expect(huge.status).toBe(413);
    // The organization's own rows, twice (a resumed copy): one row each.
    for (let round = 0; round < 2; round++) {
      expect((await post("/acme/rows", { moveId: "m1", table: "scimkit_organizations", rows: [organizationRow("acme")] })).status).toBe(
        200,
      );
      expect((await post("/acme/rows", { moveId: "m1", table: "scimkit_resources", rows: [resourceRow("acme", "u1")] })).status).toBe(200);
    }
    expect(await count("scimkit_resources", "acme")).toBe(1);
    const digest = await request(app).get("/regions/v1/moves/acme/digest?moveId=m1").set("Authorization", `Bearer ${KEY}`);
    expect(digest.status).toBe(200);
    expect(digest.body.tables.scimkit_resources.rows).toBe(1);
  });

  it("commits once, after which the organization is its own and is not rolled back", async () => {
    expect((await post("/acme/commit", { moveId: "other" })).status).toBe(404);
    expect((await post("/acme/commit", { moveId: "m1" })).status).toBe(200);
    expect((await post("/acme/commit", { moveId: "m1" })).status).toBe(200);
    expect(book.get("acme")?.step).toBe("home");
    expect(book.gate("acme")).toBeUndefined();
    expect((await post("/acme/rows", { moveId: "m1", table: "scimkit_resources", rows: [resourceRow("acme", "u2")] })).status).toBe(409);
    const rollback = await request(app).delete("/regions/v1/moves/acme?moveId=m1").set("Authorization", `Bearer ${KEY}`);
    expect(rollback.status).toBe(409);
    expect(await count("scimkit_resources", "acme")).toBe(1);
    // A new move into here of what is now homed here is refused.
    expect((await post("/acme/begin", { moveId: "m2", from: "us" })).status).toBe(409);
  });

  it("drops an arriving copy whole when the source rolls back", async () => {
    expect((await post("/globex/begin", { moveId: "g1", from: "us" })).status).toBe(201);
    expect((await post("/globex/rows", { moveId: "g1", table: "scimkit_organizations", rows: [organizationRow("globex")] })).status).toBe(
      200,
    );
    expect((await post("/globex/rows", { moveId: "g1", table: "scimkit_resources", rows: [resourceRow("globex", "g")] })).status).toBe(200);
    const dropped = await request(app).delete("/regions/v1/moves/globex?moveId=g1").set("Authorization", `Bearer ${KEY}`);
    expect(dropped.status).toBe(204);
    expect(await count("scimkit_resources", "globex")).toBe(0);
    expect(book.get("globex")).toBeUndefined();
  });
});
