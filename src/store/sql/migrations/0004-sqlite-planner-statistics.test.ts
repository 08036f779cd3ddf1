import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { sqlStore } from "../sql-store.js";
import { PLANNER_STATISTICS } from "./0004-sqlite-planner-statistics.js";

describe("migration 4: SQLite planner statistics", () => {
  it("makes SQLite read a group's member check by primary key, not by scanning the organization", async () => {
    const store = await sqlStore({ sqlite: ":memory:" });
    try {
      const stats = await sql<{ idx: string; stat: string }>`select idx, stat from sqlite_stat1`.execute(store.db);
      expect(stats.rows).toEqual(expect.arrayContaining(PLANNER_STATISTICS.map(({ index, stat }) => ({ idx: index, stat }))));
      const ids = Array.from({ length: 100 }, (_, index) => `id-${index}`);
      const plan = await sql<{
        detail: string;
      }>`explain query plan select r.id, r.resource_type from scimkit_resources as r where r.org_id = ${"acme"} and r.id in (${sql.join(ids)})`.execute(
        store.db,
      );
      const details = plan.rows.map((row) => row.detail).join("\n");
      // The primary key, searched once per id — not the covering external_id index over (org_id=?).
      expect(details).toMatch(/USING (COVERING )?INDEX sqlite_autoindex_scimkit_resources_1 \(org_id=\? AND id=\?\)/);
    } finally {
      await store.close();
    }
  });

  it("changes nothing on a second migrate", async () => {
    const store = await sqlStore({ sqlite: ":memory:" });
    try {
      expect(await store.migrate()).toEqual([]);
      const count = await sql<{ n: number }>`select count(*) as n from sqlite_stat1`.execute(store.db);
      expect(count.rows[0]?.n).toBe(PLANNER_STATISTICS.length);
    } finally {
      await store.close();
    }
  });
});
