/**
 * The analytics store on a schema whose tables are hash-partitioned by `org_id` where PostgreSQL
 * allows it (docs/scaling.md): which analytics tables it refuses — every one whose primary key is
 * its own id, not led by the organization — is pinned here, and the analytics conformance kit
 * runs over the SCIM tables, `scimkit_admin_user_organizations`,
 * `scimkit_invitation_offer_organizations` and `scimkit_region_directory` (keyed by `org_id`)
 * partitioned.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partitionByOrg, partitionsOf, type PartitionedSchema } from "../../../../src/store/sql/partition-by-org.fixture.js";
import { createTestSchema, describePostgres, type TestSchema } from "../../../../src/store/sql/postgres-test-database.fixture.js";
import { type SqlStore, sqlStore } from "scimkit/sql";
import { describeAnalyticsStoreConformance } from "@scimkit/server/testkit";
import { emptyScimkitTables } from "./empty-scimkit-tables.fixture.js";
import { sqlAnalyticsStore } from "./sql-analytics-store.js";

const PARTITIONS = 4;

describePostgres("sql analytics store on PostgreSQL, tables hash-partitioned by org_id where they can be", (url) => {
  let schema: TestSchema | undefined;
  let store: SqlStore | undefined;
  let outcome: PartitionedSchema | undefined;

  beforeAll(async () => {
    schema = await createTestSchema(url);
    const migrating = await sqlStore({ postgres: schema.pool() });
    await sqlAnalyticsStore(migrating);
    await migrating.close();
    outcome = await partitionByOrg(schema.pool(), schema.name, PARTITIONS);
    store = await sqlStore({ postgres: schema.pool() });
  });

  afterAll(async () => {
    await store?.close();
    await schema?.drop();
  });

  describe("the schema", () => {
    it("partitions the SCIM tables, the admin users' and invitation offers' organizations, the region directory and moves; PostgreSQL refuses the analytics tables keyed by their own id", async () => {
      expect(outcome?.partitioned).toEqual([
        "scimkit_admin_user_organizations",
        "scimkit_audit",
        "scimkit_event_keys",
        "scimkit_event_receivers",
        "scimkit_event_sequences",
        "scimkit_events",
        "scimkit_invitation_offer_organizations",
        "scimkit_list_generations",
        "scimkit_members",
        "scimkit_region_directory",
        "scimkit_region_moves",
        "scimkit_request_log",
        "scimkit_resources",
        "scimkit_unique_keys",
      ]);
      // Findings (docs/scaling.md): each of these has a primary key without org_id.
      expect(outcome?.refused.map(({ table, withoutOrgId }) => ({ table, withoutOrgId }))).toEqual([
        { table: "scimkit_campaigns", withoutOrgId: ["scimkit_campaigns_pkey"] },
        { table: "scimkit_enrolments", withoutOrgId: ["scimkit_enrolments_pk"] },
        { table: "scimkit_feedback", withoutOrgId: ["scimkit_feedback_pkey"] },
        { table: "scimkit_operations", withoutOrgId: ["scimkit_operations_pkey"] },
        // Found by a digest, unique across organizations (issue 31).
        { table: "scimkit_setup_links", withoutOrgId: ["scimkit_setup_links_code_hash_key", "scimkit_setup_links_session_hash_key"] },
        { table: "scimkit_simulation_recipients", withoutOrgId: ["scimkit_simulation_recipients_pk"] },
        { table: "scimkit_simulations", withoutOrgId: ["scimkit_simulations_pkey"] },
        { table: "scimkit_tokens", withoutOrgId: ["scimkit_tokens_hash"] },
      ]);
      for (const refusal of outcome?.refused ?? []) expect(refusal.error).toMatch(/must include all partitioning columns/);
      const schemaNow = schema;
      if (!schemaNow) throw new Error("the test schema was not created (see beforeAll)");
      const partitioned = await partitionsOf(schemaNow.pool(), schemaNow.name);
      expect(partitioned.map(({ table, strategy, key, partitions }) => ({ table, strategy, key, partitions: partitions.length }))).toEqual(
        (outcome?.partitioned ?? []).map((table) => ({ table, strategy: "h", key: ["org_id"], partitions: PARTITIONS })),
      );
    });
  });

  describeAnalyticsStoreConformance("sql (PostgreSQL, partitioned by org_id where it can be)", async () => {
    const opened = store;
    if (!opened) throw new Error("the PostgreSQL store did not open (see beforeAll)");
    return {
      analytics: await sqlAnalyticsStore(opened),
      resources: opened,
      tokens: opened.tokens,
      close: () => emptyScimkitTables(opened.db),
    };
  });
});
