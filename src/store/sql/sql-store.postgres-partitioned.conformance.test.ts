/**
 * The SQL store on tables hash-partitioned by `org_id` (docs/scaling.md): the claim that every
 * SCIM key leads with the organization, checked by PostgreSQL itself — it refuses to partition a
 * table with a unique constraint that lacks the partition key — and by the conformance kit and
 * the store's own behaviour tests, run against the partitioned tables.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeStoreConformance } from "../../testkit/index.js";
import {
  partitionByOrg,
  partitionsOf,
  rowsPerPartition,
  schemaShape,
  type PartitionedSchema,
  type SchemaShape,
} from "./partition-by-org.fixture.js";
import { createTestSchema, describePostgres, type TestSchema } from "./postgres-test-database.fixture.js";
import { sqlStoreBehaviour } from "./sql-store-behaviour.fixture.js";
import { sqlStore, type SqlStore } from "./sql-store.js";

const PARTITIONS = 4;

/** The tables of the store's migrations that lead every key with `org_id`. */
const PARTITIONED = [
  "scimkit_audit",
  "scimkit_event_keys",
  "scimkit_event_receivers",
  "scimkit_event_sequences",
  "scimkit_events",
  "scimkit_list_generations",
  "scimkit_members",
  "scimkit_request_log",
  "scimkit_resources",
  "scimkit_unique_keys",
];

describePostgres("sql store on PostgreSQL, tables hash-partitioned by org_id", (url) => {
  let schema: TestSchema | undefined;
  let store: SqlStore | undefined;
  let outcome: PartitionedSchema | undefined;
  let migrated: SchemaShape | undefined;

  const opened = (): SqlStore => {
    if (!store) throw new Error("the partitioned PostgreSQL store did not open (see beforeAll)");
    return store;
  };
  const current = (): TestSchema => {
    if (!schema) throw new Error("the test schema was not created (see beforeAll)");
    return schema;
  };

  beforeAll(async () => {
    schema = await createTestSchema(url);
    // The migrations make the tables; then they are rebuilt partitioned, and the store reopens on them.
    const migrating = await sqlStore({ postgres: schema.pool() });
    await migrating.close();
    migrated = await schemaShape(schema.pool(), schema.name);
    outcome = await partitionByOrg(schema.pool(), schema.name, PARTITIONS);
    store = await sqlStore({ postgres: schema.pool() });
  });

  afterAll(async () => {
    await store?.close();
    await schema?.drop();
  });

  describe("the schema", () => {
    it("partitions every SCIM table keyed by organization, and PostgreSQL refuses only scimkit_tokens, for its unique digest", async () => {
      expect(outcome?.partitioned).toEqual(PARTITIONED);
      // Finding (docs/scaling.md): `scimkit_tokens_hash` is unique across organizations, so the
      // token table cannot be partitioned (or distributed) by org_id as it is.
      expect(outcome?.refused.map(({ table, withoutOrgId }) => ({ table, withoutOrgId }))).toEqual([
        { table: "scimkit_tokens", withoutOrgId: ["scimkit_tokens_hash"] },
      ]);
      expect(outcome?.refused[0]?.error).toMatch(/must include all partitioning columns/);
      const partitions = await partitionsOf(current().pool(), current().name);
      expect(partitions).toEqual(
        PARTITIONED.map((table) => ({
          table,
          strategy: "h",
          key: ["org_id"],
          partitions: Array.from({ length: PARTITIONS }, (_, index) => `${table}_p${index}`),
        })),
      );
    });

    it("keeps the migrations' columns, constraints and indexes, by name and definition, on the partitioned tables", async () => {
      const shape = await schemaShape(current().pool(), current().name);
      expect(shape).toEqual(migrated);
      // What the comparison covers, so an empty catalog query cannot pass it.
      expect(shape.indexes.map((line) => line.split(" ")[0])).toEqual(
        expect.arrayContaining([
          "scimkit_audit_pk",
          "scimkit_members_member",
          "scimkit_members_pk",
          "scimkit_members_position",
          "scimkit_resources_external_id",
          "scimkit_resources_pk",
          "scimkit_resources_type_id",
          "scimkit_tokens_hash",
          "scimkit_unique_keys_pk",
          "scimkit_unique_keys_resource",
        ]),
      );
      expect(shape.constraints.filter((line) => line.includes("FOREIGN KEY")).map((line) => line.split(" ")[0])).toEqual([
        "scimkit_members.scimkit_members_group_fk",
        "scimkit_members.scimkit_members_member_fk",
        "scimkit_unique_keys.scimkit_unique_keys_resource_fk",
      ]);
      expect(shape.columns).toContain("scimkit_resources.org_id text not null collate C");
      // Reopening found nothing to migrate: the partitioned schema is the migrations' schema.
      expect(await opened().migrate()).toEqual([]);
    });
  });

  describeStoreConformance({
    name: "sql (PostgreSQL, partitioned by org_id)",
    createStore: opened,
    destroyStore: () => {},
  });

  describe("store behaviour", () => {
    sqlStoreBehaviour({ open: async () => opened(), release: async () => {} });
  });

  describe("after the kit", () => {
    it("still has the tables partitioned, and the kit's organizations spread over the partitions", async () => {
      const partitions = await partitionsOf(current().pool(), current().name);
      expect(partitions.map((info) => info.table)).toEqual(PARTITIONED);
      for (const table of ["scimkit_resources", "scimkit_unique_keys", "scimkit_members"]) {
        const rows = await rowsPerPartition(current().pool(), current().name, table);
        // Rows only ever sit in partitions; the kit's random organizations hash to more than one.
        expect(Object.keys(rows).every((name) => name.startsWith(`${table}_p`))).toBe(true);
        expect(Object.keys(rows).length).toBeGreaterThan(1);
      }
    });
  });
});
