/**
 * A store may keep a resource under an id its database assigns (`CreateRequest.id`,
 * `StoredResource.id`): the table store over an application's integer keys does. The router then
 * goes by the id `create` returned, everywhere a client or the host sees one.
 */
import { describe, expect, it } from "vitest";
import { sqliteDialect } from "../../src/store/sql/dialects/sqlite-dialect.js";
import { openSqlite } from "../../src/store/sql/open-sqlite.js";
import { createSchemaA, mappingA } from "../../src/store/sql/table/table-mappings.fixture.js";
import { tableStore } from "../../src/store/sql/table/table-store.js";
import { GROUP_SCHEMA, createTestApp, userBody } from "./harness.js";

const BULK_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:BulkRequest";

async function integerIdApp() {
  const db = await openSqlite(":memory:", { threads: false });
  await createSchemaA(db, "sqlite");
  const store = await tableStore({ kysely: db, dialect: sqliteDialect, ...mappingA });
  return createTestApp({ store });
}

describe("a store that assigns its own ids", () => {
  it("answers a POST with the assigned id in the body, the Location and the event", async () => {
    const t = await integerIdApp();
    const created = await t.post("/Users", userBody("ann@example.com")).expect(201);
    expect(created.body.id).toBe("1");
    expect(created.headers["location"]).toMatch(/\/Users\/1$/);
    expect(t.events[0]).toMatchObject({ type: "user.created", id: "1", resource: { id: "1" } });
    await t.get("/Users/1").expect(200);
    const second = await t.post("/Users", userBody("bob@example.com")).expect(201);
    expect(second.body.id).toBe("2");
  });

  it("resolves Bulk bulkId references to the assigned ids", async () => {
    const t = await integerIdApp();
    const response = await t
      .post("/Bulk", {
        schemas: [BULK_SCHEMA],
        Operations: [
          {
            method: "POST",
            path: "/Groups",
            bulkId: "team",
            data: { schemas: [GROUP_SCHEMA], displayName: "Team", members: [{ value: "bulkId:ann" }] },
          },
          { method: "POST", path: "/Users", bulkId: "ann", data: userBody("ann@example.com") },
        ],
      })
      .expect(200);
    const operations = response.body.Operations as { readonly bulkId: string; readonly location: string; readonly status: string }[];
    const ann = operations.find((operation) => operation.bulkId === "ann");
    const team = operations.find((operation) => operation.bulkId === "team");
    expect(ann?.status).toBe("201");
    expect(ann?.location).toMatch(/\/Users\/1$/);
    expect(team?.location).toMatch(/\/Groups\/1$/);
    const group = await t.get("/Groups/1").expect(200);
    expect(group.body.members).toEqual([expect.objectContaining({ value: "1", type: "User" })]);
  });

  it("pages the root search by index through users and teams that share ids, and refuses a root cursor it could not resume", async () => {
    const t = await integerIdApp();
    for (const name of ["ann", "bob", "cay"]) {
      await t.post("/Users", userBody(`${name}@example.com`)).expect(201);
      await t.post("/Groups", { schemas: [GROUP_SCHEMA], displayName: `Team ${name}` }).expect(201);
    }
    const seen: string[] = [];
    for (let startIndex = 1; startIndex <= 6; startIndex += 1) {
      const page = await t.post("/.search", { startIndex, count: 1 }).expect(200);
      expect(page.body.totalResults).toBe(6);
      const [resource] = page.body.Resources as { readonly id: string; readonly meta: { readonly resourceType: string } }[];
      seen.push(`${resource?.meta.resourceType} ${resource?.id}`);
    }
    expect(seen.sort()).toEqual(["Group 1", "Group 2", "Group 3", "User 1", "User 2", "User 3"]);
    const refused = await t.post("/.search", { cursor: "", count: 1 }).expect(400);
    expect(refused.body).toMatchObject({ scimType: "invalidValue", detail: expect.stringMatching(/ids unique across resource types/) });
    // Each type's own endpoint still pages by cursor: its ids are unique within it.
    const users = await t.get("/Users?cursor=&count=2").expect(200);
    expect(users.body.nextCursor).toEqual(expect.any(String));
  });
});
