import { randomBytes } from "node:crypto";
import pg from "pg";
import { v7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isScimError } from "../../errors.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import { sqlMigrations } from "./migrations/sql-migrations.js";
import { createTestSchema, describePostgres, type TestSchema } from "./postgres-test-database.fixture.js";
import { sqlStoreBehaviour } from "./sql-store-behaviour.fixture.js";
import { sqlStore, type SqlStore } from "./sql-store.js";

const user = (userName: string): ScimObject => ({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName });
const NOW = "2024-01-01T00:00:00.000Z";

async function createUsers(store: SqlStore, orgId: string, count: number): Promise<string[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const id = v7();
      await store.create({
        orgId,
        resourceType: "User",
        id,
        now: NOW,
        attributes: user(`u${index}`),
        uniqueKeys: [{ attribute: "userName", value: `u${index}` }],
        unknownMembers: "ignore",
      });
      return id;
    }),
  );
}

async function createGroup(store: SqlStore, orgId: string, name: string, members: readonly string[] = []): Promise<string> {
  const id = v7();
  await store.create({
    orgId,
    resourceType: "Group",
    id,
    now: NOW,
    attributes: { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: name },
    uniqueKeys: [{ attribute: "displayName", value: name.toLowerCase() }],
    members,
    unknownMembers: "ignore",
  });
  return id;
}

function addMember(store: SqlStore, orgId: string, groupId: string, id: string) {
  return store.update({
    orgId,
    resourceType: "Group",
    id: groupId,
    now: NOW,
    membership: { kind: "delta", add: [id], remove: [] },
    unknownMembers: "ignore",
    members: false,
  });
}

async function memberIds(store: SqlStore, orgId: string, groupId: string): Promise<string[]> {
  const read = await store.get({ orgId, resourceType: "Group", id: groupId, members: true });
  return read?.members?.map((member) => member.value) ?? [];
}

describePostgres("sql store on PostgreSQL", (url) => {
  describe("migrations", () => {
    const schemas: string[] = [];
    const pools: pg.Pool[] = [];
    const admin = (): pg.Pool => {
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      pools.push(pool);
      return pool;
    };
    const freshSchema = (): string => {
      const name = `scimkit_test_${randomBytes(6).toString("hex")}`;
      schemas.push(name);
      return name;
    };

    afterAll(async () => {
      const pool = admin();
      for (const name of schemas) await pool.query(`drop schema if exists ${name} cascade`);
      await Promise.all(pools.map((entry) => entry.end()));
    });

    it("two processes (two pools) migrating one schema at once both succeed, and it migrates once", async () => {
      const name = freshSchema();
      await admin().query(`create schema ${name}`);
      const pool = (): pg.Pool => {
        const created = new pg.Pool({ connectionString: url, options: `-c search_path=${name}` });
        pools.push(created);
        return created;
      };
      const stores = await Promise.all([1, 2, 3].map(() => sqlStore({ postgres: pool(), migrate: false })));
      try {
        const applied = await Promise.all(stores.map((store) => store.migrate()));
        expect(applied.map((versions) => versions.length).sort()).toEqual([0, 0, sqlMigrations.length]);
        expect(await stores[0]?.migrate()).toEqual([]);
        const rows = await admin().query(`select version, name from ${name}.scimkit_migrations order by version`);
        expect(rows.rows).toEqual(sqlMigrations.map(({ version, name }) => ({ version, name })));
      } finally {
        await Promise.all(stores.map((store) => store.close()));
      }
    });

    it("the schema option creates the schema once, even when two stores start at once", async () => {
      const name = freshSchema();
      const [one, two] = await Promise.all([sqlStore({ postgres: url, schema: name }), sqlStore({ postgres: url, schema: name })]);
      try {
        const [alice = ""] = await createUsers(one!, "acme", 1);
        expect((await two!.get({ orgId: "acme", resourceType: "User", id: alice, members: false }))?.attributes).toEqual(user("u0"));
        const tables = await admin().query("select table_name from information_schema.tables where table_schema = $1 order by table_name", [
          name,
        ]);
        // The SCIM tables only: the analytics tables are the analytics store's to migrate (issue 13).
        expect(tables.rows.map((row: { table_name: string }) => row.table_name)).toEqual([
          "scimkit_audit",
          "scimkit_event_keys",
          "scimkit_event_receivers",
          "scimkit_event_sequences",
          "scimkit_events",
          "scimkit_list_generations",
          "scimkit_members",
          "scimkit_migrations",
          "scimkit_rate_buckets",
          "scimkit_request_log",
          "scimkit_resources",
          "scimkit_settings",
          "scimkit_tokens",
          "scimkit_unauthenticated_drops",
          "scimkit_unauthenticated_log",
          "scimkit_unique_keys",
        ]);
      } finally {
        await Promise.all([one?.close(), two?.close()]);
      }
    });

    it("a pool of the caller stays open after close()", async () => {
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      pools.push(pool);
      const name = freshSchema();
      await pool.query(`create schema ${name}`);
      const store = await sqlStore({ postgres: url, schema: name });
      await store.close();
      const borrowed = await sqlStore({ postgres: pool, migrate: false });
      await borrowed.close();
      expect((await pool.query("select 1 as one")).rows).toEqual([{ one: 1 }]);
    });
  });

  describe("two store instances, as two processes", () => {
    let schema: TestSchema | undefined;
    let one: SqlStore;
    let two: SqlStore;

    beforeAll(async () => {
      schema = await createTestSchema(url);
      one = await sqlStore({ postgres: schema.pool() });
      two = await sqlStore({ postgres: schema.pool() });
    });

    afterAll(async () => {
      await Promise.all([one?.close(), two?.close()]);
      await schema?.drop();
    });

    sqlStoreBehaviour({ open: async () => one, release: async () => {} });

    it("50 concurrent membership deltas to one group through both instances all apply", async () => {
      const orgId = `org-${v7()}`;
      const ids = await createUsers(one, orgId, 50);
      const groupId = await createGroup(one, orgId, "Everyone");
      const results = await Promise.all(ids.map((id, index) => addMember(index % 2 === 0 ? one : two, orgId, groupId, id)));
      expect(results.map((result) => result?.membership?.added)).toEqual(ids.map((id) => [id]));
      expect((await memberIds(two, orgId, groupId)).sort()).toEqual([...ids].sort());
      const read = await one.get({ orgId, resourceType: "Group", id: groupId, members: false });
      expect(read?.version).toBe(String(1 + ids.length));
    });

    it("concurrent creates of one userName through both instances: one succeeds, the other gets 409", async () => {
      for (let round = 0; round < 5; round++) {
        const orgId = `org-${v7()}`;
        const create = (store: SqlStore, userName: string) =>
          store.create({
            orgId,
            resourceType: "User",
            id: v7(),
            now: NOW,
            attributes: user(userName),
            uniqueKeys: [{ attribute: "userName", value: userName.toLowerCase() }],
            unknownMembers: "ignore",
          });
        const settled = await Promise.allSettled([create(one, "alice@acme.test"), create(two, "ALICE@acme.test")]);
        expect(settled.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
        const failures = settled.flatMap((outcome) => (outcome.status === "rejected" ? [outcome.reason as unknown] : []));
        expect(failures.map((error) => (isScimError(error) ? [error.status, error.scimType] : error))).toEqual([[409, "uniqueness"]]);
        const rows = await one.db.selectFrom("scimkit_resources").select("id").where("org_id", "=", orgId).execute();
        expect(rows).toHaveLength(1);
      }
    });

    it("users deleted through one instance while the other adds them to groups are never left as members", async () => {
      const orgId = `org-${v7()}`;
      const ids = await createUsers(one, orgId, 20);
      const groups = await Promise.all(["A", "B", "C"].map((name) => createGroup(one, orgId, name, ids.slice(0, 5))));
      await Promise.all(
        ids.flatMap((id, index) => [
          ...groups.map((groupId) => addMember(index % 2 === 0 ? two : one, orgId, groupId, id)),
          (index % 2 === 0 ? one : two).delete({ orgId, resourceType: "User", id, now: NOW }),
        ]),
      );
      const orphans = await one.db.selectFrom("scimkit_members").selectAll().where("org_id", "=", orgId).execute();
      expect(orphans).toEqual([]);
      for (const groupId of groups) expect(await memberIds(two, orgId, groupId)).toEqual([]);
    });

    it("a replace, attribute edits and deletes racing on shared groups neither deadlock nor lose a write", async () => {
      const orgId = `org-${v7()}`;
      const ids = await createUsers(one, orgId, 30);
      const [kept, doomed] = [ids.slice(0, 15), ids.slice(15)];
      const groups = await Promise.all(["A", "B", "C", "D"].map((name) => createGroup(two, orgId, name, [...ids].reverse())));
      await Promise.all([
        ...doomed.map((id, index) => (index % 2 === 0 ? one : two).delete({ orgId, resourceType: "User", id, now: NOW })),
        ...groups.map((groupId, index) =>
          (index % 2 === 0 ? two : one).update({
            orgId,
            resourceType: "Group",
            id: groupId,
            now: NOW,
            membership: { kind: "replace", ids: ids.filter((_, position) => position % 2 === index % 2) },
            unknownMembers: "ignore",
            members: false,
          }),
        ),
        ...kept.map((id, index) =>
          (index % 2 === 0 ? one : two).update({
            orgId,
            resourceType: "User",
            id,
            now: NOW,
            attributes: user(`renamed${index}`),
            uniqueKeys: [{ attribute: "userName", value: `renamed${index}` }],
            unknownMembers: "ignore",
            members: false,
          }),
        ),
      ]);
      for (const [index, groupId] of groups.entries()) {
        const expected = kept.filter((id) => ids.indexOf(id) % 2 === index % 2);
        expect((await memberIds(one, orgId, groupId)).sort()).toEqual([...expected].sort());
      }
      for (const [index, id] of kept.entries()) {
        expect((await two.get({ orgId, resourceType: "User", id, members: false }))?.attributes).toEqual(user(`renamed${index}`));
      }
    });
  });
});
