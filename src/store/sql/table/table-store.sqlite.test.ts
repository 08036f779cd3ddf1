/**
 * What the table store does beyond the conformance kit (issue 16): attributes without a column,
 * converted columns, the application's own unique indexes, rows the application writes itself,
 * hooks in the write's transaction, and a single-organization application.
 */
import { sql, type Kysely } from "kysely";
import { describe, expect, it } from "vitest";
import { isScimError } from "../../../errors.js";
import { compileFilter } from "../../../scim/filter/resolve-filter.js";
import { createSchemaRegistry } from "../../../scim/schema/schema-registry.js";
import type { CreateRequest, ResourceStore } from "../../resource-store.js";
import { sqliteDialect } from "../dialects/sqlite-dialect.js";
import { openSqlite } from "../open-sqlite.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import type { TableStoreOptions } from "./table-store.js";
import { createSchemaA, mappingA, mappingAOwnMeta } from "./table-mappings.fixture.js";
import { tableStore } from "./table-store.js";

const userSchema = createSchemaRegistry().resourceType("User")!;
const NOW = "2026-01-01T00:00:00.000Z";

async function open(
  ddl: readonly string[],
  mapping: Omit<TableStoreOptions<SqlStoreDatabase>, "kysely" | "dialect">,
): Promise<{ readonly db: Kysely<SqlStoreDatabase>; readonly store: ResourceStore }> {
  const db = await openSqlite(":memory:", { threads: false });
  for (const statement of ddl) await sql.raw(statement).execute(db);
  const store = await tableStore({ kysely: db, dialect: sqliteDialect, ...mapping });
  return { db, store };
}

function createUser(store: ResourceStore, attributes: Record<string, unknown>, overrides: Partial<CreateRequest> = {}) {
  const userName = String(attributes["userName"]);
  return store.create({
    orgId: "acme",
    resourceType: "User",
    id: "00000000-0000-7000-8000-000000000001",
    now: NOW,
    attributes,
    uniqueKeys: [{ attribute: "userName", value: userName.toLowerCase() }],
    unknownMembers: "ignore",
    ...overrides,
  });
}

function list(store: ResourceStore, filter?: string, sortBy?: string, orgId = "acme") {
  const compiled = filter === undefined ? undefined : compileFilter(userSchema, filter);
  if (compiled && !compiled.ok) throw new Error(compiled.error.detail);
  const sortPath = sortBy === undefined ? undefined : userSchema.resolvePath(sortBy);
  if (sortPath && !sortPath.ok) throw new Error(sortPath.reason);
  return store.list({
    orgId,
    resourceType: "User",
    ...(compiled ? { filter: compiled.value } : {}),
    ...(sortPath ? { sort: { path: sortPath.path, order: "ascending" as const } } : {}),
    page: { kind: "index", startIndex: 1, count: 10 },
    members: false,
  });
}

async function failure(promise: Promise<unknown>): Promise<{ status: number; scimType?: string; detail: string }> {
  try {
    await promise;
  } catch (error) {
    if (isScimError(error)) return { status: error.status, ...(error.scimType ? { scimType: error.scimType } : {}), detail: error.detail };
    throw error;
  }
  throw new Error("expected a ScimError");
}

const PEOPLE = "create table people (id integer primary key, org_id text not null, login text not null, given text, active text)";

describe("table store without a JSON column", () => {
  const mapping = {
    organization: { column: "org_id" },
    users: {
      table: "people",
      id: { column: "id", kind: "integer" as const },
      columns: {
        userName: "login",
        "name.givenName": "given",
        // 'Y'/'N' in the application's column: a conversion both ways.
        active: {
          column: "active",
          type: "boolean" as const,
          toColumn: (value: unknown) => (value ? "Y" : "N"),
          fromColumn: (value: unknown) => value === "Y",
        },
      },
    },
  };

  it("keeps the mapped attributes and drops the others (spec §2.3: not synchronized)", async () => {
    const { store } = await open([PEOPLE], mapping);
    const { resource } = await createUser(store, {
      userName: "ann",
      name: { givenName: "Ann", familyName: "Lee" },
      title: "Boss",
      active: false,
    });
    expect(resource.id).toBe("1");
    expect(resource.attributes).toEqual({ userName: "ann", name: { givenName: "Ann" }, active: false });
  });

  it("refuses a filter or a sort on an attribute it does not keep with 400 invalidFilter naming it", async () => {
    const { store } = await open([PEOPLE], mapping);
    expect(await failure(list(store, 'title eq "Boss"'))).toMatchObject({
      status: 400,
      scimType: "invalidFilter",
      detail: expect.stringContaining("title"),
    });
    expect(await failure(list(store, 'name.familyName sw "L"'))).toMatchObject({
      status: 400,
      detail: expect.stringContaining("name.familyName"),
    });
    expect(await failure(list(store, undefined, "title"))).toMatchObject({ status: 400, detail: expect.stringContaining("title") });
  });

  it("compares a converted column through its conversion, and refuses what a conversion cannot answer", async () => {
    const { store, db } = await open([PEOPLE], mapping);
    await createUser(store, { userName: "ann", active: false });
    await createUser(store, { userName: "bob", active: true });
    const stored = await sql<{ readonly login: string; readonly active: string }>`select login, active from people order by id`.execute(db);
    expect(stored.rows).toEqual([
      { login: "ann", active: "N" },
      { login: "bob", active: "Y" },
    ]);
    expect((await list(store, "active eq false")).resources.map((r) => r.attributes["userName"])).toEqual(["ann"]);
    expect((await list(store, "active ne false")).resources.map((r) => r.attributes["userName"])).toEqual(["bob"]);
    expect(await failure(list(store, "active pr"))).toMatchObject({
      status: 400,
      scimType: "invalidFilter",
      detail: expect.stringContaining("active"),
    });
  });
});

describe("table store over rows the application writes itself", () => {
  const mapping = {
    organization: { column: "org_id" },
    users: { table: "people", id: { column: "id", kind: "integer" as const }, columns: { userName: "login", "name.givenName": "given" } },
  };

  it("reads them with version 0 until the first write through SCIM", async () => {
    const { store, db } = await open([PEOPLE], mapping);
    await sql`insert into people (id, org_id, login) values (7, 'acme', 'carol')`.execute(db);
    const read = await store.get({ orgId: "acme", resourceType: "User", id: "7", members: false });
    expect(read).toMatchObject({ id: "7", version: "0", attributes: { userName: "carol" } });
    expect((await list(store, 'userName eq "carol"')).resources.map((r) => r.id)).toEqual(["7"]);
    const updated = await store.update({
      orgId: "acme",
      resourceType: "User",
      id: "7",
      now: NOW,
      expectedVersion: "0",
      attributes: { userName: "carol", name: { givenName: "Carol" } },
      uniqueKeys: [{ attribute: "userName", value: "carol" }],
      unknownMembers: "ignore",
      members: false,
    });
    expect(updated?.resource).toMatchObject({ version: "1", created: NOW, attributes: { name: { givenName: "Carol" } } });
  });

  it("frees a userName whose row the application deleted itself", async () => {
    const { store, db } = await open([PEOPLE], mapping);
    await createUser(store, { userName: "dan" });
    await sql`delete from people where login = 'dan'`.execute(db);
    const again = await createUser(store, { userName: "Dan" }, { uniqueKeys: [{ attribute: "userName", value: "dan" }] });
    expect(again.resource.attributes["userName"]).toBe("Dan");
    expect(await failure(createUser(store, { userName: "DAN" }, { uniqueKeys: [{ attribute: "userName", value: "dan" }] }))).toMatchObject({
      status: 409,
    });
  });

  it("answers a unique index of the application's with 409 uniqueness, writing nothing", async () => {
    const { store, db } = await open(
      [PEOPLE.replace("active text", "badge text"), "create unique index people_badge on people (org_id, badge)"],
      { ...mapping, users: { ...mapping.users, columns: { ...mapping.users.columns, externalId: "badge" } } },
    );
    await createUser(store, { userName: "eve", externalId: "B-1" });
    expect(
      await failure(createUser(store, { userName: "fay", externalId: "B-1" }, { uniqueKeys: [{ attribute: "userName", value: "fay" }] })),
    ).toMatchObject({
      status: 409,
      scimType: "uniqueness",
    });
    const rows = await sql<{ readonly n: number }>`select count(*) as n from people`.execute(db);
    expect(rows.rows[0]?.n).toBe(1);
    // The failed create's userName key was rolled back with it.
    await createUser(store, { userName: "fay", externalId: "B-2" }, { uniqueKeys: [{ attribute: "userName", value: "fay" }] });
  });
});

describe("table store hooks and a single organization", () => {
  it("runs toRow in the write's transaction: its failure writes nothing", async () => {
    const { store, db } = await open([`${PEOPLE.slice(0, -1)}, source text)`], {
      organization: { column: "org_id" },
      users: {
        table: "people",
        id: { column: "id", kind: "integer" },
        columns: { userName: "login" },
        hooks: {
          toRow: (row, resource) => {
            if (resource["userName"] === "forbidden") throw new Error("the application refuses this user");
            return { ...row, source: "scim" };
          },
          fromRow: (resource, row) => ({ ...resource, nickName: String(row["source"]) }),
        },
      },
    });
    const { resource } = await createUser(store, { userName: "gil" });
    expect(resource.attributes).toEqual({ userName: "gil", nickName: "scim" });
    await expect(
      createUser(store, { userName: "forbidden" }, { uniqueKeys: [{ attribute: "userName", value: "forbidden" }] }),
    ).rejects.toThrow("refuses");
    const rows = await sql<{ readonly n: number }>`select count(*) as n from people`.execute(db);
    expect(rows.rows[0]?.n).toBe(1);
  });

  it("serves one fixed organization: another sees nothing and cannot write", async () => {
    const { store } = await open(["create table people (id text primary key, login text not null)"], {
      organization: { fixed: "acme" },
      users: { table: "people", id: { column: "id", kind: "text" }, columns: { userName: "login" } },
    });
    await createUser(store, { userName: "hal" });
    expect((await list(store)).totalResults).toBe(1);
    expect((await list(store, undefined, undefined, "globex")).totalResults).toBe(0);
    expect(await failure(createUser(store, { userName: "ivy" }, { orgId: "globex" }))).toMatchObject({ status: 501 });
  });
});

describe("table store deleteOrganization", () => {
  it("deletes one organization's users, teams and memberships, and leaves the others' alone", async () => {
    const db = await openSqlite(":memory:", { threads: false });
    await createSchemaA(db, "sqlite");
    const store = await tableStore({ kysely: db, dialect: sqliteDialect, ...mappingA });
    for (const orgId of ["acme", "globex"]) {
      const { resource } = await createUser(store, { userName: "ann" }, { orgId });
      await store.create({
        orgId,
        resourceType: "Group",
        id: "00000000-0000-7000-8000-000000000009",
        now: NOW,
        attributes: { displayName: "Team" },
        uniqueKeys: [{ attribute: "displayName", value: "team" }],
        members: [resource.id],
        unknownMembers: "ignore",
      });
    }
    expect(await store.deleteOrganization?.("acme")).toBe(2);
    expect((await list(store)).totalResults).toBe(0);
    expect((await list(store, undefined, undefined, "globex")).totalResults).toBe(1);
    const members = await sql<{ readonly n: number }>`select count(*) as n from team_members`.execute(db);
    expect(members.rows[0]?.n).toBe(1);
    // Its names are free again.
    await createUser(store, { userName: "ann" });
  });
});

describe("table store with the application's version and time columns", () => {
  const LATER = "2026-02-01T12:30:45.123Z";
  const update = (store: ResourceStore, id: string, attributes: Record<string, unknown>, expectedVersion?: string) =>
    store.update({
      orgId: "acme",
      resourceType: "User",
      id,
      now: LATER,
      ...(expectedVersion === undefined ? {} : { expectedVersion }),
      attributes,
      uniqueKeys: [{ attribute: "userName", value: String(attributes["userName"]).toLowerCase() }],
      unknownMembers: "ignore",
      members: false,
    });

  async function openOwnMeta() {
    const db = await openSqlite(":memory:", { threads: false });
    await createSchemaA(db, "sqlite", { ownMeta: true });
    const store = await tableStore({ kysely: db, dialect: sqliteDialect, ...mappingAOwnMeta });
    return { db, store };
  }

  it("writes them on create and update and keeps nothing in scimkit_table_meta", async () => {
    const { db, store } = await openOwnMeta();
    const { resource } = await createUser(store, { userName: "ann", active: true });
    expect(resource).toMatchObject({ version: "1", created: NOW, lastModified: NOW });
    const updated = await update(store, resource.id, { userName: "ann", active: false }, "1");
    expect(updated?.resource).toMatchObject({ version: "2", created: NOW, lastModified: LATER });
    // RFC 7644 §3.14: a stale version is refused and writes nothing.
    expect(await failure(update(store, resource.id, { userName: "ann", active: true }, "1"))).toMatchObject({ status: 412 });
    const row = await sql<Record<string, unknown>>`select created_at, updated_at, lock_version from users`.execute(db);
    expect(row.rows).toEqual([{ created_at: NOW, updated_at: LATER, lock_version: 2 }]);
    const side = await sql<{ readonly n: number }>`select count(*) as n from scimkit_table_meta where resource_type = 'User'`.execute(db);
    expect(side.rows[0]?.n).toBe(0);
  });

  it("leaves the version alone on a write that changes nothing", async () => {
    const { store } = await openOwnMeta();
    const { resource } = await createUser(store, { userName: "bob", active: true });
    const same = await update(store, resource.id, { userName: "bob", active: true });
    expect(same?.resource).toMatchObject({ version: "1", lastModified: NOW });
  });

  it("reads the application's own values: its current_timestamp text as an instant, its version bumps", async () => {
    const { db, store } = await openOwnMeta();
    await sql`insert into users (id, org_id, email, created_at, updated_at) values (5, 'acme', 'carol', '2025-12-31 23:59:59', '2026-01-15 08:00:00')`.execute(
      db,
    );
    const read = await store.get({ orgId: "acme", resourceType: "User", id: "5", members: false });
    expect(read).toMatchObject({ version: "0", created: "2025-12-31T23:59:59.000Z", lastModified: "2026-01-15T08:00:00.000Z" });
    await createUser(store, { userName: "dave" });
    // Filters and sorts compare the instants, whichever wrote the row.
    expect((await list(store, 'meta.created lt "2026-01-01T00:00:00Z"')).resources.map((r) => r.id)).toEqual(["5"]);
    expect((await list(store, 'meta.lastModified gt "2026-01-02T00:00:00Z"')).resources.map((r) => r.id)).toEqual(["5"]);
    expect((await list(store, undefined, "meta.created")).resources.map((r) => r.attributes["userName"])).toEqual(["carol", "dave"]);
    // The application's own write bumps the counter: a client's ETag from before it is stale.
    await sql`update users set lock_version = lock_version + 1, updated_at = ${LATER} where id = 5`.execute(db);
    expect(await store.get({ orgId: "acme", resourceType: "User", id: "5", members: false })).toMatchObject({
      version: "1",
      lastModified: LATER,
    });
    expect(await failure(update(store, "5", { userName: "carol" }, "0"))).toMatchObject({ status: 412 });
  });

  it("refuses a mapping that gives an attribute's column to a time or the version", async () => {
    const db = await openSqlite(":memory:", { threads: false });
    await createSchemaA(db, "sqlite", { ownMeta: true });
    await expect(
      tableStore({
        kysely: db,
        dialect: sqliteDialect,
        ...mappingA,
        users: { ...mappingA.users, timestamps: { lastModified: "department" } },
      }),
    ).rejects.toThrow("department");
  });
});
