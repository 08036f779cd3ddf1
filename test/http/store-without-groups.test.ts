/**
 * A store that keeps no groups (`StoreCapabilities.groups: false`, a table store over an
 * application without teams): the router serves no `/Groups` and discovery advertises none.
 */
import { describe, expect, it } from "vitest";
import { sqliteDialect } from "../../src/store/sql/dialects/sqlite-dialect.js";
import { openSqlite } from "../../src/store/sql/open-sqlite.js";
import { createSchemaB, mappingB } from "../../src/store/sql/table/table-mappings.fixture.js";
import { tableStore } from "../../src/store/sql/table/table-store.js";
import { GROUP_SCHEMA, createTestApp, userBody } from "./harness.js";

async function usersOnlyApp() {
  const db = await openSqlite(":memory:", { threads: false });
  await createSchemaB(db, "sqlite");
  return createTestApp({ store: await tableStore({ kysely: db, dialect: sqliteDialect, ...mappingB }) });
}

describe("a store without groups", () => {
  it("lists only the types it keeps in discovery and serves no /Groups, while users work", async () => {
    const t = await usersOnlyApp();
    const types = await t.get("/ResourceTypes").expect(200);
    expect((types.body.Resources as { id: string }[]).map((type) => type.id)).toEqual(["User"]);
    const schemas = await t.get("/Schemas").expect(200);
    expect((schemas.body.Resources as { id: string }[]).map((schema) => schema.id)).not.toContain(GROUP_SCHEMA);
    await t.get("/ResourceTypes/Group").expect(404);
    await t.get("/Groups").expect(404);
    await t.post("/Groups", { schemas: [GROUP_SCHEMA], displayName: "Team" }).expect(404);
    await t.post("/Users", userBody("ann@example.com")).expect(201);
    const all = await t.post("/.search", {}).expect(200);
    expect(all.body.totalResults).toBe(1);
  });
});
