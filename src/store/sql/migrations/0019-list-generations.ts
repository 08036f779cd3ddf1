/**
 * Version 19: `scimkit_list_generations`, the counters that tell whether an organization's list of
 * one resource type has gained or lost a member since a moment (issue 29): what lets the store
 * page a `startIndex` walk from the position the previous page ended at instead of counting
 * OFFSET rows from the start. Up to 128 slots per list so that concurrent creates in one
 * organization update different rows on PostgreSQL instead of queuing behind one row lock.
 */
import { sql } from "kysely";
import type { Migration } from "./migration.js";

/** Creates `scimkit_list_generations`. */
export const listGenerations: Migration = {
  version: 19,
  name: "list-generations",
  async up(trx, { columnTypes: type }) {
    await trx.schema
      .createTable("scimkit_list_generations")
      .addColumn("org_id", type.key, (column) => column.notNull())
      .addColumn("resource_type", type.key, (column) => column.notNull())
      .addColumn("slot", sql`integer`, (column) => column.notNull())
      // Only ever incremented, so the sum of an organization's slots never repeats a value.
      .addColumn("generation", type.counter, (column) => column.notNull())
      // Led by the organization, as every key is (docs/scaling.md: partitionable by org_id).
      .addPrimaryKeyConstraint("scimkit_list_generations_pk", ["org_id", "resource_type", "slot"])
      .execute();
  },
};
