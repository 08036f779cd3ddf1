/**
 * Version 4: on SQLite, planner statistics for the store's indexes, written by hand into
 * `sqlite_stat1` (https://sqlite.org/lang_analyze.html, "fixed results"). Without statistics
 * SQLite guesses that `org_id = ?` matches about ten rows, so it reads an organization's group
 * member check (`org_id = ? and id in (…100 ids…)`) by scanning a covering index of the whole
 * organization instead of 100 primary-key lookups: 5 ms at 60,000 users, growing with N. The
 * figures describe the shape of the data — an organization holds many rows, an id one — so plans
 * stay right at any size. A later `ANALYZE` replaces them with measured ones, which is fine.
 * PostgreSQL gathers its own statistics (autovacuum): there the migration changes nothing.
 */
import { sql, type Kysely } from "kysely";
import type { SqlDialect } from "../dialects/sql-dialect.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import type { Migration } from "./migration.js";

/**
 * `sqlite_stat1.stat` per index: the table's rows, then the rows matching an equality on each
 * leading prefix of the index's columns (a million rows, ten organizations, two resource types).
 */
export const PLANNER_STATISTICS: readonly { readonly table: string; readonly index: string; readonly stat: string }[] = [
  // (org_id, id)
  { table: "scimkit_resources", index: "sqlite_autoindex_scimkit_resources_1", stat: "1000000 100000 1" },
  // (org_id, resource_type, id)
  { table: "scimkit_resources", index: "scimkit_resources_type_id", stat: "1000000 100000 50000 1" },
  // (org_id, resource_type, external_id, id)
  { table: "scimkit_resources", index: "scimkit_resources_external_id", stat: "1000000 100000 50000 2 1" },
  // (org_id, resource_type, attribute, value)
  { table: "scimkit_unique_keys", index: "sqlite_autoindex_scimkit_unique_keys_1", stat: "2000000 200000 100000 50000 1" },
  // (org_id, id)
  { table: "scimkit_unique_keys", index: "scimkit_unique_keys_resource", stat: "2000000 200000 2" },
  // (org_id, group_id, member_id)
  { table: "scimkit_members", index: "sqlite_autoindex_scimkit_members_1", stat: "1000000 100000 1000 1" },
  // (org_id, group_id, position)
  { table: "scimkit_members", index: "scimkit_members_position", stat: "1000000 100000 1000 1" },
  // (org_id, member_id)
  { table: "scimkit_members", index: "scimkit_members_member", stat: "1000000 100000 5" },
];

export const sqlitePlannerStatistics: Migration = {
  version: 4,
  name: "sqlite-planner-statistics",
  async up(trx: Kysely<SqlStoreDatabase>, dialect: SqlDialect): Promise<void> {
    if (dialect.name !== "sqlite") return;
    // Creates sqlite_stat1 when it does not exist yet; analyzes nothing of ours.
    await sql`analyze sqlite_schema`.execute(trx);
    for (const { table, index } of PLANNER_STATISTICS) {
      await sql`delete from sqlite_stat1 where tbl = ${table} and idx = ${index}`.execute(trx);
    }
    for (const { table, index, stat } of PLANNER_STATISTICS) {
      await sql`insert into sqlite_stat1 (tbl, idx, stat) values (${table}, ${index}, ${stat})`.execute(trx);
    }
    // Loads the statistics into this connection's planner now, not at the next open.
    await sql`analyze sqlite_schema`.execute(trx);
  },
};
