/**
 * Migration 19 (the list generations): a SQLite file at version 18 opened with `migrate: false`
 * takes writes and answers startIndex pages by OFFSET without the table; once `migrate()` adds
 * it, creates and deletes keep the generation of their list, and deleting the organization moves
 * the generation of every list it had.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { addUser } from "../../memory/memory-store.fixture.js";
import { sqliteDialect } from "../dialects/sqlite-dialect.js";
import { sqlStore, type SqlStore } from "../sql-store.js";
import { runMigrations } from "./run-migrations.js";
import { sqlMigrations } from "./sql-migrations.js";

const directory = mkdtempSync(join(tmpdir(), "scimkit-migration-19-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const create = (store: SqlStore, id: string) => addUser(store, "acme", id, id);

const generation = async (store: SqlStore): Promise<number> => {
  const rows = await store.db.selectFrom("scimkit_list_generations").select("generation").where("org_id", "=", "acme").execute();
  return rows.reduce((sum, row) => sum + Number(row.generation), 0);
};

it("is optional until applied, then kept by creates, deletes and the organization's delete", async () => {
  const file = join(directory, "scim.db");
  const setup = await sqlStore({ sqlite: file, migrate: false });
  await runMigrations(
    setup.db,
    sqliteDialect,
    sqlMigrations.filter((migration) => migration.version <= 18),
  );
  await setup.close();

  const store = await sqlStore({ sqlite: file, migrate: false });
  try {
    for (const id of ["a", "b", "c"]) await create(store, id);
    await store.delete({ orgId: "acme", resourceType: "User", id: "b" });
    const page = await store.list({
      orgId: "acme",
      resourceType: "User",
      page: { kind: "index", startIndex: 2, count: 1 },
      members: false,
    });
    expect(page.resources.map((resource) => resource.id)).toEqual(["c"]);
    expect(page.totalResults).toBe(2);

    expect(await store.migrate()).toEqual([19]);
    await create(store, "d");
    await store.delete({ orgId: "acme", resourceType: "User", id: "a" });
    expect(await generation(store)).toBe(2);
    expect(await store.deleteOrganization?.("acme")).toBe(2);
    expect(await generation(store)).toBe(3);
  } finally {
    await store.close();
  }
});
