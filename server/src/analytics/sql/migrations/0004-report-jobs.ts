/**
 * Analytics version 4: report lifetime, dedupe and durable jobs (issue 19). `request_key` names
 * identical requests (caller scope, kind, subject, filters) so one operation answers them all;
 * `expires_at` is when an operation and its rows are gone; `owner_id`, `heartbeat_at` and
 * `attempts` are the claim a worker runs the job under, so a job whose host died is taken over.
 * Operations stored before this version expire 24 hours after they were created (the default
 * lifetime), so a database that grew unbounded shrinks on the first purges after the upgrade;
 * and a `running` one has no heartbeat, so a worker claims it (its host is long gone).
 */
import type { Kysely } from "kysely";
import type { Migration, SqlStoreDatabase } from "scimkit/sql";
import type { AnalyticsTables } from "../analytics-tables.js";

/** What operations stored before this version are given: the router's default lifetime. */
const LEGACY_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** Operations given an expiry per statement, so the upgrade of a large table is a series of small writes. */
const BATCH = 500;

/** Adds the job columns to `scimkit_operations`, with the indexes of dedupe, purge and claims. */
export const reportJobs: Migration = {
  version: 4,
  name: "report-jobs",
  async up(trx, { columnTypes: type }) {
    // One column per statement: SQLite's ALTER TABLE adds one at a time.
    await trx.schema.alterTable("scimkit_operations").addColumn("request_key", type.key).execute();
    await trx.schema.alterTable("scimkit_operations").addColumn("expires_at", type.key).execute();
    await trx.schema.alterTable("scimkit_operations").addColumn("owner_id", type.key).execute();
    await trx.schema.alterTable("scimkit_operations").addColumn("heartbeat_at", type.key).execute();
    await trx.schema
      .alterTable("scimkit_operations")
      .addColumn("attempts", "integer", (column) => column.notNull().defaultTo(0))
      .execute();
    // Admission looks up an identical request of the organization.
    await trx.schema.createIndex("scimkit_operations_request").on("scimkit_operations").columns(["org_id", "request_key"]).execute();
    // The purge walks the expired ones, oldest first.
    await trx.schema.createIndex("scimkit_operations_expiry").on("scimkit_operations").columns(["expires_at"]).execute();
    // Pollers look for queued and running jobs, oldest first.
    await trx.schema.createIndex("scimkit_operations_status").on("scimkit_operations").columns(["status", "created_at"]).execute();

    const db = (trx as unknown as Kysely<SqlStoreDatabase>).withTables<AnalyticsTables>();
    for (;;) {
      const legacy = await db
        .selectFrom("scimkit_operations")
        .select(["id", "created_at"])
        .where("expires_at", "is", null)
        .orderBy("id")
        .limit(BATCH)
        .execute();
      if (legacy.length === 0) break;
      for (const operation of legacy) {
        const created = Date.parse(operation.created_at);
        const expiresAt = new Date((Number.isNaN(created) ? 0 : created) + LEGACY_LIFETIME_MS).toISOString();
        await db.updateTable("scimkit_operations").set({ expires_at: expiresAt }).where("id", "=", operation.id).execute();
      }
    }
  },
};
